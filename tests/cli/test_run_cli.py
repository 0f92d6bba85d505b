"""``relavium run`` / ``relavium validate`` as a user runs them: the real console script,
real process host, real history.db, a new process for every resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.engine.workflow.wfhelpers import HARNESS
from tests.helpers import run_cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "resources" / "examples").glob("*.relavium.yaml"))


def seq(events: list[dict]) -> list[str]:
    return [e["type"] + (f":{e['nodeId']}" if "nodeId" in e else "") for e in events
            if e["type"].startswith(("run:", "node:"))]


def test_harness_fixture_prints_the_exact_sequence(cli_env: dict[str, str], tmp_path: Path) -> None:
    code, events, err = run_cli("run", str(HARNESS), "--input", "n=3", "--json", env=cli_env, cwd=tmp_path)
    assert code == 0, err
    assert seq(events) == [
        "run:started", "node:started:start", "node:completed:start", "node:started:check",
        "node:completed:check", "node:skipped:hi", "node:started:lo", "node:completed:lo",
        "node:started:out", "node:completed:out", "run:completed",
    ]
    assert [e["sequenceNumber"] for e in events] == list(range(len(events)))
    code, events, _ = run_cli("run", str(HARNESS), "--input", "n=15", "--json", env=cli_env, cwd=tmp_path)
    assert code == 0
    assert seq(events)[5:8] == ["node:skipped:lo", "node:started:hi", "node:completed:hi"]


GATED = """schema_version: '1.0'
workflow:
  id: gated
  inputs: [{name: who, type: string}]
  nodes:
    - {id: s, type: input}
    - {id: ask, type: human_gate, message_template: 'Proceed for {{ inputs.who }}?'}
    - {id: done, type: transform, transform: '"done for " + inputs.who'}
    - {id: out, type: output}
  edges: [{from: s, to: ask}, {from: ask, to: done}, {from: done, to: out}]
"""


def test_gate_exits_3_and_a_new_process_resumes_it(cli_env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "gated.relavium.yaml"
    wf.write_text(GATED)
    code, events, err = run_cli("run", str(wf), "--input", "who=ana", "--json", env=cli_env, cwd=tmp_path)
    assert code == 3, err
    assert events[-1]["type"] == "run:paused"
    run_id = events[-1]["runId"]
    paused = next(e for e in events if e["type"] == "human_gate:paused")
    assert paused["message"] == "Proceed for ana?"

    code, resumed, err = run_cli("run", "--resume", run_id, "--decision", "approve", "--json",
                                 env=cli_env, cwd=tmp_path)
    assert code == 0, err
    assert resumed[0]["type"] == "human_gate:resumed" and resumed[0]["sequenceNumber"] == len(events)
    assert resumed[-1]["type"] == "run:completed"
    assert resumed[-1]["outputs"] == {"out": "done for ana"}
    # The run is no longer resumable.
    code, _, err = run_cli("run", "--resume", run_id, "--decision", "approve", env=cli_env, cwd=tmp_path)
    assert code == 2 and "no paused run" in err


def test_hold_gates_applies_a_gate_timeout_while_the_cli_keeps_running(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "gated.relavium.yaml"
    wf.write_text(GATED.replace("type: human_gate,", "type: human_gate, timeout_ms: 200, timeout_action: approve,"))
    code, events, err = run_cli("run", str(wf), "--input", "who=ana", "--hold-gates", "--json",
                                env=cli_env, cwd=tmp_path)
    assert code == 0, err
    resumed = next(e for e in events if e["type"] == "human_gate:resumed")
    assert (resumed["decision"], resumed["decidedBy"]) == ("approved", "timeout")
    assert "run:paused" not in seq(events) and events[-1]["outputs"] == {"out": "done for ana"}
    # Without the flag the same run pauses at once (exit 3), as before.
    code, events, _ = run_cli("run", str(wf), "--input", "who=ana", "--json", env=cli_env, cwd=tmp_path)
    assert code == 3 and events[-1]["type"] == "run:paused"


def test_rejecting_a_gate_fails_its_branch(cli_env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "gated.relavium.yaml"
    wf.write_text(GATED)
    _, events, _ = run_cli("run", str(wf), "--input", "who=bo", "--json", env=cli_env, cwd=tmp_path)
    code, resumed, _ = run_cli("run", "--resume", events[-1]["runId"], "--decision", "reject", "--json",
                               env=cli_env, cwd=tmp_path)
    assert code == 1
    assert seq(resumed) == ["node:failed:ask", "node:skipped:done", "node:skipped:out", "run:failed"]
    assert resumed[-1]["error"]["reason"] == "user_rejected"


DENIED = """schema_version: '1.0'
workflow:
  id: denied
  inputs: [{name: target, type: string}]
  tools: {allowedCommands: ['touch allowed.txt']}
  nodes:
    - {id: s, type: input}
    - id: make
      type: tool
      tool_config:
        tool_name: run_command
        input_mapping: {command: touch, args: ['{{ inputs.target }}']}
        output_mapping: {code: exitCode}
    - {id: out, type: output}
  edges: [{from: s, to: make}, {from: make, to: out}]
