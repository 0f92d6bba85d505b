"""One reducer from a workflow run's events to the state every view shows.

The Workflows view, Runs / History, the tray and the gate notifications each
used to read the event stream themselves, with their own status strings, and
they disagreed (a paused run read "pending" after a refresh in one view and
"paused" in the list beside it).  Here the run's wire events (``to_wire()``
dicts, see :mod:`relavium_desktop.engine.events`) fold into one frozen
:class:`RunState`; every surface renders that, so the same events read the
same everywhere, whether they arrive live from the runner or are read back
from ``history.db``.

Pure: no clock, no I/O -- times are the events' own ``timestamp`` strings.
Unknown event types (chat turns, streamed tokens, future additions) leave
the state unchanged, so an older reader never breaks on a newer stream.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from relavium_desktop.engine.workflow.budget_words import budget_words

RunStatus = Literal["pending", "running", "paused", "completed", "failed", "cancelled", "interrupted"]
NodeStatus = Literal["pending", "running", "waiting", "completed", "failed", "skipped", "cancelled"]
GateType = Literal["approval", "input", "review"]
GateKind = Literal["human", "budget"]

RUN_STATUSES: tuple[RunStatus, ...] = get_args(RunStatus)
NODE_STATUSES: tuple[NodeStatus, ...] = get_args(NodeStatus)
FINISHED_RUN: frozenset[RunStatus] = frozenset({"completed", "failed", "cancelled", "interrupted"})
FINISHED_NODE: frozenset[NodeStatus] = frozenset({"completed", "failed", "skipped", "cancelled"})

SUMMARY_CHARS = 160  # a node's one-line output/error: enough to recognise, short enough for a row


@dataclass(frozen=True, slots=True)
class RunError:
    """A run's or node's error as the views show it: its code and a masked message (events are masked)."""

    code: str
    message: str
    node_id: str | None = None

    def text(self) -> str:
        return f"{self.code}: {self.message}" if self.code else self.message


@dataclass(frozen=True, slots=True)
class NodeState:
    """One node of the run.  ``summary`` is a short output (completed), error (failed) or reason (skipped)."""

    node_id: str
    node_type: str = ""
    status: NodeStatus = "pending"
    summary: str = ""
    error: RunError | None = None
    started_at: str | None = None
    ended_at: str | None = None
    duration_ms: int | None = None
    retries: int = 0
    retrying: bool = False  # between a node:retrying and the attempt it announces
    decision: str = ""  # a gate node's answer, e.g. "approved by desktop"

    @property
    def finished(self) -> bool:
        return self.status in FINISHED_NODE


@dataclass(frozen=True, slots=True)
class PendingGate:
    """A gate the run waits on: answered by approve/reject (or input) through the runner's resume."""

    gate_id: str
    node_id: str
    gate_type: GateType = "approval"
    message: str = ""
    expires_at: str | None = None
    assignee: str | None = None
    kind: GateKind = "human"


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens and cost so far: summed from ``cost:updated``, then the terminal event's totals win."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_microcents: int = 0
    priced: bool = True  # False once a request of an unpriced model was counted


@dataclass(frozen=True, slots=True)
class RunState:
    """Everything a view shows about one workflow run; replaced, never mutated, by :func:`reduce`."""

    run_id: str
    workflow_name: str = ""
    workflow_id: str = ""
    status: RunStatus = "pending"
    nodes: tuple[NodeState, ...] = ()
    gates: tuple[PendingGate, ...] = ()
    outputs: Any = None
    error: RunError | None = None
    usage: Usage = field(default_factory=Usage)
    started_at: str | None = None
    ended_at: str | None = None
    duration_ms: int | None = None
    last_sequence: int = -1

    @classmethod
    def initial(
        cls,
        run_id: str = "",
        workflow_name: str = "",
        *,
        workflow_id: str = "",
        node_ids: Iterable[str | tuple[str, str]] = (),
        status: RunStatus = "pending",
    ) -> RunState:
        """A run before its first event; ``node_ids`` (ids or ``(id, type)`` pairs) seeds the nodes as pending."""
        nodes = tuple(NodeState(n) if isinstance(n, str) else NodeState(n[0], n[1]) for n in node_ids)
        return cls(
            run_id=run_id, workflow_name=workflow_name, workflow_id=workflow_id, status=status, nodes=nodes
        )

    def node(self, node_id: str) -> NodeState | None:
        return next((n for n in self.nodes if n.node_id == node_id), None)

    def gate(self, gate_id: str) -> PendingGate | None:
        return next((g for g in self.gates if g.gate_id == gate_id), None)

    def gate_for(self, node_id: str) -> PendingGate | None:
        return next((g for g in self.gates if g.node_id == node_id), None)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED_RUN

    @property
    def paused(self) -> bool:
        return self.status == "paused"

    def with_recorded_status(self, status: str, error: Mapping[str, Any] | None = None) -> RunState:
        """Reconcile with the run list's status for what no event says.

        A run whose process died is ``interrupted`` only in the store (no
        event is emitted by a dead process); its running/waiting nodes stop
        there.  A paused run the store already records ``running`` is being
        resumed elsewhere.  A recorded status the events already agree with,
        or one this module does not know, changes nothing.
        """
        if status not in RUN_STATUSES or status == self.status:
            return self
        if status == "interrupted":
            nodes = tuple(
                replace(n, status="cancelled", retrying=False) if n.status in ("running", "waiting") else n
                for n in self.nodes
            )
            return replace(
                self,
                status="interrupted",
                nodes=nodes,
                gates=(),
                error=_error(error) if error else self.error,
            )
        if status == "paused" and self.status in ("pending", "running") and self.gates:
            return replace(self, status="paused")
        if status == "running" and self.status == "paused":
            # Being resumed by a process whose events reach the store at its next checkpoint.
            return replace(self, status="running")
        return self


