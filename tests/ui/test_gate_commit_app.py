"""The app's gate answers and git_commit: a person's Approve commits, a gate's timeout never does.

A run paused by ``relavium run`` at a gate before a git_commit tool node is
opened in a fresh window over a real git repository: pressing Approve (a
person, ``decidedBy: desktop``) commits; letting the gate's
``timeout_action: approve`` apply while the window is open lets the run go
on, but the commit is refused ``gate_required`` and nothing is committed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.ui.test_runs_view import open_paused_run, pause_with_cli

GATED_COMMIT = """\
schema_version: '1.0'
workflow:
  id: gated-commit
  nodes:
    - { id: start, type: input }
    - { id: approve, type: human_gate, gate_type: approval, message_template: 'Commit the staged change?' }
    - id: commit
      type: tool
      tool_config: { tool_name: git_commit, input_mapping: { message: 'approved in the app' } }
    - { id: out, type: output }
  edges: [{ from: start, to: approve }, { from: approve, to: commit }, { from: commit, to: out }]
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"},
    ).stdout


@pytest.fixture
def repo(project: Path) -> Path:
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.name", "Test User")
    git(project, "config", "user.email", "test@example.invalid")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "initial")
    (project / "src" / "app.py").write_text("print('hello again')\n")
    git(project, "add", "src/app.py")
    return project


def commits(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s").splitlines()


def test_approving_in_the_window_is_a_persons_decision_and_commits(
    make_window, qtbot, repo: Path, cli_env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "commit.relavium.yaml"
    wf.write_text(GATED_COMMIT)
    run_id = pause_with_cli(cli_env, wf, repo)
    _window, view = open_paused_run(make_window, qtbot, run_id)
    with qtbot.waitSignal(view.resumed, timeout=30_000) as blocker:
        view.gate_panel.approve_button.click()
    assert blocker.args[0].status == "completed", blocker.args[0].error
    assert commits(repo) == ["approved in the app", "initial"]


def test_a_gate_timeout_applied_in_the_window_never_commits(
    make_window, qtbot, repo: Path, cli_env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "commit.relavium.yaml"
    wf.write_text(
        GATED_COMMIT.replace(
            "gate_type: approval,", "gate_type: approval, timeout_ms: 1500, timeout_action: approve,"
        )
    )
    run_id = pause_with_cli(cli_env, wf, repo)
    _window, view = open_paused_run(make_window, qtbot, run_id)
    with qtbot.waitSignal(view.resumed, timeout=30_000) as blocker:
        pass  # nobody answers
    assert blocker.args[0].status == "failed"
    qtbot.waitUntil(
        lambda: view.shown_run == run_id and view.events[-1]["type"] == "run:failed", timeout=10_000
    )
    resumed = next(e for e in view.events if e["type"] == "human_gate:resumed")
    assert (resumed["decision"], resumed["decidedBy"]) == ("approved", "timeout")
    failed = next(e for e in view.events if e["type"] == "node:failed" and e["nodeId"] == "commit")
    assert (failed["error"]["code"], failed["error"]["reason"]) == ("tool_denied", "gate_required")
    assert "approved by its timeout, not by a person" in failed["error"]["message"]
    assert commits(repo) == ["initial"]
