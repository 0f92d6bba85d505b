"""RunService: the one assembly of a workflow run, against real workflows and the real run store.

Each step that another process would take (the window after a restart,
``relavium gate approve``) is taken through a fresh Application over the
same data folder, so what one surface recorded is what the next one reads.
The interrupted run is a real ``relavium run`` process killed mid-node.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.application.app import Application
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.application.runs import (
    GateAlreadyAnswered,
    GateNotChosen,
    McpConsentNeeded,
    RunHandle,
    RunNotPaused,
    RunService,
    RunSurface,
    UnknownGate,
    UnknownRun,
)
from relavium_desktop.engine.workflow.loader import LoadedWorkflow, load_workflow
from relavium_desktop.engine.workflow.run import GateDecision, RunResult
from tests.cli.run_processes import SLOW, killed_at_its_sleep, read_until, start_run

GATED = """schema_version: '1.0'
workflow:
  id: gated
  name: Gated ship
  inputs: [{name: who, type: string}]
  nodes:
    - {id: s, type: input}
    - {id: ask, type: human_gate, message_template: 'Ship it for {{ inputs.who }}?'}
    - {id: done, type: transform, transform: '"shipped for " + inputs.who'}
    - {id: out, type: output}
  edges: [{from: s, to: ask}, {from: ask, to: done}, {from: done, to: out}]
"""

PLAIN = """schema_version: '1.0'
workflow:
  id: plain
  name: Gated ship
  inputs: [{name: who, type: string}]
  nodes:
    - {id: s, type: input}
    - {id: done, type: transform, transform: '"shipped for " + inputs.who'}
    - {id: out, type: output}
  edges: [{from: s, to: done}, {from: done, to: out}]
"""

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


@pytest.fixture
def app(relavium_home: Path) -> Any:
    application = Application(AppPaths(relavium_home))
    yield application
    application.close()


def another_process(home: Path) -> Application:
    """A second Application over the same data folder: what a restarted window or the CLI opens."""
    return Application(AppPaths(home))


def loaded(text: str) -> LoadedWorkflow:
    return load_workflow(text, "wf.relavium.yaml")


def drive(make: Any) -> tuple[RunHandle, RunResult]:
    """Start (or answer) inside a running loop, as both surfaces do, and wait for the run's end."""

    async def main() -> tuple[RunHandle, RunResult]:
        handle = make()
        return handle, await handle.result()

    return asyncio.run(main())


def paused_run(service: RunService, workspace: Path, who: str = "ana") -> tuple[RunHandle, RunResult]:
    handle, result = drive(lambda: service.start(loaded(GATED), {"who": who}, workspace))
    assert result.status == "paused"
    return handle, result


def test_start_runs_the_workflow_and_the_handle_shows_its_state_and_events(
    app: Application, tmp_path: Path
) -> None:
    service = RunService(app)
    seen: list[dict[str, Any]] = []
    everything: list[dict[str, Any]] = []
    service.subscribe(everything.append)
    handle, result = drive(
        lambda: service.start(loaded(PLAIN), {"who": "ana"}, tmp_path, on_event=seen.append)
    )

    assert result.status == "completed" and result.outputs == {"out": "shipped for ana"}
    assert [e["sequenceNumber"] for e in seen] == list(range(len(seen))) and seen == everything
    assert seen[0]["type"] == "run:started" and seen[-1]["type"] == "run:completed"
    state = handle.state
    assert (state.run_id, state.workflow_name, state.status) == (result.run_id, "Gated ship", "completed")
    assert [(n.node_id, n.status) for n in state.nodes] == [
        ("s", "completed"),
        ("done", "completed"),
        ("out", "completed"),
    ]
    assert state.outputs == {"out": "shipped for ana"}
    # The shared store holds it; the service never closed it.
    assert app.runs().get_run(result.run_id)["status"] == "completed"
    assert service.live(result.run_id) is None


