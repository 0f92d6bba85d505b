"""The import-linter contract really catches a layering violation.

Runs the real ``lint-imports`` against a copy of the package, once as is
(kept) and once per contract with a module that imports what that contract
forbids (broken), so a contract that silently stopped checking would fail here.
"""

from __future__ import annotations

import re
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


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("relavium_desktop/ui/chat/one_shot.py", "import relavium_desktop.cli", "ui does not import cli"),
        ("relavium_desktop/ui/shell.py", "from relavium_desktop.cli import agent_common", "ui does not import cli"),
        ("relavium_desktop/store/db.py", "from relavium_desktop.host import datadir", "store does not import the host"),
        ("relavium_desktop/providers/config.py", "import relavium_desktop.store.db", "providers do not import store"),
        ("relavium_desktop/host/datadir.py", "import relavium_desktop.ui", "nothing below ui imports ui"),
        ("relavium_desktop/application/app.py", "import relavium_desktop.ui.qt", "nothing below ui imports ui"),
        ("relavium_desktop/application/workflow_check.py", "import relavium_desktop.cli",
         "the application layer does not import cli"),
        ("relavium_desktop/host/datadir.py", "import PySide6.QtGui", "host never imports Qt"),
        ("relavium_desktop/host/desktop_os.py", "import qasync", "host never imports Qt"),
        ("relavium_desktop/ui/chat/one_shot.py", "from relavium_desktop.host import datadir",
         "ui and cli reach host, providers and store only through the application layer"),
        ("relavium_desktop/cli/runs_cmd.py", "import relavium_desktop.store.runs",
         "ui and cli reach host, providers and store only through the application layer"),
        ("relavium_desktop/ui/shell.py", "from relavium_desktop.providers import config",
         "ui and cli reach host, providers and store only through the application layer"),
        ("relavium_desktop/providers/config.py", "import relavium_desktop.application.paths",
         "the application layer sits above engine, host, providers and store"),
    ],
)
def test_a_forbidden_import_between_layers_breaks_its_contract(
    tmp_path: Path, module: str, line: str, contract: str
) -> None:
    project = _copy_project(tmp_path)
    target = project / module
    target.write_text(target.read_text() + f"\n{line}  # deliberate violation\n")
    result = _lint(project)
    assert result.returncode != 0
    # The contract that names this rule is the one that broke (its name may wrap onto two lines).
    report = " ".join(result.stdout.split())
    verdict = re.search(re.escape(contract) + r".*?\b(KEPT|BROKEN)\b", report)
    assert verdict is not None and verdict.group(1) == "BROKEN", result.stdout
    assert report.count("BROKEN") == 1, result.stdout
