"""The import-linter contract really catches a layering violation.

Runs the real ``lint-imports`` against a copy of the package, once as is
(kept) and once with an engine module that imports a forbidden module
(broken), so a contract that silently stopped checking would fail here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

LINT = Path(sys.executable).with_name("lint-imports")


def _copy_project(dest: Path) -> Path:
    shutil.copytree(REPO / "relavium_desktop", dest / "relavium_desktop",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", dest / "pyproject.toml")
    return dest


def _lint(project: Path) -> subprocess.CompletedProcess[str]:
    assert LINT.exists(), "lint-imports is not installed next to the test interpreter"
    return subprocess.run(
        [str(LINT), "--no-cache", "--config", str(project / "pyproject.toml")],
        cwd=project, capture_output=True, text=True, timeout=300, check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(project)},
    )


def test_contract_holds_for_the_real_tree(tmp_path: Path) -> None:
    result = _lint(_copy_project(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("relavium_desktop/engine/tools/bounds.py", "import subprocess"),
        ("relavium_desktop/engine/events.py", "from relavium_desktop.host import datadir"),
        ("relavium_desktop/engine/tools/registry.py", "import httpx"),
    ],
)
def test_a_forbidden_import_in_engine_breaks_it(tmp_path: Path, module: str, line: str) -> None:
    project = _copy_project(tmp_path)
    target = project / module
    target.write_text(target.read_text() + f"\n{line}  # deliberate violation\n")
    result = _lint(project)
    assert result.returncode != 0
    assert "BROKEN" in result.stdout