def test_a_gate_pauses_the_run_and_an_answer_from_another_process_drives_it_on(
    app: Application, relavium_home: Path, tmp_path: Path
) -> None:
    first, paused = paused_run(RunService(app), tmp_path)
    assert first.state.status == "paused" and [g.node_id for g in first.state.gates] == ["ask"]
    gate_id = paused.pending_gates[0]["gateId"]

    later = another_process(relavium_home)
    try:
        service = RunService(later)
        assert service.pending_gates() == [
            {
                "runId": paused.run_id,
                "gateId": gate_id,
                "nodeId": "ask",
                "gateType": "approval",
                "message": "Ship it for ana?",
            }
        ]
        handle, result = drive(
            lambda: service.answer_gate(paused.run_id, GateDecision("approved", "desktop"), gate_id)
        )
        assert result.status == "completed" and result.outputs == {"out": "shipped for ana"}
        # The handle's state starts from the recorded events: the gate's answer is part of the one story.
        ask = handle.state.node("ask")
        assert ask is not None and ask.status == "completed" and "approved" in ask.decision
        assert handle.state.status == "completed" and handle.state.gates == ()
        assert service.pending_gates() == []
        events = later.runs().events(paused.run_id)
        assert [e["sequenceNumber"] for e in events] == list(range(len(events)))
    finally:
        later.close()


def test_a_gate_answered_once_is_refused_as_already_answered_everywhere(
    app: Application, relavium_home: Path, tmp_path: Path
) -> None:
    service = RunService(app)
    _, paused = paused_run(service, tmp_path)
    gate_id = paused.pending_gates[0]["gateId"]

    async def answer_twice() -> tuple[RunResult, BaseException]:
        # The view's button and the notification's, one right after the other in one window.
        handle = service.answer_gate(paused.run_id, GateDecision("approved", "desktop"), gate_id)
        with pytest.raises(GateAlreadyAnswered) as second:
            service.answer_gate(paused.run_id, GateDecision("rejected", "desktop"), gate_id)
        return await handle.result(), second.value

    result, refused = asyncio.run(answer_twice())
    assert result.status == "completed"
    assert "this gate was already answered" in str(refused)

    # Later, from another process (a stale notification button after a restart): who answered is said.
    later = another_process(relavium_home)
    try:
        with pytest.raises(GateAlreadyAnswered) as stale:
            RunService(later).answer_gate(paused.run_id, GateDecision("approved", "cli"), gate_id)
        assert (stale.value.decision, stale.value.decided_by) == ("approved", "desktop")
        assert str(stale.value) == "this gate was already answered (approved by desktop)"
        # Without a gate id, the run simply is not waiting any more.
        with pytest.raises(RunNotPaused) as not_paused:
            RunService(later).answer_gate(paused.run_id, GateDecision("approved", "cli"))
        assert not_paused.value.status == "completed"
        assert later.runs().get_run(paused.run_id)["status"] == "completed"
    finally:
        later.close()


def test_two_answers_racing_from_two_connections_drive_the_run_on_once(
    app: Application, relavium_home: Path, tmp_path: Path
) -> None:
    # Both answers read the run as paused before either claims it (the window and `relavium gate`
    # pressing at the same moment): the claim is one transaction, so only the first one runs it.
    service = RunService(app)
    _, paused = paused_run(service, tmp_path)
    state = app.runs().load_checkpoint(paused.run_id)
    assert state is not None
    later = another_process(relavium_home)
    try:
        assert later.runs().claim_paused(paused.run_id, state) is True
        assert app.runs().claim_paused(paused.run_id, state) is False
        assert app.runs().get_run(paused.run_id)["status"] == "running"
    finally:
        later.close()


def test_unknown_runs_and_gates_and_an_unnamed_gate_among_several_are_refused(
    app: Application, tmp_path: Path
) -> None:
    service = RunService(app)
    with pytest.raises(UnknownRun):
        service.answer_gate("run-nope", GateDecision("approved"))
    with pytest.raises(UnknownRun):
        service.pending_gates("run-nope")
    _, paused = drive(lambda: service.start(loaded(TWO_GATES), {}, tmp_path))
    assert paused.status == "paused"
    ids = sorted(g["gateId"] for g in paused.pending_gates)
    with pytest.raises(GateNotChosen) as unnamed:
        service.answer_gate(paused.run_id, GateDecision("approved"))
    assert sorted(unnamed.value.pending) == ids
    with pytest.raises(UnknownGate):
        service.answer_gate(paused.run_id, GateDecision("approved"), "legal-00000000")
    # Nothing was answered by the refusals: both gates still wait.
    assert sorted(g["gateId"] for g in service.pending_gates(paused.run_id)) == ids


