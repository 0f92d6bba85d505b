"""The one run-state reducer: event by event (a table), and over real engine runs that pause and resume."""

from __future__ import annotations

from typing import Any

import pytest

from relavium_desktop.engine.events import (
    BudgetPaused,
    CostUpdated,
    ErrorInfo,
    EventBus,
    HumanGatePaused,
    HumanGateResumed,
    NodeCompleted,
    NodeFailed,
    NodeRetrying,
    NodeSkipped,
    NodeStarted,
    RunCancelled,
    RunCompleted,
    RunEvent,
    RunFailed,
    RunPaused,
    RunStarted,
    TokensUsed,
)
from relavium_desktop.engine.workflow.journal import MemoryJournal
from relavium_desktop.engine.workflow.run import GateDecision
from relavium_desktop.engine.workflow.run_state import RunState, fold, reduce, short_text
from tests.engine.workflow.test_run import GATE_WF
from tests.engine.workflow.wfhelpers import engine, load


def wire(*events: RunEvent, run_id: str = "r1") -> list[dict[str, Any]]:
    """The events as the bus stamps them (runId, timestamp, sequenceNumber), exactly as views receive them."""
    clock = iter(range(1_800_000_000, 1_800_001_000))
    bus = EventBus(clock=lambda: float(next(clock)), run_id=run_id)
    return [bus.emit(e) for e in events]


NO_TOKENS = TokensUsed(input=0, output=0)
ERR = ErrorInfo(code="tool_error", reason=None, message="exit status 2")
STARTED = RunStarted(workflow_id="wf", workflow_name="Ship it")
A_STARTS = NodeStarted(node_id="a", node_type="agent", attempt_number=1)
GATE_STARTS = NodeStarted(node_id="ask", node_type="human_gate", attempt_number=1)
GATE_OPENS = HumanGatePaused(
    node_id="ask",
    gate_id="ask-1",
    gate_type="approval",
    message="Ship?",
    expires_at="2027-01-15T08:00:00.000Z",
)


# (name, events, what to check: run status, {node: status}, pending gate ids)
CASES: list[tuple[str, list[RunEvent], str, dict[str, str], list[str]]] = [
    ("nothing yet", [], "pending", {}, []),
    ("started", [STARTED], "running", {}, []),
    ("a node runs", [STARTED, A_STARTS], "running", {"a": "running"}, []),
    (
        "a node completes",
        [
            STARTED,
            A_STARTS,
            NodeCompleted(
                node_id="a", node_type="agent", output={"x": 1}, tokens_used=NO_TOKENS, duration_ms=12
            ),
        ],
        "running",
        {"a": "completed"},
        [],
    ),
    (
        "a node fails",
        [STARTED, A_STARTS, NodeFailed(node_id="a", node_type="agent", error=ERR)],
        "running",
        {"a": "failed"},
        [],
    ),
    (
        "a node stopped because the run failed reads cancelled",
        [
            STARTED,
            A_STARTS,
            NodeFailed(
                node_id="a",
                node_type="agent",
                error=ErrorInfo(code="cancelled", reason=None, message="run failed"),
            ),
        ],
        "running",
        {"a": "cancelled"},
        [],
    ),
    (
        "a node is skipped",
        [STARTED, NodeSkipped(node_id="b", node_type="agent", reason="branch_not_taken")],
        "running",
        {"b": "skipped"},
        [],
    ),
    (
        "a gate opens: the node waits",
        [STARTED, GATE_STARTS, GATE_OPENS],
        "running",
        {"ask": "waiting"},
        ["ask-1"],
    ),
    (
        "the run pauses at the gate",
        [STARTED, GATE_STARTS, GATE_OPENS, RunPaused(pending_gate_count=1, gate_ids=["ask-1"])],
        "paused",
        {"ask": "waiting"},
        ["ask-1"],
    ),
    (
        "the gate is approved: it completes and the run goes on",
        [
            STARTED,
            GATE_STARTS,
            GATE_OPENS,
            RunPaused(pending_gate_count=1, gate_ids=["ask-1"]),
            HumanGateResumed(node_id="ask", gate_id="ask-1", decision="approved", decided_by="desktop"),
        ],
        "running",
        {"ask": "completed"},
        [],
    ),
    (
        "the gate is rejected: its node fails",
        [
            STARTED,
            GATE_STARTS,
            GATE_OPENS,
            RunPaused(pending_gate_count=1, gate_ids=["ask-1"]),
            HumanGateResumed(node_id="ask", gate_id="ask-1", decision="rejected", decided_by="cli"),
            NodeFailed(node_id="ask", node_type="human_gate", error=ERR),
        ],
        "running",
        {"ask": "failed"},
        [],
    ),
    (
        "a budget pause is a gate too",
        [
            STARTED,
            A_STARTS,
            BudgetPaused(node_id="a", spent_microcents=10, limit_microcents=20, gate_id="budget-a-1"),
            RunPaused(pending_gate_count=1, gate_ids=["budget-a-1"]),
        ],
        "paused",
        {"a": "waiting"},
        ["budget-a-1"],
    ),
    (
        "an approved budget gate runs its node again",
        [
            STARTED,
            A_STARTS,
            BudgetPaused(node_id="a", spent_microcents=10, limit_microcents=20, gate_id="budget-a-1"),
            HumanGateResumed(node_id="a", gate_id="budget-a-1", decision="approved", decided_by="desktop"),
        ],
        "running",
        {"a": "pending"},
        [],
    ),
    ("completed", [STARTED, RunCompleted(outputs={"out": 1})], "completed", {}, []),
    (
        "failed: a running node stops",
        [STARTED, A_STARTS, RunFailed(error=ERR)],
        "failed",
        {"a": "cancelled"},
        [],
    ),
    (
        "cancelled while paused: the waiting gate is cancelled and no gate is pending",
        [
            STARTED,
            GATE_STARTS,
            GATE_OPENS,
            RunPaused(pending_gate_count=1, gate_ids=["ask-1"]),
            RunCancelled(),
        ],
        "cancelled",
        {"ask": "cancelled"},
        [],
    ),
    (
        "retrying keeps the node running",
        [STARTED, A_STARTS, NodeRetrying(node_id="a", attempt_number=2, delay_ms=5, error=ERR)],
        "running",
        {"a": "running"},
        [],
    ),
]