def reduce(state: RunState, event: Mapping[str, Any]) -> RunState:
    """The state after one wire event; an unknown or malformed event returns ``state`` unchanged.

    An event of another run (its ``runId`` differs from a set ``run_id``) is
    ignored too, so one stream fanned out to several runs cannot cross them.
    """
    kind = event.get("type")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        return state
    run_id = event.get("runId")
    if isinstance(run_id, str) and run_id:
        if state.run_id and run_id != state.run_id:
            return state
        if not state.run_id:
            state = replace(state, run_id=run_id)
    seq = event.get("sequenceNumber")
    if isinstance(seq, int) and not isinstance(seq, bool):
        state = replace(state, last_sequence=max(state.last_sequence, seq))
    return handler(state, event)


def fold(events: Iterable[Mapping[str, Any]], state: RunState | None = None) -> RunState:
    """Reduce a run's events in order, from ``state`` (a blank run when None)."""
    current = state if state is not None else RunState.initial()
    for event in events:
        current = reduce(current, event)
    return current


# -- helpers ----------------------------------------------------------------------


def _str(event: Mapping[str, Any], key: str) -> str:
    value = event.get(key)
    return value if isinstance(value, str) else ""


def _opt_str(event: Mapping[str, Any], key: str) -> str | None:
    value = event.get(key)
    return value if isinstance(value, str) else None


def _int(event: Mapping[str, Any], key: str) -> int | None:
    value = event.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _error(value: Any) -> RunError | None:
    if not isinstance(value, Mapping):
        return None
    code, message, node = value.get("code"), value.get("message"), value.get("nodeId")
    return RunError(
        code if isinstance(code, str) else "",
        message if isinstance(message, str) else "",
        node if isinstance(node, str) else None,
    )


def short_text(value: Any, limit: int = SUMMARY_CHARS) -> str:
    """One line of at most ``limit`` characters for an output of any JSON shape."""
    if value is None:
        return ""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _with_node(state: RunState, node_id: str, node_type: str = "", **changes: Any) -> RunState:
    nodes = list(state.nodes)
    for i, node in enumerate(nodes):
        if node.node_id == node_id:
            if node_type and not node.node_type:
                changes.setdefault("node_type", node_type)
            nodes[i] = replace(node, **changes)
            return replace(state, nodes=tuple(nodes))
    return replace(state, nodes=(*nodes, replace(NodeState(node_id, node_type), **changes)))


def _without_gate(state: RunState, gate_id: str, node_id: str) -> RunState:
    kept = tuple(
        g for g in state.gates if g.gate_id != gate_id and not (not gate_id and g.node_id == node_id)
    )
    return replace(state, gates=kept)


def _add_gate(state: RunState, gate: PendingGate) -> RunState:
    kept = tuple(g for g in state.gates if g.gate_id != gate.gate_id and g.node_id != gate.node_id)
    return replace(state, gates=(*kept, gate))


