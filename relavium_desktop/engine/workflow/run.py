"""The run engine: schedule a plan, emit events, checkpoint, pause and resume.

``WorkflowEngine.start(...)`` / ``.resume(...)`` return a :class:`WorkflowRun`
whose ``await run.run()`` drives the run to a terminal state or to a pause at
human gates; ``run.cancel()`` stops it.  A surface (CLI, Qt view) passes an
``on_event`` callback and gets every stamped event as it happens.

Scheduling: a node is ready when every in-edge is settled; it runs if at
least one in-edge is live (a completed source, a taken branch), and is
skipped — ``branch_not_taken`` or ``upstream_unreachable`` — when all are
dead.  Ready nodes start in plan order up to ``max_parallel``.  Node
lifecycle events (started/completed/failed/skipped) are emitted by this one
scheduler loop, in plan order within a batch, so the stream is deterministic
for a given set of completions.  The run state is plain JSON, checkpointed
at every node boundary, so a paused run resumes in a new process.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from relavium_desktop.engine.events import (
    BudgetPaused,
    CostUpdated,
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
    RunTimeout,
    TokensUsed,
    iso_timestamp,
)
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.llm.retry import retry_after_floor_ms
from relavium_desktop.engine.spawns import SPAWN_OBSERVER
from relavium_desktop.engine.tools.masking import clip, mask_value
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import ApprovalRegime, FsScopeTier, ToolPolicy
from relavium_desktop.engine.workflow.agents import AgentNodeResult, AgentNodeRunner
from relavium_desktop.engine.workflow.budget import EXCEEDED_REASON, PAUSE_REASON, BudgetGovernor
from relavium_desktop.engine.workflow.errors import InputError, NodeError, TemplateError
from relavium_desktop.engine.workflow.gates import decided_by_person, gate_refusal
from relavium_desktop.engine.workflow.handlers import NodeEnv, NodeResult, file_reader, run_node
from relavium_desktop.engine.workflow.inputs import admit_inputs, masked_inputs
from relavium_desktop.engine.workflow.journal import MemoryJournal, RunInfo, RunJournal
from relavium_desktop.engine.workflow.loader import LoadedWorkflow, load_workflow
from relavium_desktop.engine.workflow.models import (
    AgentDef,
    AgentNode,
    HumanGateNode,
    OutputNode,
    Retry,
    ToolNode,
)
from relavium_desktop.engine.workflow.plan import PlanEdge
from relavium_desktop.engine.workflow.sandbox import ExpressionSandbox, QuickJsSandbox
from relavium_desktop.engine.workflow.templates import Scope, render, render_text

EventCallback = Callable[[JsonDict], None]
RunStatus = Literal["completed", "failed", "cancelled", "paused"]

STATE_VERSION = 1
EVENT_OUTPUT_MAX_CHARS = 64 * 1024


@dataclass(frozen=True, slots=True)
class GateDecision:
    """A gate's answer; ``decided_by="timeout"`` asks for the gate's own ``timeout_action`` once it is due.

    Only an approval whose ``decided_by`` names a person (see
    ``gates.HUMAN_DECIDERS``) vouches for a gate-requiring tool downstream.
    """

    decision: Literal["approved", "rejected", "input_provided"]
    decided_by: str = "user"
    payload: Any = None
    comment: str | None = None


@dataclass(slots=True)
class RunResult:
    run_id: str
    status: RunStatus
    outputs: JsonDict = field(default_factory=dict)
    error: JsonDict | None = None
    pending_gates: list[JsonDict] = field(default_factory=list)


def _bounded(value: Any) -> Any:
    """A node output as an event may carry it: masked, and previewed when huge."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= EVENT_OUTPUT_MAX_CHARS:
        return mask_value(value)
    return {"truncated": True, "chars": len(text), "preview": clip(str(mask_value(text)), 2000)}


def _totals(summary: JsonDict) -> dict[str, Any]:
    """A run summary as the terminal event's typed fields."""
    return {
        "total_tokens_used": TokensUsed.model_validate(summary["totalTokensUsed"]),
        "total_cost_microcents": summary["totalCostMicrocents"],
        "duration_ms": summary["durationMs"],
    }


@dataclass(frozen=True, slots=True)
class _RetryPlan:
    """A node's retry budget, from its own ``retry`` or its agent's."""

    max_attempts: int
    backoff: str
    backoff_ms: int
    retry_on: tuple[str, ...] | None

    def delay_ms(self, attempt: int) -> int:
        if self.backoff == "fixed":
            return self.backoff_ms
        if self.backoff == "linear":
            return self.backoff_ms * attempt
        return int(self.backoff_ms * (2 ** (attempt - 1)))


