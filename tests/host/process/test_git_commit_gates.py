"""Only a person's gate approval on every path lets a git_commit tool node commit.

Real workflow runs against a real repository: a gate answered by its
``timeout_action: approve`` never vouches for a commit, nor does a gate on a
sibling branch; a person-approved gate that every live path passes does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.workflow.journal import MemoryJournal
from relavium_desktop.engine.workflow.run import GateDecision, RunResult, WorkflowRun
from relavium_desktop.host.process import ProcessHost
from tests.engine.workflow.wfhelpers import engine, load, of_type
from tests.host.process.conftest import git

HEAD = "schema_version: '1.0'\nworkflow:\n  id: w\n"
COMMIT = (
    "{id: commit, type: tool, tool_config: {tool_name: git_commit, input_mapping: {message: 'gated commit'}}}"
)

# s -> ask -> commit -> out
ONE_GATE = (
    HEAD
    + f"""  nodes:
    - {{id: s, type: input}}
    - {{id: ask, type: human_gate, gate_type: approval, timeout_ms: 100, timeout_action: approve}}
    - {COMMIT}
    - {{id: out, type: output}}
  edges: [{{from: s, to: ask}}, {{from: ask, to: commit}}, {{from: commit, to: out}}]
"""
)

# s -> fan -> (auto: times out and approves | person: a person answers) -> join -> commit
TWO_GATES = (
    HEAD
    + f"""  nodes:
    - {{id: s, type: input}}
    - {{id: fan, type: parallel, parallel_of: [auto, person]}}
    - {{id: auto, type: human_gate, gate_type: approval, timeout_ms: 100, timeout_action: approve}}
    - {{id: person, type: human_gate, gate_type: approval}}
    - {{id: join, type: merge, merge_strategy: concat}}
    - {COMMIT}
    - {{id: out, type: output}}
  edges: [{{from: s, to: fan}}, {{from: auto, to: join}}, {{from: person, to: join}},
          {{from: join, to: commit}}, {{from: commit, to: out}}]
