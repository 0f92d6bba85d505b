"""The data folder is decided once per process, at start-up, and handed down: nothing deep inside reads it.

Two guards.  A source scan: ``from_environment(`` and ``data_dir(`` (the
only readers of ``$RELAVIUM_HOME``) are called only in the entry points --
the window's (``app.py``), the CLI's (``cli/__init__.py``), the window
context's documented default for a window built without an Application
(``ui/context.py``) -- and in the two definitions themselves
(``application/app.py``'s classmethod, ``application/paths.py``).  And the
behaviour lives beside the surfaces: tests/ui/test_window_paths.py (a window
handed folder A while ``RELAVIUM_HOME`` names B writes only to A) and
tests/cli/test_entry_application.py (``relavium --help`` creates no data
folder).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "relavium_desktop"
READERS = frozenset({"from_environment", "data_dir"})
ENTRY_MODULES = frozenset({
    "app.py",  # the window's entry point: builds AppPaths once and hands it to run_app
    "cli/__init__.py",  # the CLI's: one Application per command, built after parsing
    "ui/context.py",  # AppContext's documented default when a window is built without an Application
    "application/app.py",  # Application.from_environment, the classmethod the entry points call
    "application/paths.py",  # AppPaths.from_environment, the one caller of host.datadir.data_dir
})


def environment_reads() -> dict[str, list[int]]:
    """Every call of a reader in the package: ``{module: [line, ...]}``."""
    found: dict[str, list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name in READERS:
                found.setdefault(path.relative_to(PACKAGE).as_posix(), []).append(node.lineno)
    return found


def test_the_environment_is_read_only_in_the_entry_points() -> None:
    reads = environment_reads()
    outside = {module: lines for module, lines in reads.items() if module not in ENTRY_MODULES}
    assert outside == {}, f"the data folder must be handed in (AppPaths / Application), not read here: {outside}"
    # The scan sees real calls: the entry points' own reads are found (a scan finding nothing proves nothing).
    assert {"app.py", "cli/__init__.py", "application/paths.py"} <= set(reads)


def test_the_scan_catches_a_read_deep_inside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fallback like ``home or AppPaths.from_environment().home`` in a deep module is reported."""
    deep = tmp_path / "relavium_desktop" / "application"
    deep.mkdir(parents=True)
    (deep / "stores.py").write_text(
        "def store(home=None):\n    return home or AppPaths.from_environment().home\n", encoding="utf-8")
    (tmp_path / "relavium_desktop" / "app.py").write_text("paths = AppPaths.from_environment()\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path / "relavium_desktop")
    assert environment_reads() == {"app.py": [1], "application/stores.py": [2]}
