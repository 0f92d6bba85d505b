"""The fast lane: which tests are fast, and a guard that keeps them honest.

``bash scripts/test-fast`` runs only tests marked ``fast``: the pure engine and
application tests, for a quick local loop (CI still runs everything).  A test
is fast when it lives under tests/engine/ or tests/application/, is not
marked ``slow`` or ``spawns``, and asks for no fixture that brings Qt or the
real CLI (``qtbot``, ``cli_env``, ...).  The in-process loopback LLM server
(a thread) is allowed: it starts no process and loads no Qt.

A label alone would rot, so every ``fast`` test is also watched while it runs,
in every run (the full CI run included):

- a process started during its setup, call or teardown (``subprocess``,
  asyncio's subprocesses, ``os.fork``/``posix_spawn``/``exec``/``system``,
  seen through Python's audit hooks) fails it;
- so does PySide6 newly loaded while it runs, or a Qt or ``relavium_desktop.ui``
  object held by its module's globals (an import at the top of the file).

The fix for a test that needs either is ``@pytest.mark.spawns`` (or moving it
out of the fast folders), not silencing the guard.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent
# Folders (relative to tests/) whose tests are fast unless they say otherwise.
FAST_FOLDERS = ("engine", "application")
# Fixtures that load Qt or run the real CLI as a subprocess: a test asking for one is never fast.
NOT_FAST_FIXTURES = frozenset({"qtbot", "qapp", "qapp_args", "qtmodeltester", "qtlog", "cli_env"})
# Audit events that start (or replace) a process.
PROCESS_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "os.exec",
        "os.system",
        "os.startfile",
    }
)
# Module prefixes a fast test's module must not hold at import time: Qt and the Qt surface.
QT_PREFIXES = ("PySide6", "shiboken6", "qasync", "pytestqt", "relavium_desktop.ui")


def in_fast_folder(path: Path) -> bool:
    try:
        rel = path.resolve().relative_to(TESTS)
    except ValueError:
        return False
    return len(rel.parts) > 1 and rel.parts[0] in FAST_FOLDERS


def is_fast(item: pytest.Item) -> bool:
    """Whether ``item`` belongs to the fast lane (its folder, its markers and its fixtures)."""
    if not in_fast_folder(item.path):
        return False
    if item.get_closest_marker("slow") or item.get_closest_marker("spawns"):
        return False
    fixtures = set(getattr(item, "fixturenames", ()))
    return not fixtures & NOT_FAST_FIXTURES


class _Watch:
    """What the audit hook saw while a fast test ran (one process-wide hook; off between tests)."""

    active = False
    started: list[str] = []  # noqa: RUF012 -- one mutable record per process, reset per test


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _Watch.active or event not in PROCESS_EVENTS:
        return
    what = args[1] if event == "subprocess.Popen" and len(args) > 1 else (args[0] if args else "")
    _Watch.started.append(f"{event} {what!r}"[:200])


_HOOKED = False


def _install_hook() -> None:
    global _HOOKED  # noqa: PLW0603 -- audit hooks cannot be removed; install exactly once per process
    if not _HOOKED:
        sys.addaudithook(_audit)
        _HOOKED = True


def qt_names_in(module: types.ModuleType) -> list[str]:
    """Globals of ``module`` that come from Qt or the Qt surface (what a top-level import leaves)."""
    found: list[str] = []
    for name, value in vars(module).items():
        origin = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
        if isinstance(origin, str) and origin.startswith(QT_PREFIXES):
            found.append(f"{name} (from {origin})")
    return found


def pytest_configure(config: pytest.Config) -> None:
    _install_hook()


_QT_STATE: dict[int, bool] = {}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    if item.get_closest_marker("fast"):
        _Watch.started = []
        _Watch.active = True
        _QT_STATE[id(item)] = "PySide6" in sys.modules
        module = getattr(item, "module", None)
        held = qt_names_in(module) if isinstance(module, types.ModuleType) else []
        if held:
            raise pytest.fail.Exception(
                f"a fast test's module imports Qt or the ui layer at its top: {', '.join(held[:5])}; "
                "mark the test @pytest.mark.spawns or move the import out of the fast folders",
                pytrace=False,
            )
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    try:
        result = yield
    finally:
        watched = item.get_closest_marker("fast") is not None and id(item) in _QT_STATE
        _Watch.active = False
    if watched:
        qt_before = _QT_STATE.pop(id(item))
        problems = []
        if _Watch.started:
            problems.append(f"started a process: {'; '.join(_Watch.started[:3])}")
        if not qt_before and "PySide6" in sys.modules:
            problems.append("loaded PySide6")
        _Watch.started = []
        if problems:
            raise pytest.fail.Exception(
                f"a fast test {' and '.join(problems)}; the fast lane is pure engine and application "
                "code -- mark it @pytest.mark.spawns (or move it) so the fast lane skips it",
                pytrace=False,
            )
    return result