"""
)


def commits(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s").splitlines()


def stage(repo: Path) -> None:
    (repo / "a.txt").write_text("a2\n")
    git(repo, "add", "a.txt")


def refusal(wf_run: WorkflowRun) -> dict[str, Any]:
    [failed] = [e for e in of_type(wf_run.events, "node:failed") if e["nodeId"] == "commit"]
    return dict(failed["error"])


async def _resume(
    th: ToolHost, journal: MemoryJournal, paused: RunResult, decision: GateDecision, **kw: Any
) -> tuple[RunResult, WorkflowRun]:
    wf_run = engine(host=th, journal=journal, **kw).resume(paused.run_id, decision)
    return await wf_run.run(), wf_run


async def test_a_gate_approved_by_its_timeout_never_lets_git_commit_run(
    repo: Path, host: ProcessHost
) -> None:
    stage(repo)
    wf_run = engine(host=ToolHost(process=host), hold_gates=True).start(load(ONE_GATE), {})
    result = await wf_run.run()
    [gate] = of_type(wf_run.events, "human_gate:resumed")
    assert (gate["decision"], gate["decidedBy"]) == ("approved", "timeout")  # the run went on, per the spec
    assert result.status == "failed"
    error = refusal(wf_run)
    assert (error["code"], error["reason"]) == ("tool_denied", "gate_required")
    assert "'ask'" in error["message"] and "approved by its timeout, not by a person" in error["message"]
    assert commits(repo) == ["initial"]


async def test_a_person_answering_after_the_timeout_ran_out_is_still_a_timeout(
    repo: Path, host: ProcessHost
) -> None:
    stage(repo)
    th = ToolHost(process=host)
    journal = MemoryJournal()
    now = [1000.0]
    paused = await engine(host=th, journal=journal, clock=lambda: now[0]).start(load(ONE_GATE), {}).run()
    assert paused.status == "paused"
    now[0] += 60  # the gate's 100 ms ran out while the run sat paused
    result, wf_run = await _resume(th, journal, paused, GateDecision("approved", "cli"), clock=lambda: now[0])
    assert of_type(wf_run.events, "human_gate:resumed")[0]["decidedBy"] == "timeout"
    assert result.status == "failed" and refusal(wf_run)["reason"] == "gate_required"
    assert commits(repo) == ["initial"]


async def test_a_decider_that_is_not_a_person_does_not_count(repo: Path, host: ProcessHost) -> None:
    stage(repo)
    th = ToolHost(process=host)
    journal = MemoryJournal()
    text = ONE_GATE.replace(" timeout_ms: 100, timeout_action: approve", "")
    paused = await engine(host=th, journal=journal).start(load(text), {}).run()
    result, wf_run = await _resume(th, journal, paused, GateDecision("approved", "scheduler"))
    assert result.status == "failed" and refusal(wf_run)["reason"] == "gate_required"
    assert commits(repo) == ["initial"]


async def test_a_person_approving_one_branch_does_not_cover_a_timeout_on_the_other(
    repo: Path, host: ProcessHost
) -> None:
    stage(repo)
    th = ToolHost(process=host)
    journal = MemoryJournal()
    # The timed gate approves itself while the run holds; then the run pauses at the person's gate.
    first = engine(host=th, journal=journal, hold_gates=True).start(load(TWO_GATES), {})
    paused = await first.run()
    assert paused.status == "paused" and [g["nodeId"] for g in paused.pending_gates] == ["person"]
    result, wf_run = await _resume(th, journal, paused, GateDecision("approved", "cli"))
    assert result.status == "failed"
    error = refusal(wf_run)
    assert (error["code"], error["reason"]) == ("tool_denied", "gate_required")
    assert "'auto'" in error["message"] and "timeout" in error["message"]
    assert commits(repo) == ["initial"]


async def test_the_person_approved_gate_that_dominates_the_commit_lets_it_commit(
    repo: Path, host: ProcessHost
) -> None:
    # The timed gate sits on a sibling branch; the commit is reachable only through the person's gate.
    text = (
        TWO_GATES.replace("{from: person, to: join}", "{from: person, to: commit}")
        .replace("{from: join, to: commit}", "{from: commit, to: join}")
        .replace("{from: commit, to: out}", "{from: join, to: out}")
    )
    stage(repo)
    th = ToolHost(process=host)
    journal = MemoryJournal()
    paused = await engine(host=th, journal=journal, hold_gates=True).start(load(text), {}).run()
    assert paused.status == "paused"
    result, _ = await _resume(th, journal, paused, GateDecision("approved", "cli"))
    assert result.status == "completed", result.error
    assert commits(repo) == ["gated commit", "initial"]


# cond picks one of two gated branches; both lead to the commit.
BRANCHES = (
    HEAD
    + f"""  inputs: [{{name: pick, type: string}}]
  nodes:
    - {{id: s, type: input}}
    - id: cond
      type: condition
      expression: inputs.pick
      branches: [{{when: a, target_node: gate_a}}, {{when: b, target_node: gate_b}}]
    - {{id: gate_a, type: human_gate, gate_type: approval}}
    - {{id: gate_b, type: human_gate, gate_type: approval, timeout_ms: 100, timeout_action: approve}}
    - {COMMIT}
  edges: [{{from: s, to: cond}}, {{from: gate_a, to: commit}}, {{from: gate_b, to: commit}}]
"""
)


async def test_only_the_branch_the_run_took_must_be_approved_by_a_person(
    repo: Path, host: ProcessHost
) -> None:
    stage(repo)
    th = ToolHost(process=host)
    journal = MemoryJournal()
    paused = await engine(host=th, journal=journal).start(load(BRANCHES), {"pick": "a"}).run()
    assert [g["nodeId"] for g in paused.pending_gates] == ["gate_a"]
    result, _ = await _resume(th, journal, paused, GateDecision("approved", "desktop"))
    assert result.status == "completed", result.error
    assert commits(repo) == ["gated commit", "initial"]
    # The other branch's gate approves itself by timeout: that path has no person's approval.
    stage_again = repo / "b.txt"
    stage_again.write_text("b2\n")
    git(repo, "add", "b.txt")
    wf_run = engine(host=th, journal=journal, hold_gates=True).start(load(BRANCHES), {"pick": "b"})
    result = await wf_run.run()
    assert result.status == "failed" and refusal(wf_run)["reason"] == "gate_required"
    assert "'gate_b'" in refusal(wf_run)["message"]
    assert commits(repo) == ["gated commit", "initial"]
