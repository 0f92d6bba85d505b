"""``relavium gate list | approve RUN_ID | reject RUN_ID [--reason]`` through the real console script.

Each step is a new process, as in CI: ``relavium run`` exits 3 at a gate,
``gate list`` shows it, ``gate approve`` answers it as a person would (so a
``git_commit`` behind the gate really commits in a real repository), ``gate
reject --reason`` fails the gate's branch with the reason on the decision.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.run_processes import from_a_new_process
from tests.cli.test_gate_commit_cli import ONE_GATE, commits, repo, workflow
from tests.helpers import run_cli

__all__ = ["repo"]  # the git repository fixture, shared with the gate-commit tests

GATED = """schema_version: '1.0'
workflow:
  id: gated
  inputs: [{name: who, type: string}]
  nodes:
    - {id: s, type: input}
    - {id: ask, type: human_gate, message_template: 'Ship it for {{ inputs.who }}?'}
    - {id: done, type: transform, transform: '"shipped for " + inputs.who'}
    - {id: out, type: output}
  edges: [{from: s, to: ask}, {from: ask, to: done}, {from: done, to: out}]
"""


def paused_run(env: dict[str, str], tmp_path: Path, who: str) -> tuple[str, dict[str, Any]]:
    wf = tmp_path / "gated.relavium.yaml"
    wf.write_text(GATED)
    code, events, err = run_cli("run", str(wf), "--input", f"who={who}", "--json", env=env, cwd=tmp_path)
    assert code == 3, err
    paused = next(e for e in events if e["type"] == "human_gate:paused")
    return events[-1]["runId"], paused


def test_list_shows_each_pending_gate_and_approve_resumes_the_run(cli_env: dict[str, str], tmp_path: Path) -> None:
    assert run_cli("gate", "list", "--json", env=cli_env)[1] == {"gates": []}
    first, paused = paused_run(cli_env, tmp_path, "ana")
    second, _ = paused_run(cli_env, tmp_path, "bo")

    code, out, err = run_cli("gate", "list", "--json", env=cli_env)
    assert code == 0, err
    assert [(g["runId"], g["nodeId"], g["message"]) for g in out["gates"]] == [
        (first, "ask", "Ship it for ana?"), (second, "ask", "Ship it for bo?")]
    assert out["gates"][0]["gateId"] == paused["gateId"] and out["gates"][0]["gateType"] == "approval"
    code, text, _ = run_cli("gate", "list", first, env=cli_env)
    assert code == 0 and text.splitlines() == [f'{first}  {paused["gateId"]}  approval  node=ask  "Ship it for ana?"']

    code, events, err = run_cli("gate", "approve", first, "--json", env=cli_env, cwd=tmp_path)
    assert code == 0, err
    resumed = events[0]
    assert resumed["type"] == "human_gate:resumed"
    assert (resumed["decision"], resumed["decidedBy"]) == ("approved", "cli")
    assert events[-1]["type"] == "run:completed" and events[-1]["outputs"] == {"out": "shipped for ana"}
    # Upstream's expected continuation: the gate resolves (no node:completed of its own), then what follows.
    assert [e["type"] + (f":{e['nodeId']}" if "nodeId" in e else "") for e in events] == [
        "human_gate:resumed:ask", "node:started:done", "node:completed:done", "node:started:out",
        "node:completed:out", "run:completed"]
    # Answered: gone from the list, and a second answer is refused (exit 2), nothing re-run.
    assert [g["runId"] for g in run_cli("gate", "list", "--json", env=cli_env)[1]["gates"]] == [second]
    code, out, err = run_cli("gate", "approve", first, "--json", env=cli_env, cwd=tmp_path)
    assert code == 2 and out == ""
    assert json.loads(err)["message"] == f"run {first!r} is completed, not waiting at a human gate"


def test_reject_with_a_reason_fails_the_gates_branch(cli_env: dict[str, str], tmp_path: Path) -> None:
    run_id, _ = paused_run(cli_env, tmp_path, "bo")
    code, events, err = run_cli("gate", "reject", run_id, "--reason", "not on a Friday", "--json",
                                env=cli_env, cwd=tmp_path)
    assert code == 1, err
    resumed = events[0]
    assert (resumed["decision"], resumed["decidedBy"], resumed["comment"]) == ("rejected", "cli", "not on a Friday")
    assert events[-1]["type"] == "run:failed" and events[-1]["error"]["reason"] == "user_rejected"
    # Without --json: a person reads the outcome on stderr.
    run_id, _ = paused_run(cli_env, tmp_path, "cy")
    code, _, err = run_cli("gate", "reject", run_id, env=cli_env, cwd=tmp_path)
    assert code == 1 and f"run {run_id} failed" in err


def test_bad_gate_invocations_exit_2(cli_env: dict[str, str], tmp_path: Path) -> None:
    for argv, words in (
        (("gate", "approve"), "needs RUN_ID"),
        (("gate", "approve", "no-such-run"), "no run with id 'no-such-run'"),
        (("gate", "list", "no-such-run"), "no run with id 'no-such-run'"),
        (("gate", "approve", "r1", "--reason", "x"), "--reason goes with reject"),
    ):
        code, out, err = run_cli(*argv, env=cli_env, cwd=tmp_path)
        assert code == 2 and out == "" and words in err, (argv, err)


def test_a_gate_approved_from_the_cli_is_a_persons_approval(
    cli_env: dict[str, str], tmp_path: Path, repo: Path
) -> None:
    """git_commit needs a person's approval at a gate: ``gate approve`` gives it (a timeout never does)."""
    text = ONE_GATE.replace(" timeout_ms: 200, timeout_action: approve", "")
    code, events, err = run_cli("run", workflow(tmp_path, text), "--workspace", str(repo), "--tier", "sandboxed",
                                "--json", env=cli_env, cwd=tmp_path)
    assert code == 3, err
    assert commits(repo) == ["initial"]
    code, resumed, err = run_cli("gate", "approve", events[-1]["runId"], "--json", env=cli_env, cwd=tmp_path)
    assert code == 0, err
    assert resumed[-1]["type"] == "run:completed"
    assert commits(repo) == ["gated commit", "initial"]