def test_cancelling_a_paused_run_records_it_cancelled_and_closes_its_gate(
    app: Application, relavium_home: Path, tmp_path: Path
) -> None:
    service = RunService(app)
    _, paused = paused_run(service, tmp_path)
    gate_id = paused.pending_gates[0]["gateId"]
    spill = app.paths.runs / paused.run_id  # what a paused run keeps until its terminal event
    assert spill.is_dir()  # bound when the run started; kept while it waits
    (spill / "out.txt").write_text("kept while paused")
    everything: list[dict[str, Any]] = []
    service.subscribe(everything.append)

    assert service.cancel(paused.run_id) == "cancelled"

    later = another_process(relavium_home)
    try:
        store = later.runs()
        assert store.get_run(paused.run_id)["status"] == "cancelled"
        events = store.events(paused.run_id)
        assert events[-1]["type"] == "run:cancelled" and everything == [events[-1]]
        assert [e["sequenceNumber"] for e in events] == list(range(len(events)))
        assert RunService(later).pending_gates() == []
        with pytest.raises(RunNotPaused) as refused:
            RunService(later).answer_gate(paused.run_id, GateDecision("approved"), gate_id)
        assert refused.value.status == "cancelled"
    finally:
        later.close()
    assert not spill.exists()


@pytest.mark.spawns  # the run's `sleep 30`
def test_cancel_stops_a_run_this_process_drives(app: Application, tmp_path: Path) -> None:
    service = RunService(app)
    wf = loaded(SLOW)

    async def main() -> tuple[str, RunResult]:
        started = asyncio.Event()
        handle = service.start(
            wf,
            {},
            tmp_path,
            on_event=lambda e: (
                started.set() if e["type"] == "node:started" and e.get("nodeId") == "wait" else None
            ),
        )
        await asyncio.wait_for(started.wait(), 60)
        return service.cancel(handle.run_id), await handle.result()

    outcome, result = asyncio.run(main())
    assert outcome == "stopping" and result.status == "cancelled"
    assert app.runs().get_run(result.run_id)["status"] == "cancelled"


def test_headless_a_workflows_stdio_server_without_consent_is_refused_before_anything_starts(
    app: Application, tmp_path: Path
) -> None:
    marker = tmp_path / "started"
    text = GATED.replace(
        "  inputs:",
        f"""  mcp_servers:
    own:
      transport: stdio
      command: {sys.executable}
      args: [-c, "open({str(marker)!r}, 'w')"]
  inputs:""",
    )
    service = RunService(app, RunSurface(preapproved_mcp=[]))
    with pytest.raises(McpConsentNeeded) as refused:
        service.start(loaded(text), {"who": "ana"}, tmp_path)
    assert refused.value.servers == ["own"] and refused.value.code == "tool_denied"
    assert not marker.exists() and app.runs().list_runs() == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_an_interrupted_run_continues_from_its_checkpoint(
    app: Application, cli_env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "slow.relavium.yaml"
    wf.write_text(SLOW.replace("'sleep 30']", "'sleep 3']").replace("args: ['30']", "args: ['3']"))
    proc = start_run(wf, cli_env, tmp_path)
    with killed_at_its_sleep(proc):
        run_id = read_until(proc, "node:started", "wait")[0]["runId"]

    service = RunService(app)
    assert service.run_record(run_id)["status"] == "interrupted"
    seen: list[dict[str, Any]] = []
    handle, result = drive(lambda: service.resume_interrupted(run_id, on_event=seen.append))
    assert result.status == "completed"
    assert [e["nodeId"] for e in seen if e["type"] == "node:started"] == ["wait", "out"]
    # The state carries the nodes finished before the kill, from the recorded events.
    nap = handle.state.node("nap")
    assert nap is not None and nap.status == "completed" and handle.state.status == "completed"
    events = app.runs().events(run_id)
    assert [e["sequenceNumber"] for e in events] == list(range(len(events)))