@pytest.mark.parametrize(
    ("events", "status", "nodes", "gates"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_each_event_moves_the_state(
    events: list[RunEvent], status: str, nodes: dict[str, str], gates: list[str]
) -> None:
    state = fold(wire(*events))
    assert state.status == status
    assert {n.node_id: n.status for n in state.nodes} == nodes
    assert [g.gate_id for g in state.gates] == gates


def test_the_fields_a_view_shows() -> None:
    state = fold(
        wire(
            STARTED,
            A_STARTS,
            NodeRetrying(node_id="a", attempt_number=2, delay_ms=5, error=ERR),
            NodeStarted(node_id="a", node_type="agent", attempt_number=2),
            CostUpdated(
                node_id="a",
                model="m",
                input_tokens=10,
                output_tokens=3,
                cost_microcents=40,
                cumulative_cost_microcents=40,
            ),
            NodeCompleted(
                node_id="a", node_type="agent", output="x" * 500, tokens_used=NO_TOKENS, duration_ms=7
            ),
            GATE_STARTS,
            GATE_OPENS,
            RunPaused(pending_gate_count=1, gate_ids=["ask-1"]),
        )
    )
    assert (state.run_id, state.workflow_name, state.workflow_id) == ("r1", "Ship it", "wf")
    a = state.node("a")
    assert a is not None and a.retries == 1 and not a.retrying and a.duration_ms == 7
    assert a.node_type == "agent" and len(a.summary) <= 160 and a.summary.endswith("…")
    assert a.started_at is not None and a.ended_at is not None and a.started_at < a.ended_at
    assert (state.usage.input_tokens, state.usage.output_tokens, state.usage.cost_microcents) == (10, 3, 40)
    gate = state.gate("ask-1")
    assert gate is not None and (gate.node_id, gate.gate_type, gate.message, gate.expires_at, gate.kind) == (
        "ask",
        "approval",
        "Ship?",
        "2027-01-15T08:00:00.000Z",
        "human",
    )
    assert state.gate_for("ask") == gate and state.paused and not state.finished
    assert state.last_sequence == 8


def test_a_failed_runs_error_and_partial_outputs() -> None:
    state = fold(
        wire(
            STARTED,
            RunFailed(
                error=ERR.model_copy(update={"node_id": "a"}),
                partial_outputs={"b": 2},
                total_tokens_used=TokensUsed(input=5, output=6),
                total_cost_microcents=9,
            ),
        )
    )
    assert state.error is not None and (state.error.code, state.error.node_id) == ("tool_error", "a")
    assert state.error.text() == "tool_error: exit status 2"
    assert state.outputs == {"b": 2} and (state.usage.input_tokens, state.usage.cost_microcents) == (5, 9)


def test_unknown_malformed_and_foreign_events_change_nothing() -> None:
    state = fold(wire(STARTED, A_STARTS))
    assert reduce(state, {"type": "agent:token", "runId": "r1", "nodeId": "a", "token": "hi"}) == state
    assert reduce(state, {"type": "something:new", "runId": "r1"}) == state
    assert reduce(state, {"runId": "r1"}) == state
    assert reduce(state, {"type": "node:completed", "runId": "r1"}) == state  # no node id
    assert reduce(state, {"type": "run:completed", "runId": "another"}) == state


def test_initial_seeds_pending_nodes_in_the_workflows_order() -> None:
    state = RunState.initial("r9", "Ship it", node_ids=["s", ("ask", "human_gate"), "out"])
    assert [(n.node_id, n.node_type, n.status) for n in state.nodes] == [
        ("s", "", "pending"),
        ("ask", "human_gate", "pending"),
        ("out", "", "pending"),
    ]
    assert state.status == "pending" and state.run_id == "r9"


def test_a_store_status_no_event_carries_reconciles() -> None:
    paused = fold(wire(STARTED, GATE_STARTS, GATE_OPENS))
    died = paused.with_recorded_status("interrupted", {"code": "process_ended", "message": "the app quit"})
    assert died.status == "interrupted" and died.gates == () and died.node("ask").status == "cancelled"  # type: ignore[union-attr]
    assert died.error is not None and died.error.code == "process_ended"
    assert paused.with_recorded_status("paused").status == "paused"
    really_paused = fold(
        wire(STARTED, GATE_STARTS, GATE_OPENS, RunPaused(pending_gate_count=1, gate_ids=["ask-1"]))
    )
    assert really_paused.with_recorded_status("running").status == "running"  # resumed by another process
    assert paused.with_recorded_status("nonsense") == paused


def test_short_text() -> None:
    assert short_text(None) == "" and short_text({"a": [1, 2]}) == '{"a": [1, 2]}'
    assert short_text("line one\n  line two") == "line one line two"


async def test_a_real_run_that_pauses_at_a_gate_and_is_resumed() -> None:
    """The engine's own stream, through a journal and a "new process", folds to what a person saw."""
    journal = MemoryJournal()
    paused_run = engine(journal=journal).start(load(GATE_WF), {"who": "ana"})
    result = await paused_run.run()
    state = fold(paused_run.events)
    assert state.status == "paused" and state.run_id == result.run_id
    assert [g.node_id for g in state.gates] == ["ask"] and state.gates[0].message == "Ship it for ana?"
    statuses = {n.node_id: n.status for n in state.nodes}
    assert statuses["ask"] == "waiting" and statuses["side"] == "completed" and "ship" not in statuses

    resumed = engine(journal=journal).resume(result.run_id, GateDecision("approved", "ana"))
    await resumed.run()
    after = fold(resumed.events, state)
    assert after.status == "completed" and after.gates == ()
    ask = after.node("ask")
    assert ask is not None and ask.status == "completed" and ask.decision == "approved by ana"
    assert after.outputs == {"out": {"shipped": "approved"}}
    # The journal's whole history folds to the same state as the two live streams did.
    assert fold(journal.events[result.run_id]) == after


async def test_a_real_rejected_gate_fails_the_run() -> None:
    journal = MemoryJournal()
    result = await engine(journal=journal).start(load(GATE_WF), {"who": "ana"}).run()
    resumed = engine(journal=journal).resume(result.run_id, GateDecision("rejected", "cli"))
    await resumed.run()
    state = fold(journal.events[result.run_id])
    assert state.status == "failed" and state.gates == ()
    assert {n.node_id: n.status for n in state.nodes if n.node_id in ("ask", "ship")} == {
        "ask": "failed",
        "ship": "skipped",
    }
    assert state.error is not None and state.error.node_id == "ask"