def _totals(state: RunState, event: Mapping[str, Any]) -> Usage:
    usage = state.usage
    tokens = event.get("totalTokensUsed")
    if isinstance(tokens, Mapping):
        tin, tout = tokens.get("input"), tokens.get("output")
        usage = replace(
            usage,
            input_tokens=tin if isinstance(tin, int) else usage.input_tokens,
            output_tokens=tout if isinstance(tout, int) else usage.output_tokens,
        )
    cost = _int(event, "totalCostMicrocents")
    if cost is not None:
        usage = replace(usage, cost_microcents=cost)
    return usage


def _stop_open_nodes(state: RunState, to: NodeStatus, at: str | None) -> tuple[NodeState, ...]:
    return tuple(
        replace(n, status=to, retrying=False, ended_at=n.ended_at or at)
        if n.status in ("running", "waiting")
        else n
        for n in state.nodes
    )


# -- run events ---------------------------------------------------------------------


def _run_started(state: RunState, event: Mapping[str, Any]) -> RunState:
    return replace(
        state,
        status="running",
        workflow_name=_str(event, "workflowName") or state.workflow_name,
        workflow_id=_str(event, "workflowId") or state.workflow_id,
        started_at=state.started_at or _opt_str(event, "timestamp"),
    )


def _run_paused(state: RunState, event: Mapping[str, Any]) -> RunState:
    return replace(state, status="paused")


def _run_completed(state: RunState, event: Mapping[str, Any]) -> RunState:
    return replace(
        state,
        status="completed",
        outputs=event.get("outputs", state.outputs),
        gates=(),
        usage=_totals(state, event),
        ended_at=_opt_str(event, "timestamp"),
        duration_ms=_int(event, "durationMs"),
        error=None,
    )


def _run_failed(state: RunState, event: Mapping[str, Any]) -> RunState:
    at = _opt_str(event, "timestamp")
    return replace(
        state,
        status="failed",
        error=_error(event.get("error")),
        gates=(),
        outputs=event.get("partialOutputs", state.outputs),
        usage=_totals(state, event),
        nodes=_stop_open_nodes(state, "cancelled", at),
        ended_at=at,
        duration_ms=_int(event, "durationMs"),
    )


def _run_cancelled(state: RunState, event: Mapping[str, Any]) -> RunState:
    at = _opt_str(event, "timestamp")
    return replace(
        state,
        status="cancelled",
        gates=(),
        usage=_totals(state, event),
        error=_error(event.get("error")),
        nodes=_stop_open_nodes(state, "cancelled", at),
        ended_at=at,
        duration_ms=_int(event, "durationMs"),
    )


# -- node events --------------------------------------------------------------------


def _node_id(event: Mapping[str, Any]) -> str:
    return _str(event, "nodeId")


def _node_started(state: RunState, event: Mapping[str, Any]) -> RunState:
    node_id = _node_id(event)
    if not node_id:
        return state
    node = state.node(node_id)
    attempt = _int(event, "attemptNumber") or 1
    retries = max(attempt - 1, node.retries if node else 0)
    started = node.started_at if node is not None and node.started_at and attempt > 1 else None
    return _with_node(
        state,
        node_id,
        _str(event, "nodeType"),
        status="running",
        retrying=False,
        retries=retries,
        started_at=started or _opt_str(event, "timestamp"),
        ended_at=None,
        error=None,
        summary="",
    )


def _node_completed(state: RunState, event: Mapping[str, Any]) -> RunState:
    node_id = _node_id(event)
    if not node_id:
        return state
    return _with_node(
        state,
        node_id,
        _str(event, "nodeType"),
        status="completed",
        retrying=False,
        summary=short_text(event.get("output")),
        ended_at=_opt_str(event, "timestamp"),
        duration_ms=_int(event, "durationMs"),
        error=None,
    )


def _node_failed(state: RunState, event: Mapping[str, Any]) -> RunState:
    node_id = _node_id(event)
    if not node_id:
        return state
    error = _error(event.get("error"))
    # The engine fails a node still running when its run fails with code "cancelled": it was stopped, not wrong.
    status: NodeStatus = "cancelled" if error is not None and error.code == "cancelled" else "failed"
    state = _without_gate(state, "", node_id)
    return _with_node(
        state,
        node_id,
        _str(event, "nodeType"),
        status=status,
        retrying=False,
        error=error,
        summary=short_text(error.text() if error else ""),
        ended_at=_opt_str(event, "timestamp"),
    )


def _node_skipped(state: RunState, event: Mapping[str, Any]) -> RunState:
    node_id = _node_id(event)
    if not node_id:
        return state
    reason = _str(event, "reason")
    state = _without_gate(state, "", node_id)
    return _with_node(
        state,
        node_id,
        _str(event, "nodeType"),
        status="skipped",
        retrying=False,
        summary=reason,
        ended_at=_opt_str(event, "timestamp"),
    )