def _retry_plan(node: Any, agents: Mapping[str, AgentDef]) -> _RetryPlan | None:
    """A node's ``retry``, else its agent's; ``max`` counts attempts, the first included, in both (agent spec)."""
    retry: Retry | None = getattr(node, "retry", None)
    if retry is not None:
        return _RetryPlan(retry.max, retry.backoff, retry.backoff_ms,
                          tuple(retry.retry_on) if retry.retry_on is not None else None)
    if isinstance(node, AgentNode):
        agent = agents.get(node.agent_ref)
        if agent is not None and agent.retry is not None:
            r = agent.retry
            return _RetryPlan(r.max, r.backoff, r.backoff_ms, tuple(r.retry_on))
    return None


class WorkflowEngine:
    """Runs loaded workflows against one registry; a surface keeps one per host."""

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        sandbox: ExpressionSandbox | None = None,
        agent_runner: AgentNodeRunner | None = None,
        journal: RunJournal | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        fs_scope: FsScopeTier = "project",
        approval: ApprovalRegime | None = None,
        hold_gates: bool = False,
    ) -> None:
        self.registry = registry
        self.sandbox = sandbox or QuickJsSandbox()
        self.agent_runner = agent_runner
        self.journal: RunJournal = journal if journal is not None else MemoryJournal()
        self.clock = clock
        self.sleep = sleep
        self.fs_scope = fs_scope
        # Governed tool actions of every node ask this regime (None: author trust, as headless).
        self.approval = approval
        # Keep the run live (instead of pausing) while a pending gate has a timeout_ms,
        # so its timeout_action applies on time: for a surface that nobody answers from.
        self.hold_gates = hold_gates

    def start(
        self,
        workflow: LoadedWorkflow,
        inputs: Mapping[str, Any],
        *,
        on_event: EventCallback | None = None,
        run_id: str | None = None,
        surface: JsonDict | None = None,
    ) -> WorkflowRun:
        """Admit inputs (raises InputError) and prepare a run; ``await run.run()`` drives it."""
        body = workflow.file.workflow
        admitted = admit_inputs(body.inputs, inputs)
        rid = run_id or f"run-{uuid.uuid4().hex[:16]}"
        state: JsonDict = {
            "version": STATE_VERSION,
            "runId": rid,
            "workflowText": workflow.text,
            "filename": workflow.filename,
            "refTexts": dict(workflow.ref_texts),
            "inputs": admitted,
            "ctx": None,
            "status": {n: "pending" for n in workflow.plan.scheduled()},
            "outputs": {},
            "selected": {},
            "deadEdges": [],
            "gates": {},
            # Gates a person approved, and gates approved by timeout (never a person's decision).
            "personApprovedGates": [],
            "timeoutApprovedGates": [],
            "nextSeq": 0,
            "activeMs": 0.0,
            "tokens": {"input": 0, "output": 0},
            "costMicrocents": 0,
            "surface": surface or {},
        }
        return WorkflowRun(self, workflow, state, on_event=on_event, fresh=True)

    def resume(
        self,
        run_id: str,
        decision: GateDecision,
        *,
        gate_id: str | None = None,
        on_event: EventCallback | None = None,
    ) -> WorkflowRun:
        """Load a paused run's checkpoint and answer one of its gates."""
        state = self.journal.load_checkpoint(run_id)
        if state is None:
            raise InputError(f"no paused run with id {run_id!r}")
        workflow = self._checkpointed_workflow(run_id, state)
        gates: dict[str, JsonDict] = state["gates"]
        if not gates:
            raise InputError(f"run {run_id!r} has no pending human gate")
        if gate_id is None:
            if len(gates) > 1:
                raise InputError(f"run {run_id!r} has {len(gates)} pending gates; name one with --gate "
                                 f"({', '.join(g['gateId'] for g in gates.values())})")
            node_id = next(iter(gates))
        else:
            matches = [n for n, g in gates.items() if gate_id in (g["gateId"], n)]
            if not matches:
                raise InputError(f"run {run_id!r} has no pending gate {gate_id!r}")
            node_id = matches[0]
        if decision.decided_by == "timeout":
            expires = gates[node_id].get("expiresAtEpoch")
            if expires is None or self.clock() < expires:
                raise InputError(f"gate {gates[node_id]['gateId']!r} of run {run_id!r} has not timed out")
        run = WorkflowRun(self, workflow, state, on_event=on_event, fresh=False)
        run.pending_decision = (node_id, decision)
        return run

    def resume_interrupted(self, run_id: str, *, on_event: EventCallback | None = None) -> WorkflowRun:
        """Continue a run whose process died, from its last node-boundary checkpoint.

        What completed before the checkpoint is kept; nodes that were in
        flight when the process died start again from the beginning, so their
        side effects may happen twice (the CLI says so).  Gates that were open
        stay open and pause the run again.
        """
        # Never two attempts of one step side by side: an earlier attempt's process
        # that survived its run (the watcher could not end it) must end first.
        alive = self.journal.live_children(run_id)
        if alive:
            step, pid = alive[0]
            raise InputError(f"step {step!r} of run {run_id!r} still has a process running from an earlier "
                             f"attempt (pid {pid}); wait for it to end or stop it, then resume")
        state = self.journal.claim_interrupted(run_id)
        if state is None:
            raise InputError(f"run {run_id!r} is not an interrupted run that can continue from a checkpoint")
        workflow = self._checkpointed_workflow(run_id, state)
        statuses: dict[str, str] = state["status"]
        for node_id, status in statuses.items():
            if status == "running":
                statuses[node_id] = "pending"
        return WorkflowRun(self, workflow, state, on_event=on_event, fresh=False)

    @staticmethod
    def _checkpointed_workflow(run_id: str, state: JsonDict) -> LoadedWorkflow:
        """The workflow a checkpoint was taken of, re-loaded from the text it carries."""
        if state.get("version") != STATE_VERSION:
            raise InputError(f"run {run_id!r} was checkpointed by an incompatible version")
        texts: dict[str, str] = state.get("refTexts", {})
        return load_workflow(state["workflowText"], state["filename"], read_ref=texts.__getitem__ if texts else None)


