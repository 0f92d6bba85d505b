"""The fast lane holds only pure engine and application tests, and its guard really catches a test that is not.

The lane's selection is checked on the real tree (``pytest --collect-only -m fast``
as scripts/test-fast runs it); the guard is checked by running pytest with the
project's real conftest and fast-lane plugin on a throwaway tests/ tree whose
"engine" tests start processes and load Qt.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.conftest import REPO

PYTEST = [sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider", "-p", "no:pytest-qt"]


# Prints each collected test with whether it is in the lane: one collection instead of two.
LISTER = """
def pytest_collection_finish(session):
    for item in session.items:
        print("LANE", "fast" if item.get_closest_marker("fast") else "other", item.nodeid)
"""


def _collected(tmp_path: Path, *paths: str) -> tuple[set[str], set[str]]:
    """(every test, the fast ones) collected from ``paths`` as scripts/test-fast collects them."""
    (tmp_path / "lane_lister.py").write_text(LISTER)
    env = dict(os.environ) | {
        "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    }
    proc = subprocess.run(
        [*PYTEST, "-p", "lane_lister", "--collect-only", "-q", *paths],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = [line.split(" ", 2)[1:] for line in proc.stdout.splitlines() if line.startswith("LANE ")]
    return {test for _, test in rows}, {test for lane, test in rows if lane == "fast"}


def test_the_fast_lane_selects_engine_and_application_tests_that_start_nothing(tmp_path: Path) -> None:
    paths = [p for p in ("tests/engine", "tests/application") if (REPO / p).is_dir()]
    every, fast = _collected(tmp_path, *paths, "tests/test_layering_contract.py")

    assert fast and fast < every
    outside = sorted(t for t in fast if not t.startswith(("tests/engine/", "tests/application/")))
    assert outside == []
    assert any(t.startswith("tests/test_layering_contract.py::") for t in every)
    # Pure engine tests are in.
    assert "tests/engine/tools/test_masking_property.py::test_masking_is_idempotent" in fast
    assert "tests/engine/workflow/test_loader.py::test_unknown_key_names_file_line_column" in fast
    # Marked spawns (a real command runs): out, parametrised cases included.
    assert "tests/engine/agent/test_loop.py::test_happy_path_run_command_then_read_file" in every
    assert "tests/engine/agent/test_loop.py::test_happy_path_run_command_then_read_file" not in fast
    assert "tests/engine/agent/test_modes.py::test_mode_table[auto-command]" not in fast
    assert "tests/engine/agent/test_modes.py::test_mode_table[auto-read in project]" in fast
    # The real CLI (cli_env) and Qt (qtbot) keep a test out without any marker.
    assert not any("test_allowlist_validation.py::test_cli_policy" in t for t in fast)
    assert any("test_allowlist_validation.py::test_cli_policy" in t for t in every)
    qt = "tests/engine/tools/test_allowlist_validation.py::test_a_stored_entry_the_engine_refuses_is_shown_and_explained"
    assert qt in every and qt not in fast


def _throwaway_tree(root: Path) -> Path:
    """The project's conftest, fast-lane plugin and pytest settings over a tests/ tree of our own."""
    tests = root / "tests"
    (tests / "fixtures").mkdir(parents=True)
    for rel in (
        "__init__.py",
        "conftest.py",
        "fast_lane.py",
        "fixtures/__init__.py",
        "fixtures/llm_server.py",
    ):
        shutil.copy(REPO / "tests" / rel, tests / rel)
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    for folder in ("engine", "application", "host"):
        (tests / folder).mkdir()
        (tests / folder / "__init__.py").write_text("")
    (tests / "engine" / "test_cases.py").write_text(
        "import asyncio\nimport os\nimport subprocess\nimport sys\n\nimport pytest\n\n\n"
        "def test_pure():\n    assert sorted([3, 1]) == [1, 3]\n\n\n"
        "def test_runs_a_command():\n    subprocess.run(['true'], check=True)\n\n\n"
        "async def test_runs_an_asyncio_subprocess():\n"
        "    proc = await asyncio.create_subprocess_exec('true')\n    await proc.wait()\n\n\n"
        "def test_forks():\n    pid = os.fork()\n    if pid == 0:\n        os._exit(0)\n    os.waitpid(pid, 0)\n\n\n"
        "def test_loads_qt():\n    import PySide6.QtCore  # noqa: F401\n\n\n"
        "@pytest.mark.spawns\ndef test_marked_spawns():\n    subprocess.run(['true'], check=True)\n"
    )
    (tests / "application" / "test_qt_at_the_top.py").write_text(
        "from PySide6.QtCore import QObject\n\n\ndef test_uses_qt():\n    assert QObject\n"
    )
    (tests / "host" / "test_outside.py").write_text(
        "import subprocess\n\n\ndef test_a_host_test_may_run_a_command():\n"
        "    subprocess.run(['true'], check=True)\n"
    )
    return root


def _run(root: Path, *paths: str) -> dict[str, str]:
    """Each test's outcome in a run of the throwaway tree: passed, or its failure/error message."""
    report = root / f"report-{len(list(root.glob('report-*')))}.xml"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(root)}
    proc = subprocess.run(
        [*PYTEST, "-c", str(root / "pyproject.toml"), "--rootdir", str(root), f"--junitxml={report}", *paths],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert report.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    outcomes: dict[str, str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        bad = [child.get("message", "") for child in case if child.tag in ("failure", "error")]
        outcomes[case.get("name", "")] = " | ".join(bad) or "passed"
    return outcomes


def test_the_guard_fails_a_fast_test_that_starts_a_process_or_loads_qt(tmp_path: Path) -> None:
    root = _throwaway_tree(tmp_path)

    out = _run(root, "tests/engine", "tests/host")
    assert out["test_pure"] == "passed"
    assert out["test_marked_spawns"] == "passed"
    assert out["test_a_host_test_may_run_a_command"] == "passed"
    for name in ("test_runs_a_command", "test_runs_an_asyncio_subprocess"):
        assert "a fast test started a process: subprocess.Popen ['true']" in out[name], out
    assert "a fast test started a process: os.fork" in out["test_forks"], out
    assert "a fast test loaded PySide6" in out["test_loads_qt"], out

    # Selecting the lane leaves the marked test out; the guard still fails the offenders.
    lane = _run(root, "-m", "fast", "tests/engine", "tests/host")
    assert "test_marked_spawns" not in lane and "test_a_host_test_may_run_a_command" not in lane
    assert lane["test_pure"] == "passed" and lane["test_runs_a_command"] != "passed"

    top = _run(root, "tests/application")
    assert "imports Qt or the ui layer at its top: QObject (from PySide6.QtCore)" in top["test_uses_qt"], top
