"""``relavium run`` / ``relavium validate`` with git_commit behind human gates, as a user runs them.

The real console script in a new process per step, a real git repository as
the workspace: a gate approved by its timeout never lets the commit happen,
a person's ``--resume --decision approve`` on a gate every path passes does,
and a layout where no gate can vouch for the commit fails validation at the
tool name's line:column.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli

HEAD = "schema_version: '1.0'\nworkflow:\n  id: w\n"
COMMIT = (
    "{id: commit, type: tool, tool_config: {tool_name: git_commit, input_mapping: {message: 'gated commit'}}}"
)

ONE_GATE = (
    HEAD
    + f"""  nodes:
    - {{id: s, type: input}}
    - {{id: ask, type: human_gate, gate_type: approval, timeout_ms: 200, timeout_action: approve}}
    - {COMMIT}
    - {{id: out, type: output}}
  edges: [{{from: s, to: ask}}, {{from: ask, to: commit}}, {{from: commit, to: out}}]
"""
)

TWO_GATES = (
    HEAD
    + f"""  nodes:
    - {{id: s, type: input}}
    - {{id: fan, type: parallel, parallel_of: [auto, person]}}
    - {{id: auto, type: human_gate, gate_type: approval, timeout_ms: 200, timeout_action: approve}}
    - {{id: person, type: human_gate, gate_type: approval}}
    - {{id: join, type: merge, merge_strategy: concat}}
    - {COMMIT}
  edges: [{{from: s, to: fan}}, {{from: auto, to: join}}, {{from: person, to: join}}, {{from: join, to: commit}}]
"""
)

# The gate sits on a sibling branch: the commit is reachable from s without passing it.
SIBLING = (
    HEAD
    + """  nodes:
    - {id: s, type: input}
    - {id: ask, type: human_gate, gate_type: approval}
    - id: commit
      type: tool
      tool_config:
        tool_name: git_commit
        input_mapping: {message: 'ungated'}
    - {id: out, type: output}
  edges: [{from: s, to: ask}, {from: s, to: commit}, {from: ask, to: out}, {from: commit, to: out}]
"""
)


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
def repo(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q", "-b", "main")
    git(ws, "config", "user.name", "Test User")
    git(ws, "config", "user.email", "test@example.invalid")
    (ws / "a.txt").write_text("a1\n")
    git(ws, "add", "a.txt")
    git(ws, "commit", "-q", "-m", "initial")
    (ws / "a.txt").write_text("a2\n")
    git(ws, "add", "a.txt")  # staged: a commit would take it
    return ws


def commits(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s").splitlines()


def workflow(tmp_path: Path, text: str) -> str:
    wf = tmp_path / "commit.relavium.yaml"
    wf.write_text(text)
    return str(wf)


def commit_error(events: list[dict[str, Any]]) -> dict[str, Any]:
    [failed] = [e for e in events if e["type"] == "node:failed" and e["nodeId"] == "commit"]
    return dict(failed["error"])


def test_timeout_approved_gate_then_git_commit_is_refused_and_nothing_is_committed(
    cli_env: dict[str, str], tmp_path: Path, repo: Path
) -> None:
    code, events, err = run_cli(
        "run",
        workflow(tmp_path, ONE_GATE),
        "--workspace",
        str(repo),
        "--hold-gates",
        "--json",
        env=cli_env,
        cwd=tmp_path,
    )
    assert code == 1, err
    resumed = next(e for e in events if e["type"] == "human_gate:resumed")
    assert (resumed["decision"], resumed["decidedBy"]) == ("approved", "timeout")
    error = commit_error(events)
    assert (error["code"], error["reason"]) == ("tool_denied", "gate_required")
    assert "gate 'ask' was approved by its timeout, not by a person" in error["message"]
    assert commits(repo) == ["initial"]


def test_a_timeout_on_one_branch_is_not_covered_by_a_person_on_the_other(
    cli_env: dict[str, str], tmp_path: Path, repo: Path
) -> None:
    code, events, err = run_cli(
        "run",
        workflow(tmp_path, TWO_GATES),
        "--workspace",
        str(repo),
        "--hold-gates",
        "--json",
        env=cli_env,
        cwd=tmp_path,
    )
    assert code == 3, err  # 'auto' approved itself by timeout; 'person' waits for a person
    assert [e["nodeId"] for e in events if e["type"] == "human_gate:resumed"] == ["auto"]
    code, resumed, err = run_cli(
        "run", "--resume", events[-1]["runId"], "--decision", "approve", "--json", env=cli_env, cwd=tmp_path
    )
    assert code == 1, err
    assert resumed[0]["decidedBy"] == "cli"
    error = commit_error(resumed)
    assert (error["code"], error["reason"]) == ("tool_denied", "gate_required")
    assert "gate 'auto' was approved by its timeout" in error["message"]
    assert commits(repo) == ["initial"]


def test_a_person_approving_the_gate_every_path_passes_commits(
    cli_env: dict[str, str], tmp_path: Path, repo: Path
) -> None:
    text = ONE_GATE.replace(" timeout_ms: 200, timeout_action: approve", "")
    code, events, err = run_cli(
        "run",
        workflow(tmp_path, text),
        "--workspace",
        str(repo),
        "--tier",
        "sandboxed",
        "--json",
        env=cli_env,
        cwd=tmp_path,
    )
    assert code == 3, err
    assert commits(repo) == ["initial"]
    code, resumed, err = run_cli(
        "run", "--resume", events[-1]["runId"], "--decision", "approve", "--json", env=cli_env, cwd=tmp_path
    )
    assert code == 0, err
    assert resumed[-1]["type"] == "run:completed"
    assert commits(repo) == ["gated commit", "initial"]


def test_validate_reports_a_commit_no_gate_dominates_at_its_line_and_column(
    cli_env: dict[str, str], tmp_path: Path, repo: Path
) -> None:
    path = workflow(tmp_path, SIBLING)
    code, out, err = run_cli("validate", path, "--json", env=cli_env, cwd=tmp_path)
    assert code == 2 and out == ""
    [issue] = json.loads(err)["issues"]
    # The commit node's `tool_name: git_commit` key: line 10, column 9.
    assert (issue["line"], issue["column"]) == (10, 9), issue
    assert "needs a person's approval at a human_gate on every path" in issue["message"]
    assert "s → commit" in issue["message"]
    assert f"{path}:10:9:" in err
    # The run refuses the same file before anything runs; nothing is committed.
    code, _, err = run_cli("run", path, "--workspace", str(repo), env=cli_env, cwd=tmp_path)
    assert code == 2 and "s → commit" in err
    assert commits(repo) == ["initial"]
    # Put the gate on the commit's only path and the same file validates.
    fixed = SIBLING.replace("{from: s, to: commit}, {from: ask, to: out}", "{from: ask, to: commit}")
    code, out, err = run_cli("validate", workflow(tmp_path, fixed), "--json", env=cli_env, cwd=tmp_path)
    assert code == 0, err