class WorkflowRun:
    def __init__(
        self,
        engine: WorkflowEngine,
        workflow: LoadedWorkflow,
        state: JsonDict,
        *,
        on_event: EventCallback | None,
        fresh: bool,
    ) -> None:
        self.engine = engine
        self.workflow = workflow
        self.plan = workflow.plan
        self.state = state
        self.run_id: str = state["runId"]
        self.fresh = fresh
        self.pending_decision: tuple[str, GateDecision] | None = None
        self.bus = EventBus(clock=engine.clock, run_id=self.run_id, start_sequence=state["nextSeq"])
        self.bus.subscribe(engine.journal.record)
        if on_event is not None:
            self.bus.subscribe(on_event)
        self._cancel = asyncio.Event()
        self._tasks: dict[asyncio.Future[Any], str] = {}
        self._started_at: dict[str, float] = {}
        self._failure: tuple[str, NodeError] | None = None
        body = workflow.file.workflow
        self.policy = ToolPolicy.from_json(body.tools.model_dump(exclude_none=True) if body.tools else None)
        self._masked = masked_inputs(body.inputs, state["inputs"])
        self._order = self.plan.scheduled()
        self._budget = BudgetGovernor(body.budget, state, self.emit) if body.budget is not None else None

    @property
    def events(self) -> list[JsonDict]:
        return self.bus.history

    def cancel(self) -> None:
        """Stop the run: in-flight nodes are cancelled and the run ends with run:cancelled."""
        self._cancel.set()

    # -- state helpers --------------------------------------------------------

    def emit(self, event: RunEvent) -> JsonDict:
        stamped = self.bus.emit(event)
        self.state["nextSeq"] = stamped["sequenceNumber"] + 1
        return stamped

    def _status(self, node: str) -> str:
        return str(self.state["status"].get(node, "pending"))

    def _edge_live(self, edge: PlanEdge) -> bool | None:
        """True live, False dead, None not settled yet."""
        src = self._status(edge.source)
        if edge.source in self.plan.delegates:
            return False
        if src in ("skipped", "failed"):
            return False
        if src != "completed":
            return None
        if [edge.source, edge.target] in self.state["deadEdges"]:
            return False
        if edge.keys is None:
            return True
        return self.state["selected"].get(edge.source) in edge.keys

    def _scope(self) -> Scope:
        body = self.workflow.file.workflow
        outputs = {n: self.state["outputs"][n] for n in self.plan.order if n in self.state["outputs"]}
        return Scope(
            run_id=self.run_id,
            inputs=dict(self.state["inputs"]),
            declared_inputs=frozenset(i.name for i in body.inputs),
            ctx=dict(self.state["ctx"] or {}),
            outputs=outputs,
            node_ids=frozenset(self.plan.nodes),
        )

    def _gate_refusal(self, node_id: str) -> str | None:
        """None when a person approved a gate on every path that reached ``node_id`` in this run."""
        return gate_refusal(
            self.plan.in_edges, node_id,
            person_approved=set(self.state.get("personApprovedGates", [])),
            timeout_approved=set(self.state.get("timeoutApprovedGates", [])),
            live=lambda e: self._edge_live(e) is not False,
        )

    def _on_usage(self, node_id: str, usage: AgentNodeResult, attempt: int) -> None:
        self.state["tokens"]["input"] += usage.input_tokens
        self.state["tokens"]["output"] += usage.output_tokens
        self.state["costMicrocents"] += usage.cost_microcents
        self.emit(CostUpdated(node_id=node_id, model=usage.model or "unknown",
                              input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                              cost_microcents=usage.cost_microcents,
                              cumulative_cost_microcents=self.state["costMicrocents"], attempt_number=attempt))

    def _env(self) -> NodeEnv:
        return NodeEnv(
            run_id=self.run_id, plan=self.plan, agents=self.workflow.agents, registry=self.engine.registry,
            sandbox=self.engine.sandbox, policy=self.policy, fs_scope=self.engine.fs_scope, emit=self.emit,
            masked_inputs=self._masked, agent_runner=self.engine.agent_runner, on_usage=self._on_usage,
            gate_refusal=self._gate_refusal, approval=self.engine.approval, template_scope=self._scope,
            budget=self._budget.for_node if self._budget is not None else None,
        )

    def _checkpoint(self, status: str) -> None:
        self.engine.journal.checkpoint(self.run_id, self.state, status)

    # -- the run ---------------------------------------------------------------

    async def run(self) -> RunResult:
        segment_start = self.engine.clock()
        try:
            if self.fresh:
                await self._begin()
            elif self.pending_decision is not None:
                self._apply_decision()  # a gate's answer; an interrupted run just continues
            result = await self._drive(segment_start)
        except asyncio.CancelledError:
            self._cancel_tasks()
            self._finish_cancelled(segment_start)
            await self._reclaim_spills()
            raise
        if result.status != "paused":
            await self._reclaim_spills()
        return result

    async def _reclaim_spills(self) -> None:
        """Spill files live until the run's terminal event: completed, failed or cancelled.

        A run paused at a human gate keeps them (it resumes later).  Shielded:
        a cancelled run's task is being torn down, and a second cancel must
        not leave the folder behind.
        """
        store = self.engine.registry.host.output_store
        if store is not None:
            await asyncio.shield(store.reclaim(self.run_id))

    async def _begin(self) -> None:
        body = self.workflow.file.workflow
        scope = self._scope()
        scope.allow_outputs = False
        ctx: JsonDict = {}
        env = self._env()
        env.emit = lambda _e: None  # nothing is emitted before run:started
        reader = file_reader(env, "context")
        for entry in body.context:
            scope.ctx = dict(ctx)
            try:
                ctx[entry.key] = await render(entry.value, scope, reader) if isinstance(entry.value, str) \
                    else entry.value
            except NodeError as exc:
                raise InputError(f"context {entry.key!r}: {exc.message}") from None
        self.state["ctx"] = ctx
        self.engine.journal.run_started(RunInfo(self.run_id, body.id, body.name, self.workflow.filename,
                                                self.engine.clock()))
        self.emit(RunStarted(workflow_id=body.id, workflow_name=body.name, inputs=self._masked,
                             execution_mode="local"))
        self._checkpoint("running")

    def _apply_decision(self) -> None:
        assert self.pending_decision is not None
        node_id, decision = self.pending_decision
        expires = self.state["gates"][node_id].get("expiresAtEpoch")
        if expires is not None and self.engine.clock() >= expires:
            decision = self._timeout_decision(node_id)
        self._decide(node_id, decision)

    def _decide_budget(self, node_id: str, decision: GateDecision, gate: JsonDict) -> None:
        """Approved: the cap is lifted for this run and the node runs again from its start; rejected: it fails."""
        if decision.decision == "rejected":
            error = NodeError("budget_exceeded", f"going past the budget was rejected: {gate.get('message', '')}",
                              reason=EXCEEDED_REASON)
            self.state["status"][node_id] = "failed"
            self.emit(NodeFailed(node_id=node_id, node_type=self.plan.nodes[node_id].type, error=error.info()))
            self._failure = (node_id, error)
            return
        self.state["budgetApproved"] = True
        self.state["status"][node_id] = "pending"

    def _timeout_decision(self, node_id: str) -> GateDecision:
        node = self.plan.nodes[node_id]
        assert isinstance(node, HumanGateNode)
        return GateDecision("approved" if node.timeout_action == "approve" else "rejected", "timeout")

    def _next_gate_expiry(self) -> float | None:
        times = [g["expiresAtEpoch"] for g in self.state["gates"].values() if g.get("expiresAtEpoch") is not None]
        return min(times) if times else None

    def _expire_due_gates(self) -> bool:
        """Apply ``timeout_action`` to every gate whose ``timeout_ms`` ran out while the run was live."""
        now = self.engine.clock()
        due = [n for n, g in self.state["gates"].items()
               if g.get("expiresAtEpoch") is not None and now >= g["expiresAtEpoch"]]
        for node_id in sorted(due, key=self.plan.index.__getitem__):
            self._decide(node_id, self._timeout_decision(node_id))
        if due:
            self._checkpoint("running")
        return bool(due)

    def _decide(self, node_id: str, decision: GateDecision) -> None:
        gate = self.state["gates"].pop(node_id)
        node = self.plan.nodes[node_id]
        self.emit(HumanGateResumed(node_id=node_id, gate_id=gate["gateId"], decision=decision.decision,
                                   decided_by=decision.decided_by, payload=decision.payload,
                                   comment=decision.comment or None))
        if gate.get("kind") == "budget":
            self._decide_budget(node_id, decision, gate)
            return
        assert isinstance(node, HumanGateNode)
        if decision.decision == "rejected":
            error = NodeError("tool_denied", f"human gate {node_id!r} was rejected", reason="user_rejected")
            self.state["status"][node_id] = "failed"
            self.emit(NodeFailed(node_id=node_id, node_type=node.type, error=error.info()))
            self._failure = (node_id, error)
            return
        output: JsonDict = {"decision": decision.decision, "decidedBy": decision.decided_by}
        if decision.payload is not None:
            output["payload"] = decision.payload
        approvals = "personApprovedGates" if decided_by_person(decision.decided_by) else "timeoutApprovedGates"
        self.state.setdefault(approvals, []).append(node_id)
        # As upstream's event stream has it, the gate's human_gate:resumed is its completion:
        # no node:completed follows for the gate itself (its output is the decision above).
        self._complete(node_id, NodeResult(output), gate.get("openedAtEpoch"), announce=False)

    def _complete(self, node_id: str, result: NodeResult, started: float | None, *, announce: bool = True) -> None:
        self.state["status"][node_id] = "completed"
        self.state["outputs"][node_id] = result.output
        if result.selected is not None:
            self.state["selected"][node_id] = result.selected
        now = self.engine.clock()
        tokens = TokensUsed(input=result.input_tokens, output=result.output_tokens, model=result.model or None)
        if not announce:
            return
        self.emit(NodeCompleted(node_id=node_id, node_type=self.plan.nodes[node_id].type,
                                output=_bounded(result.output), tokens_used=tokens,
                                duration_ms=round((now - (started or now)) * 1000), attempt_number=result.attempt))

    def _deciding(self, node_id: str) -> list[PlanEdge]:
        """The in-edges that decide whether a node runs: its routes, never a mere template read.

        A template reading an earlier node's output orders the two nodes, but a
        node reachable only through a branch not taken stays off whatever its
        templates read.  A node whose only in-edges are template reads runs
        when a producer it reads ran.
        """
        edges = self.plan.in_edges[node_id]
        control = [e for e in edges if not e.data]
        return control or edges

    def _ready(self) -> list[tuple[str, bool]]:
        """(node, runs?) for every pending node whose in-edges are all settled, in plan order."""
        out = []
        status = self.state["status"]
        for n in self._order:
            if status.get(n, "pending") != "pending":
                continue
            settled = True
            # Walk from the newest-settling end so a wide join stops at its first open edge.
            for e in reversed(self.plan.in_edges[n]):
                if self._edge_live(e) is None:
                    settled = False
                    break
            if settled:
                runs = any(self._edge_live(e) for e in self._deciding(n))
                out.append((n, runs or not self.plan.in_edges[n]))
        return out

    def _settle_skips(self) -> None:
        changed = True
        while changed:
            changed = False
            for n, runs in self._ready():
                if runs:
                    continue
                reason: Literal["branch_not_taken", "upstream_unreachable"] = "upstream_unreachable"
                for e in self._deciding(n):
                    if self._status(e.source) == "completed":
                        reason = "branch_not_taken"
                self.state["status"][n] = "skipped"
                self.emit(NodeSkipped(node_id=n, node_type=self.plan.nodes[n].type, reason=reason))
                changed = True

    def _open_gate(self, node_id: str, scope: Scope) -> Awaitable[None]:
        async def open_() -> None:
            node = self.plan.nodes[node_id]
            assert isinstance(node, HumanGateNode)
            now = self.engine.clock()
            self.state["status"][node_id] = "waiting"
            self.emit(NodeStarted(node_id=node_id, node_type=node.type, attempt_number=1))
            try:
                message = await render_text(node.message_template, scope) if node.message_template \
                    else f"Approve to continue past {node_id}."
                assignee = await render_text(node.assignee, scope) if node.assignee else None
            except Exception as exc:  # noqa: BLE001 - a gate's text that cannot render fails its node, never the run loop
                self._fail_opening(node_id, exc)
                return
            gate: JsonDict = {"gateId": f"{node_id}-{uuid.uuid4().hex[:8]}", "gateType": node.gate_type,
                              "message": message, "openedAtEpoch": now}
            if node.timeout_ms:
                gate["expiresAtEpoch"] = now + node.timeout_ms / 1000
                gate["expiresAt"] = iso_timestamp(gate["expiresAtEpoch"])
                gate["timeoutMs"] = node.timeout_ms
            self.state["gates"][node_id] = gate
            self.emit(HumanGatePaused(node_id=node_id, gate_id=gate["gateId"], gate_type=node.gate_type,
                                      message=message, assignee=assignee, timeout_ms=gate.get("timeoutMs"),
                                      expires_at=gate.get("expiresAt")))

        return open_()

    def _fail_opening(self, node_id: str, exc: Exception) -> None:
        """A gate whose message cannot be rendered fails as a node: node:failed, then run:failed."""
        if isinstance(exc, NodeError):
            error = exc
        else:
            error = NodeError("internal", f"node {node_id!r} failed unexpectedly ({type(exc).__name__})")
        self.state["status"][node_id] = "failed"
        self.emit(NodeFailed(node_id=node_id, node_type=self.plan.nodes[node_id].type, error=error.info(),
                             attempt_number=1))
        if self._failure is None:
            self._failure = (node_id, error)

    async def _attempts(self, node_id: str, scope: Scope, env: NodeEnv) -> NodeResult:
        node = self.plan.nodes[node_id]
        retry = _retry_plan(node, self.workflow.agents)
        max_attempts = retry.max_attempts if retry else 1
        timeout_ms = getattr(node, "timeout_ms", None) if isinstance(node, AgentNode | ToolNode) else None
        attempt = 1
        while True:
            try:
                try:
                    async with asyncio.timeout(timeout_ms / 1000 if timeout_ms else None):
                        result = await run_node(node, scope, env, attempt)
                except TimeoutError:
                    raise NodeError("run_timeout", f"node {node_id!r} exceeded its timeout_ms ({timeout_ms} ms)",
                                    retryable=True) from None
                await self._edge_conditions(node_id, scope, result)
                result.attempt = attempt
                return result
            except NodeError as exc:
                allowed = retry is None or retry.retry_on is None or exc.code in retry.retry_on
                if not (exc.retryable and allowed and attempt < max_attempts):
                    exc.attempt = attempt
                    raise
                assert retry is not None
                # The workflow's retry wins, but never sooner than the provider's Retry-After.
                delay = max(retry.delay_ms(attempt), retry_after_floor_ms(exc.retry_after))
                attempt += 1
                self.emit(NodeRetrying(node_id=node_id, node_type=node.type, attempt_number=attempt,
                                       delay_ms=delay, error=exc.info()))
                await self.engine.sleep(delay / 1000)

    async def _edge_conditions(self, node_id: str, scope: Scope, result: NodeResult) -> None:
        for edge in self.plan.out_edges[node_id]:
            if edge.condition is None:
                continue
            outputs = dict(scope.outputs)
            outputs[node_id] = result.output
            expr_scope = Scope(scope.run_id, dict(self._masked), scope.declared_inputs, scope.ctx, outputs,
                               scope.node_ids).expression_scope()
            value = await self.engine.sandbox.evaluate("edge", edge.condition, expr_scope)
            if not value:
                self.state["deadEdges"].append([edge.source, edge.target])

    def _start(self, node_id: str, scope: Scope, env: NodeEnv) -> None:
        self.state["status"][node_id] = "running"
        self._started_at[node_id] = self.engine.clock()
        self.emit(NodeStarted(node_id=node_id, node_type=self.plan.nodes[node_id].type, attempt_number=1))
        context = contextvars.copy_context()
        context.run(SPAWN_OBSERVER.set, functools.partial(self.engine.journal.child_started, self.run_id, node_id))
        task = asyncio.create_task(self._attempts(node_id, scope, env), name=f"node:{node_id}", context=context)
        self._tasks[task] = node_id

    async def _drive(self, segment_start: float) -> RunResult:
        body = self.workflow.file.workflow
        env = self._env()
        timeout_s = body.timeout_ms / 1000 if body.timeout_ms else None
        cancel_wait = asyncio.create_task(self._cancel.wait())
        try:
            while True:
                self._settle_skips()
                if self._failure is not None or self._cancel.is_set():
                    break
                for n, runs in self._ready():
                    if not runs:
                        continue
                    if isinstance(self.plan.nodes[n], HumanGateNode):
                        await self._open_gate(n, self._scope())
                        continue
                    if len(self._tasks) >= self.plan.max_parallel:
                        break
                    self._start(n, self._scope(), env)
                if self._expire_due_gates():
                    continue  # a timed-out gate may unblock (or fail) its branch
                gate_due = self._next_gate_expiry()
                holding = self.engine.hold_gates and gate_due is not None
                if not self._tasks and not holding:
                    break
                remaining = None
                if timeout_s is not None:
                    elapsed = self.state["activeMs"] / 1000 + (self.engine.clock() - segment_start)
                    remaining = max(0.0, timeout_s - elapsed)
                # A live run wakes for its earliest gate timeout as well as for its nodes.
                gate_wait = max(0.0, gate_due - self.engine.clock()) if gate_due is not None else None
                wait_for = min((t for t in (remaining, gate_wait) if t is not None), default=None)
                done, _ = await asyncio.wait([*self._tasks, cancel_wait], timeout=wait_for,
                                             return_when=asyncio.FIRST_COMPLETED)
                if not done:
                    if gate_wait is not None and (remaining is None or gate_wait < remaining):
                        continue
                    return await self._timeout(segment_start, timeout_s or 0)
                finished = sorted((t for t in done if t in self._tasks), key=lambda t: self.plan.index[self._tasks[t]])
                for task in finished:
                    self._settle_task(task)
                self._checkpoint("running")
            if self._cancel.is_set():
                self._cancel_tasks()
                await self._drain_cancelled()
                return self._finish_cancelled(segment_start)
            if self._failure is not None:
                return await self._finish_failed(segment_start)
            if self.state["gates"]:
                return self._pause(segment_start)
            return self._finish_completed(segment_start)
        finally:
            cancel_wait.cancel()

    def _settle_task(self, task: asyncio.Future[Any]) -> None:
        node_id = self._tasks.pop(task)
        node = self.plan.nodes[node_id]
        exc = task.exception()
        if exc is None:
            self._complete(node_id, task.result(), self._started_at.get(node_id))
            return
        if isinstance(exc, NodeError) and exc.code == "budget_exceeded" and exc.reason == PAUSE_REASON:
            self._open_budget_gate(node_id, exc)
            return
        if isinstance(exc, TemplateError | NodeError):
            error = exc
        else:
            error = NodeError("internal", f"node {node_id!r} failed unexpectedly ({type(exc).__name__})")
        self.state["status"][node_id] = "failed"
        self.emit(NodeFailed(node_id=node_id, node_type=node.type, error=error.info(),
                             attempt_number=getattr(exc, "attempt", 1)))
        if self._failure is None:
            self._failure = (node_id, error)

    def _open_budget_gate(self, node_id: str, exc: NodeError) -> None:
        """The node's next request would pass the cap: it waits behind a gate answered like a human gate."""
        figures: JsonDict = self.state.pop("budgetPause", None) or {}
        gate: JsonDict = {"gateId": f"budget-{node_id}-{uuid.uuid4().hex[:8]}", "gateType": "approval",
                          "kind": "budget", "message": exc.message, "openedAtEpoch": self.engine.clock(), **figures}
        self.state["status"][node_id] = "waiting"
        self.state["gates"][node_id] = gate
        self.emit(BudgetPaused(node_id=node_id, spent_microcents=int(figures.get("spentMicrocents", 0)),
                               limit_microcents=int(figures.get("limitMicrocents", 0)), gate_id=gate["gateId"]))

    def _cancel_tasks(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def _drain_cancelled(self) -> None:
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _summary(self, segment_start: float) -> JsonDict:
        """The closing totals as the terminal events and the journal carry them (wire names)."""
        active = self.state["activeMs"] + (self.engine.clock() - segment_start) * 1000
        self.state["activeMs"] = active
        return {
            "totalTokensUsed": dict(self.state["tokens"]),
            "totalCostMicrocents": self.state["costMicrocents"],
            "durationMs": round(active),
        }

    def _final_outputs(self) -> JsonDict:
        outs = self.state["outputs"]
        terminal = [n for n in self.plan.order if isinstance(self.plan.nodes[n], OutputNode) and n in outs]
        if not terminal:
            terminal = [n for n in self.plan.scheduled() if n in outs and not self.plan.out_edges[n]]
        return {n: outs[n] for n in terminal}

    def _skip_rest(self) -> None:
        failed = self._failure[0] if self._failure else None
        downstream = self.plan.descendants(failed) if failed else set()
        for n in self.plan.scheduled():
            if self._status(n) in ("pending", "waiting"):
                self.state["status"][n] = "skipped"
                self.state["gates"].pop(n, None)
                self.emit(NodeSkipped(node_id=n, node_type=self.plan.nodes[n].type,
                                      reason="upstream_unreachable" if n in downstream else "run_failed"))

    async def _finish_failed(self, segment_start: float) -> RunResult:
        self._cancel_tasks()
        await self._drain_cancelled()
        for node_id in list(self._tasks.values()):
            self.state["status"][node_id] = "failed"
            self.emit(NodeFailed(node_id=node_id, node_type=self.plan.nodes[node_id].type,
                                 error=NodeError("cancelled", "cancelled because the run failed").info()))
        self._tasks.clear()
        self._skip_rest()
        assert self._failure is not None
        node_id, error = self._failure
        info = error.info().model_copy(update={"node_id": node_id or None})
        err = info.to_wire()
        summary = self._summary(segment_start)
        self.emit(RunFailed(error=info, partial_outputs=_bounded(self._final_outputs()), **_totals(summary)))
        return self._end("failed", RunResult(self.run_id, "failed", self._final_outputs(), err), summary)

    async def _timeout(self, segment_start: float, timeout_s: float) -> RunResult:
        elapsed = self.state["activeMs"] + (self.engine.clock() - segment_start) * 1000
        self.emit(RunTimeout(elapsed_ms=round(elapsed), timeout_ms=round(timeout_s * 1000)))
        first = next(iter(self._tasks.values()), None)
        self._failure = (first or "", NodeError("run_timeout",
                                                f"the run exceeded its timeout_ms ({round(timeout_s * 1000)} ms)"))
        return await self._finish_failed(segment_start)

    def _finish_cancelled(self, segment_start: float) -> RunResult:
        for node_id in list(self._tasks.values()):
            self.state["status"][node_id] = "failed"
        self._tasks.clear()
        summary = self._summary(segment_start)
        self.emit(RunCancelled(**_totals(summary)))
        return self._end("cancelled", RunResult(self.run_id, "cancelled", self._final_outputs()), summary)

    def _finish_completed(self, segment_start: float) -> RunResult:
        summary = self._summary(segment_start)
        outputs = self._final_outputs()
        self.emit(RunCompleted(outputs=_bounded(outputs), **_totals(summary)))
        return self._end("completed", RunResult(self.run_id, "completed", outputs), summary)

    def _pause(self, segment_start: float) -> RunResult:
        self._summary(segment_start)
        gates = [{"nodeId": n, **{k: v for k, v in g.items() if k != "openedAtEpoch"}}
                 for n, g in self.state["gates"].items()]
        self.emit(RunPaused(pending_gate_count=len(gates), gate_ids=[g["gateId"] for g in gates]))
        self._checkpoint("paused")
        return RunResult(self.run_id, "paused", self._final_outputs(), pending_gates=gates)

    def _end(self, status: str, result: RunResult, summary: JsonDict) -> RunResult:
        self.state["gates"] = {}
        self._checkpoint(status)
        self.engine.journal.finished(self.run_id, status, {**summary, "error": result.error})
        return result