def _node_retrying(state: RunState, event: Mapping[str, Any]) -> RunState:
    node_id = _node_id(event)
    if not node_id:
        return state
    error = _error(event.get("error"))
    attempt = _int(event, "attemptNumber") or 2
    return _with_node(
        state,
        node_id,
        _str(event, "nodeType"),
        status="running",
        retrying=True,
        retries=attempt - 1,
        error=error,
        summary=short_text(error.text() if error else ""),
    )


# -- gates ----------------------------------------------------------------------


def _gate_type(event: Mapping[str, Any]) -> GateType:
    value = event.get("gateType")
    return value if value in ("approval", "input", "review") else "approval"


def _gate_paused(state: RunState, event: Mapping[str, Any]) -> RunState:
    node_id, gate_id = _node_id(event), _str(event, "gateId")
    if not node_id or not gate_id:
        return state
    gate = PendingGate(
        gate_id,
        node_id,
        _gate_type(event),
        _str(event, "message"),
        _opt_str(event, "expiresAt"),
        _opt_str(event, "assignee"),
        "human",
    )
    state = _add_gate(state, gate)
    node = state.node(node_id)
    started = (node.started_at if node else None) or _opt_str(event, "timestamp")
    return _with_node(state, node_id, "human_gate", status="waiting", started_at=started, decision="")


def _budget_paused(state: RunState, event: Mapping[str, Any]) -> RunState:
    node_id, gate_id = _node_id(event), _str(event, "gateId")
    if not node_id or not gate_id:
        return state
    message = "budget: " + (budget_words(event) or "the run is paused for approval")
    state = _add_gate(state, PendingGate(gate_id, node_id, "approval", message, None, None, "budget"))
    return _with_node(state, node_id, status="waiting", retrying=False, summary=short_text(message))


def _gate_resumed(state: RunState, event: Mapping[str, Any]) -> RunState:
    node_id, gate_id = _node_id(event), _str(event, "gateId")
    if not node_id:
        return state
    gate = state.gate(gate_id) or state.gate_for(node_id)
    decision = _str(event, "decision") or "answered"
    by = _str(event, "decidedBy")
    words = f"{decision} by {by}" if by else decision
    state = _without_gate(state, gate_id, node_id)
    if state.status in ("paused", "pending"):
        state = replace(state, status="running")
    if decision == "rejected":
        return _with_node(state, node_id, decision=words)  # its node:failed follows
    if gate is not None and gate.kind == "budget":
        # Approved: the cap is lifted and the node runs again from its start (its node:started follows).
        return _with_node(state, node_id, status="pending", decision=words)
    # A gate's human_gate:resumed is its completion: no node:completed follows for it.
    return _with_node(
        state,
        node_id,
        "human_gate",
        status="completed",
        decision=words,
        summary=words,
        ended_at=_opt_str(event, "timestamp"),
    )


# -- cost ---------------------------------------------------------------------------


def _cost_updated(state: RunState, event: Mapping[str, Any]) -> RunState:
    usage = state.usage
    cost, cumulative = _int(event, "costMicrocents"), _int(event, "cumulativeCostMicrocents")
    if cumulative is not None:
        total = cumulative
    elif cost is not None:
        total = usage.cost_microcents + cost
    else:
        total = usage.cost_microcents
    usage = replace(
        usage,
        input_tokens=usage.input_tokens + (_int(event, "inputTokens") or 0),
        output_tokens=usage.output_tokens + (_int(event, "outputTokens") or 0),
        cost_microcents=total,
        priced=usage.priced and event.get("costMicrocents") is not None,
    )
    return replace(state, usage=usage)


_Handler = Callable[[RunState, Mapping[str, Any]], RunState]

_HANDLERS: dict[str, _Handler] = {
    "run:started": _run_started,
    "run:paused": _run_paused,
    "run:completed": _run_completed,
    "run:failed": _run_failed,
    "run:cancelled": _run_cancelled,
    "node:started": _node_started,
    "node:completed": _node_completed,
    "node:failed": _node_failed,
    "node:skipped": _node_skipped,
    "node:retrying": _node_retrying,
    "human_gate:paused": _gate_paused,
    "human_gate:resumed": _gate_resumed,
    "budget:paused": _budget_paused,
    "cost:updated": _cost_updated,
}