"""


def test_tool_node_command_not_allowed_is_denied_before_a_process_starts(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "denied.relavium.yaml"
    wf.write_text(DENIED)
    code, events, _ = run_cli("run", str(wf), "--input", "target=sneaky.txt", "--workspace", str(tmp_path),
                              "--json", env=cli_env, cwd=tmp_path)
    assert code == 1
    failed = next(e for e in events if e["type"] == "node:failed")
    assert (failed["error"]["code"], failed["error"]["reason"]) == ("tool_denied", "command_not_allowed")
    assert not (tmp_path / "sneaky.txt").exists()
    # The allowlisted vector runs for real, and output_mapping sees the full result.
    code, events, err = run_cli("run", str(wf), "--input", "target=allowed.txt", "--workspace", str(tmp_path),
                                "--json", env=cli_env, cwd=tmp_path)
    assert code == 0, err
    assert (tmp_path / "allowed.txt").exists()
    assert events[-1]["outputs"] == {"out": {"code": 0}}


def test_transform_failures_exit_1(cli_env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "boom.relavium.yaml"
    wf.write_text(HARNESS.read_text().replace("'({ label: \"low\" })'", "'null.boom'"))
    code, events, _ = run_cli("run", str(wf), "--input", "n=3", "--json", env=cli_env, cwd=tmp_path)
    assert code == 1
    assert seq(events)[-3:] == ["node:failed:lo", "node:skipped:out", "run:failed"]


@pytest.mark.parametrize(("case", "snippet", "expected"), [
    ("unknown key", ("- { id: start, type: input }", "- { id: start, type: input, colour: red }"),
     ":6:33: unknown key 'colour'"),
    ("cycle", ("{ from: lo, to: out }]", "{ from: lo, to: out }, { from: out, to: start }]"),
     ": cycle: start → check → hi → out → start"),
    ("missing agent_ref", ("- { id: out, type: output }",
                           "- { id: out, type: output }\n    - { id: ag, type: agent, agent_ref: ghost }"),
     ":12:30: agent_ref 'ghost' names no agent in agents"),
    ("widening tools", ("  nodes:", "  agents: [{id: a, tools: [read_file]}]\n  nodes:\n"
                        "    - { id: ag, type: agent, agent_ref: a, tools: [write_file] }"),
     "tools may only narrow agent 'a'"),
])
def test_invalid_workflows_exit_2_with_one_positioned_message(
    cli_env: dict[str, str], tmp_path: Path, case: str, snippet: tuple[str, str], expected: str
) -> None:
    text = HARNESS.read_text().replace(*snippet)
    if case == "missing agent_ref":
        text = text.replace("{ from: lo, to: out }]", "{ from: lo, to: out }, { from: out, to: ag }]")
    if case == "widening tools":
        text = text.replace("{ from: lo, to: out }]", "{ from: lo, to: out }, { from: start, to: ag }]")
    wf = tmp_path / "bad.relavium.yaml"
    wf.write_text(text)
    runs = (("validate", str(wf)), ("run", str(wf), "--input", "n=1")) if case == "cycle" else (("validate", str(wf)),)
    for argv in runs:
        code, _, err = run_cli(*argv, env=cli_env, cwd=tmp_path)
        lines = err.strip().splitlines()
        assert code == 2, (case, err)
        assert len(lines) == 1 and lines[0].startswith(str(wf) + ":"), (case, err)
        assert expected in lines[0], (case, err)
    if case == "unknown key":
        code, out, err = run_cli("validate", str(wf), "--json", env=cli_env, cwd=tmp_path)
        assert code == 2 and out == ""  # the CI contract: the fault is on stderr
        doc = json.loads(err)
        assert doc["type"] == "error" and (doc["issues"][0]["line"], doc["issues"][0]["column"]) == (6, 33)


def test_bad_inputs_exit_2(cli_env: dict[str, str], tmp_path: Path) -> None:
    for argv in (("--input", "n=three"), (), ("--input", "n=1", "--input", "m=2")):
        code, _, err = run_cli("run", str(HARNESS), *argv, env=cli_env, cwd=tmp_path)
        assert code == 2, err
        assert "input" in err


def test_shipped_examples_validate(cli_env: dict[str, str], tmp_path: Path) -> None:
    assert len(EXAMPLES) >= 5
    for example in EXAMPLES:
        code, out, err = run_cli("validate", str(example), "--json", env=cli_env, cwd=tmp_path)
        assert code == 0 and out["ok"] is True, (example.name, err)