TWO_GATES = """schema_version: '1.0'
workflow:
  id: two-gates
  nodes:
    - {id: s, type: input}
    - {id: fan, type: parallel, parallel_of: [legal, ops]}
    - {id: legal, type: human_gate, message_template: 'Legal OK?'}
    - {id: ops, type: human_gate, message_template: 'Ops OK?'}
    - {id: join, type: merge, merge_strategy: concat}
  edges: [{from: s, to: fan}, {from: legal, to: join}, {from: ops, to: join}]
"""


def test_with_several_gates_open_approve_names_one_with_gate(cli_env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "two.relavium.yaml"
    wf.write_text(TWO_GATES)
    code, events, err = run_cli("run", str(wf), "--json", env=cli_env, cwd=tmp_path)
    assert code == 3, err
    run_id = events[-1]["runId"]
    gates = {g["nodeId"]: g["gateId"] for g in run_cli("gate", "list", run_id, "--json", env=cli_env)[1]["gates"]}
    assert set(gates) == {"legal", "ops"}

    code, out, err = run_cli("gate", "approve", run_id, "--json", env=cli_env, cwd=tmp_path)
    assert code == 2 and out == ""
    message = json.loads(err)["message"]
    assert "2 pending gates; name one with --gate" in message and all(g in message for g in gates.values())

    code, events, err = run_cli("gate", "approve", run_id, "--gate", gates["legal"], "--json", env=cli_env,
                                cwd=tmp_path)
    assert code == 3, err  # still waiting for ops
    assert events[-1]["type"] == "run:paused" and events[-1]["gateIds"] == [gates["ops"]]
    code, events, err = run_cli("gate", "approve", run_id, "--json", env=cli_env, cwd=tmp_path)
    assert code == 0, err
    assert events[-1]["type"] == "run:completed"


def test_a_gate_answered_already_is_refused_saying_who_answered_it(cli_env: dict[str, str], tmp_path: Path) -> None:
    """A second answer to the same gate (a stale script, a second terminal) changes nothing and says why."""
    run_id, paused = paused_run(cli_env, tmp_path, "di")
    gate_id = paused["gateId"]
    code, events, err = run_cli("gate", "approve", run_id, "--gate", gate_id, "--json", env=cli_env, cwd=tmp_path)
    assert code == 0 and events[-1]["type"] == "run:completed", err

    code, out, err = run_cli("gate", "reject", run_id, "--gate", gate_id, "--json", env=cli_env, cwd=tmp_path)
    assert code == 2 and out == ""
    assert json.loads(err)["message"] == f"gate {gate_id} of run {run_id!r} was already answered (approved by cli)"
    code, _, err = run_cli("run", "--resume", run_id, "--decision", "reject", "--gate", gate_id, env=cli_env,
                           cwd=tmp_path)
    assert code == 2 and "was already answered (approved by cli)" in err
    # Nothing ran again: one answer, one completion in the run's recorded story.
    kinds = from_a_new_process(cli_env, f"[e['type'] for e in s.events({run_id!r})]")
    assert kinds.count("human_gate:resumed") == 1 and kinds.count("run:completed") == 1
    assert kinds[-1] == "run:completed"
