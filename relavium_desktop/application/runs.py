"""One assembly of a workflow run: start, continue, answer a gate, cancel -- for the window and the CLI.

``relavium run``, ``relavium gate`` and the window's Workflows and Runs /
History views used to assemble a run each (store, checkpoint, MCP servers,
consent, engine), and a gate answered in one place was checked differently
from the same gate answered in another.  :class:`RunService` is the one
assembly.  It owns the run store (the Application's, shared: never closed
per run), reading checkpoints (where a paused run worked, which MCP servers
it started, what an interrupted run continues from), the stdio-MCP consent
check, the provider-key preflight, the engine, and MCP discovery around the
run.  A surface hands it only what is its own (:class:`RunSurface`): how to
ask for approval, the OS capability, the MCP hooks, whether gates are held,
and where problems go.

Every start or resume returns a :class:`RunHandle`: the running task, the run
id, ``cancel()``, ``await handle.result()``, and the run's state as the one
reducer (:mod:`relavium_desktop.engine.workflow.run_state`) computes it from
the stamped events its subscribers also get.

A refusal is a typed :class:`RunRefusal` with a plain, secret-free message;
a surface may word it its own way (the CLI names its options, the window
does not), from the fields each error carries.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalHook, ApprovalRegime, FsScopeTier
from relavium_desktop.engine.workflow.errors import InputError
from relavium_desktop.engine.workflow.run_state import RunState, fold, reduce

if TYPE_CHECKING:
    from relavium_desktop.application.app import Application
    from relavium_desktop.engine.host import OsCapability
    from relavium_desktop.engine.workflow.loader import LoadedWorkflow
    from relavium_desktop.engine.workflow.run import GateDecision, RunResult, WorkflowEngine, WorkflowRun
    from relavium_desktop.host.mcp.hooks import McpClientHooks
    from relavium_desktop.store.runs import RunStore

log = logging.getLogger(__name__)

EventCallback = Callable[[JsonDict], None]

# What a workflow run in the window does without asking: the author's trust, bounded by the
# workflow's allowlists and the file policy, as headless runs have it.  OS actions (the
# clipboard) ask the window's confirm hook unless a grant covers them; protected paths always ask.
AUTHOR_TRUSTED = frozenset({ActionClass.FS_WRITE, ActionClass.PROCESS, ActionClass.EGRESS})


def desktop_regime(hook: ApprovalHook | None) -> ApprovalRegime:
    """The approval regime of a run a person watches: ``hook`` asks for what the author's trust does not cover."""
    return ApprovalRegime(hook=hook, auto_approve=AUTHOR_TRUSTED)


# -- refusals -------------------------------------------------------------------------


class RunRefusal(Exception):
    """A run that could not start, continue, be answered or be cancelled; ``code`` is the wire error code."""

    code = "validation"


class UnknownRun(RunRefusal):
    def __init__(self, run_id: str) -> None:
        super().__init__(f"no run with id {run_id!r}")
        self.run_id = run_id


class RunNotPaused(RunRefusal):
    """The run is not waiting at a gate: it runs, finished, was cancelled or interrupted."""

    def __init__(self, run_id: str, status: str) -> None:
        super().__init__(f"run {run_id!r} is {status}, not waiting at a human gate")
        self.run_id, self.status = run_id, status


class GateAlreadyAnswered(RunRefusal):
    """The gate was answered (here, in another view or in another process); ``decision`` when it is known."""

    def __init__(
        self, run_id: str, gate_id: str, decision: str | None = None, decided_by: str | None = None
    ) -> None:
        how = f" ({decision} by {decided_by})" if decision and decided_by else ""
        super().__init__(f"this gate was already answered{how}")
        self.run_id, self.gate_id, self.decision, self.decided_by = run_id, gate_id, decision, decided_by


class UnknownGate(RunRefusal):
    def __init__(self, run_id: str, gate_id: str, pending: list[str]) -> None:
        super().__init__(
            f"run {run_id!r} has no pending gate {gate_id!r} (pending: {', '.join(pending) or 'none'})"
        )
        self.run_id, self.gate_id, self.pending = run_id, gate_id, pending


class GateNotChosen(RunRefusal):
    """Several gates are open and the answer did not say which."""

    def __init__(self, run_id: str, pending: list[str]) -> None:
        super().__init__(f"run {run_id!r} has {len(pending)} pending gates; name one ({', '.join(pending)})")
        self.run_id, self.pending = run_id, pending


class RunNotContinuable(RunRefusal):
    """An interrupted run that cannot continue from a checkpoint (stopped on purpose), or a run not interrupted."""

    def __init__(self, run_id: str, status: str, source: str, why: str | None = None) -> None:
        if status != "interrupted":
            text = f"run {run_id!r} is {status}, not an interrupted run that can continue"
        else:
            text = (
                f"run {run_id!r} was interrupted{f': {why}' if why else ''}. It cannot continue: it was "
                "stopped rather than cut off between two nodes"
            )
        super().__init__(text)
        self.run_id, self.status, self.source, self.why = run_id, status, source, why


class RunNotCancellable(RunRefusal):
    """Neither running in this process nor paused: finished, or running in another process."""

    def __init__(self, run_id: str, status: str) -> None:
        where = " in another process" if status == "running" else ""
        super().__init__(
            f"run {run_id!r} is {status}{where}; only a run of this process or a paused run can be "
            "cancelled here"
        )
        self.run_id, self.status = run_id, status


class RunInputRefused(RunRefusal):
    """Inputs, context or a gate answer the engine refused (its own message)."""


class McpServersInvalid(RunRefusal):
    """The workflow's (or the paused run's) MCP servers block is not valid."""


class WorkspaceNotFound(RunRefusal):
    def __init__(self, workspace: Path | None) -> None:
        super().__init__(
            f"{workspace} is not a folder"
            if workspace is not None
            else "the run does not say which folder it works in; choose one"
        )
        self.workspace = workspace


class ProviderKeysMissing(RunRefusal):
    """An agent node's provider has no key: refused before anything runs (nothing spent)."""

    code = "provider_auth"

    def __init__(self, missing: list[str]) -> None:
        super().__init__("; ".join(missing))
        self.missing = missing


class McpConsentNeeded(RunRefusal):
    """A stdio server the workflow declares was neither approved for this run nor consented to in this project."""

    code = "tool_denied"

    def __init__(self, servers: list[str]) -> None:
        super().__init__(
            "; ".join(f"MCP server {s} (from the workflow) needs consent before it starts" for s in servers)
        )
        self.servers = servers


# -- what a surface hands the service -------------------------------------------------


def _no_mcp_hooks(_project: Path) -> McpClientHooks | None:
    return None


@dataclass(frozen=True, slots=True)
class RunSurface:
    """What differs per surface; each callable is asked when a run is assembled, so it sees the current value.

    ``preapproved_mcp`` not None means nobody is there to ask (headless):
    a workflow's stdio server that is neither named in it nor consented to
    before in the project is refused before anything starts.  None: the
    ``mcp_hooks``' consent asks when a server is about to start.
    """

    approval: Callable[[], ApprovalRegime | None] = lambda: None
    os_capability: Callable[[], OsCapability | None] = lambda: None
    mcp_hooks: Callable[[Path], McpClientHooks | None] = _no_mcp_hooks
    preapproved_mcp: Collection[str] | None = None
    hold_gates: bool = False
    providers_file: Path | None = None
    on_problem: Callable[[str], object] = lambda line: log.warning("workflow run: %s", line)


# -- the handle -----------------------------------------------------------------------


class RunHandle:
    """One run driven by this process: its task, id, state and events.

    ``state`` is the reducer's view after every event so far (a resumed run
    starts from its recorded events); subscribers get each stamped event
    after ``state`` has taken it in.
    """

    def __init__(self, state: RunState, on_event: EventCallback | None, broadcast: EventCallback) -> None:
        self.run_id = state.run_id
        self.state = state
        self.task: asyncio.Task[RunResult] | None = None
        self.run: WorkflowRun | None = None
        self._subscribers: list[EventCallback] = [on_event] if on_event is not None else []
        self._broadcast = broadcast

    def subscribe(self, callback: EventCallback) -> Callable[[], None]:
        """Call ``callback`` with every later event; returns the unsubscribe."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    def _dispatch(self, event: JsonDict) -> None:
        if not self.run_id:
            self.run_id = str(event.get("runId") or "")
        self.state = reduce(self.state, event)
        for callback in list(self._subscribers):
            callback(event)
        self._broadcast(event)

    @property
    def done(self) -> bool:
        return self.task is not None and self.task.done()

    def cancel(self) -> None:
        """Stop the run: nodes in flight are cancelled and it ends with ``run:cancelled``."""
        if self.run is not None:
            self.run.cancel()

    async def result(self) -> RunResult:
        """The run's end: completed, failed, cancelled, or paused at a gate."""
        assert self.task is not None, "the handle was never launched"
        return await self.task


# -- the service ----------------------------------------------------------------------


@dataclass(slots=True)
class _Place:
    workspace: Path
    tier: FsScopeTier
    mcp_block: dict[str, Any] = field(default_factory=dict)
    tool_ids: list[str] = field(default_factory=list)


class RunService:
    """Starts, continues, answers and cancels workflow runs against the Application's run store."""

    def __init__(self, app: Application, surface: RunSurface | None = None) -> None:
        self.app = app
        self.surface = surface if surface is not None else RunSurface()
        self._live: dict[str, RunHandle] = {}
        self._subscribers: list[EventCallback] = []

    @property
    def store(self) -> RunStore:
        return self.app.runs()

    def subscribe(self, callback: EventCallback) -> Callable[[], None]:
        """Every stamped event of every run this service drives or cancels; returns the unsubscribe."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    def _broadcast(self, event: JsonDict) -> None:
        for callback in list(self._subscribers):
            callback(event)

    def live(self, run_id: str) -> RunHandle | None:
        """The handle of ``run_id`` while this process drives it."""
        return self._live.get(run_id)

    def run_record(self, run_id: str) -> JsonDict | None:
        """The run's row in history (status, source, error), or None for an unknown id."""
        return self.store.get_run(run_id)

    # -- start --------------------------------------------------------------------------

    def start(
        self,
        workflow: LoadedWorkflow,
        inputs: Mapping[str, Any],
        workspace: Path,
        tier: FsScopeTier = "project",
        *,
        on_event: EventCallback | None = None,
    ) -> RunHandle:
        """Check and start a run of ``workflow`` (needs a running event loop); refusals raise RunRefusal."""
        from relavium_desktop.application import mcp
        from relavium_desktop.host.mcp.config import McpConfigError

        workspace = workspace.expanduser().resolve()
        if not workspace.is_dir():
            raise WorkspaceNotFound(workspace)
        try:
            # The workflow's own servers and those its agents' files declare, as one block.
            block = mcp.workflow_mcp_block(workflow)
        except McpConfigError as exc:
            raise McpServersInvalid(str(exc)) from None
        place = _Place(workspace, tier, block, mcp.workflow_tool_ids(workflow))
        self._check_keys(workflow)
        self._check_consent(place)
        engine = self._engine(place)
        body = workflow.file.workflow
        nodes = [(n, workflow.plan.nodes[n].type) for n in workflow.plan.scheduled()]
        handle = RunHandle(RunState.initial(), on_event, self._broadcast)
        surface = {"workspace": str(workspace), "tier": tier, **mcp.mcp_surface(block, place.tool_ids)}
        try:
            wf_run = engine.start(workflow, inputs, on_event=handle._dispatch, surface=surface)
        except InputError as exc:
            raise RunInputRefused(str(exc)) from None
        handle.run_id = wf_run.run_id
        handle.state = RunState.initial(
            wf_run.run_id, body.name or body.id, workflow_id=body.id, node_ids=nodes
        )
        return self._launch(handle, engine, wf_run, place)

    # -- answering a gate -------------------------------------------------------------------

    def answer_gate(
        self,
        run_id: str,
        decision: GateDecision,
        gate_id: str | None = None,
        *,
        workspace: Path | None = None,
        tier: FsScopeTier | None = None,
        on_event: EventCallback | None = None,
    ) -> RunHandle:
        """Answer one of a paused run's gates and drive the run on, in this process.

        The one path every surface answers through.  Refused, with nothing
        changed, when the run is unknown (:class:`UnknownRun`), not waiting
        (:class:`RunNotPaused`), the gate was answered already
        (:class:`GateAlreadyAnswered`), does not exist (:class:`UnknownGate`)
        or several are open and none is named (:class:`GateNotChosen`).  The
        run is claimed (recorded running, owned by this process) before it
        runs, so a second answer anywhere is refused as already answered.
        ``workspace``/``tier`` override where the run was started.
        """
        store = self.store
        row = store.get_run(run_id)
        if row is None:
            raise UnknownRun(run_id)
        checkpoint = store.load_checkpoint(run_id) if row["status"] == "paused" else None
        gates: dict[str, JsonDict] = (checkpoint or {}).get("gates") or {}
        pending = [str(g.get("gateId")) for g in gates.values()]
        if gate_id is not None:
            if not any(gate_id in (g.get("gateId"), node) for node, g in gates.items()):
                self._refuse_gate(run_id, gate_id, str(row["status"]), pending, opened=checkpoint is not None)
        elif checkpoint is None or not gates:
            raise RunNotPaused(run_id, str(row["status"]))
        elif len(gates) > 1:
            raise GateNotChosen(run_id, pending)
        assert checkpoint is not None
        place = self._place(run_id, checkpoint, workspace, tier)
        self._check_consent(place)
        engine = self._engine(place)
        handle = RunHandle(fold(store.events(run_id), RunState.initial(run_id)), on_event, self._broadcast)
        try:
            wf_run = engine.resume(run_id, decision, gate_id=gate_id, on_event=handle._dispatch)
        except InputError as exc:  # e.g. a timeout answer before the gate is due
            raise RunInputRefused(str(exc)) from None
        if decision.decision == "approved":  # what still runs needs its keys, checked before it runs
            self._check_keys(
                wf_run.workflow, {n for n, s in wf_run.state["status"].items() if s == "pending"}
            )
        # Claimed: the run is this process's now; the same gate answered elsewhere is refused as answered.
        # A crash before the next checkpoint leaves it interrupted with the gate still open.
        if not store.claim_paused(run_id, wf_run.state):
            # Another view or process answered between our read and now: it drives the run on.
            raise GateAlreadyAnswered(run_id, gate_id or (pending[0] if pending else ""))
        return self._launch(handle, engine, wf_run, place)

    def _refuse_gate(
        self, run_id: str, gate_id: str, status: str, pending: list[str], *, opened: bool
    ) -> None:
        """Why ``gate_id`` cannot be answered now (always raises)."""
        answer: JsonDict | None = None
        was_opened = False
        for event in self.store.events(run_id):
            if gate_id not in (event.get("gateId"), event.get("nodeId")):
                continue
            if event.get("type") == "human_gate:resumed":
                answer = event
            elif event.get("type") in ("human_gate:paused", "budget:paused"):
                was_opened = True
        if answer is not None:
            raise GateAlreadyAnswered(run_id, gate_id, answer.get("decision"), answer.get("decidedBy"))
        if was_opened and status == "running":  # answered a moment ago; its answer is not recorded yet
            raise GateAlreadyAnswered(run_id, gate_id)
        if not opened:
            raise RunNotPaused(run_id, status)
        raise UnknownGate(run_id, gate_id, pending)

    # -- continuing an interrupted run ----------------------------------------------------

    def resume_interrupted(
        self,
        run_id: str,
        *,
        workspace: Path | None = None,
        tier: FsScopeTier | None = None,
        on_event: EventCallback | None = None,
    ) -> RunHandle:
        """Continue a run whose process died from its last node-boundary checkpoint.

        Finished nodes are kept; nodes that were running start again (their
        side effects may happen twice); gates that were open pause it again.
        """
        store = self.store
        row = store.get_run(run_id)
        if row is None:
            raise UnknownRun(run_id)
        checkpoint = store.continuable_checkpoint(run_id)
        if checkpoint is None:
            error = row.get("error")
            why = error.get("message") if isinstance(error, dict) else None
            raise RunNotContinuable(run_id, str(row["status"]), str(row["source"]), why)
        place = self._place(run_id, checkpoint, workspace, tier)
        self._check_consent(place)
        engine = self._engine(place)
        handle = RunHandle(RunState.initial(run_id), on_event, self._broadcast)
        try:
            wf_run = engine.resume_interrupted(run_id, on_event=handle._dispatch)
        except InputError as exc:  # an earlier attempt's process still runs, or another process claimed it
            raise RunInputRefused(str(exc)) from None
        # Claimed: the events after the checkpoint were dropped; the state starts from those kept.
        handle.state = fold(store.events(run_id), RunState.initial(run_id))
        return self._launch(handle, engine, wf_run, place)

    # -- cancelling -----------------------------------------------------------------------------

    def cancel(self, run_id: str) -> Literal["stopping", "cancelled"]:
        """Cancel a run: one this process drives stops (``"stopping"``); a paused one is recorded cancelled.

        A paused run has no process: its cancellation is written to the
        journal as the engine would end it (``run:cancelled`` with its
        totals, a final checkpoint without gates, status cancelled), and its
        spill folder is removed.
        """
        handle = self._live.get(run_id)
        if handle is not None:
            handle.cancel()
            return "stopping"
        from relavium_desktop.engine.events import EventBus, RunCancelled, TokensUsed
        from relavium_desktop.host.output_store import remove_run_folder

        store = self.store
        row = store.get_run(run_id)
        if row is None:
            raise UnknownRun(run_id)
        state = store.load_checkpoint(run_id) if row["status"] == "paused" else None
        if state is None:
            raise RunNotCancellable(run_id, str(row["status"]))
        bus = EventBus(clock=time.time, run_id=run_id, start_sequence=int(state["nextSeq"]))
        bus.subscribe(store.record)
        bus.subscribe(self._broadcast)
        summary: JsonDict = {
            "totalTokensUsed": dict(state["tokens"]),
            "totalCostMicrocents": state["costMicrocents"],
            "durationMs": round(state["activeMs"]),
        }
        stamped = bus.emit(
            RunCancelled(
                total_tokens_used=TokensUsed.model_validate(summary["totalTokensUsed"]),
                total_cost_microcents=summary["totalCostMicrocents"],
                duration_ms=summary["durationMs"],
            )
        )
        state["nextSeq"] = stamped["sequenceNumber"] + 1
        state["gates"] = {}
        store.checkpoint(run_id, state, "cancelled")
        store.finished(run_id, "cancelled", {**summary, "error": None})
        remove_run_folder(self.app.paths.runs, run_id)
        return "cancelled"

    # -- listing --------------------------------------------------------------------------------

    def pending_gates(self, run_id: str | None = None) -> list[JsonDict]:
        """Every pending gate of the paused runs (or of ``run_id``), oldest run first, from their checkpoints.

        ``{runId, gateId, nodeId, gateType, message, expiresAt?}`` each.  The
        checkpoint is what an answer is checked against, so the listing and
        the answer never disagree on what is pending.
        """
        store = self.store
        if run_id is not None:
            row = store.get_run(run_id)
            if row is None:
                raise UnknownRun(run_id)
            rows = [row] if row["status"] == "paused" else []
        else:
            rows = list(reversed(store.list_runs(status="paused", limit=10_000)))
        out: list[JsonDict] = []
        for r in rows:
            state = store.load_checkpoint(r["id"]) or {}
            for node_id, gate in (state.get("gates") or {}).items():
                item: JsonDict = {
                    "runId": r["id"],
                    "gateId": gate.get("gateId"),
                    "nodeId": node_id,
                    "gateType": gate.get("gateType"),
                    "message": gate.get("message"),
                }
                if gate.get("expiresAt"):
                    item["expiresAt"] = gate["expiresAt"]
                out.append(item)
        return out

    # -- assembly -------------------------------------------------------------------------------

    def _place(
        self, run_id: str, checkpoint: JsonDict, workspace: Path | None, tier: FsScopeTier | None
    ) -> _Place:
        """Where a checkpointed run works and the MCP servers it started with (consent is asked again)."""
        from relavium_desktop.application import mcp
        from relavium_desktop.host.mcp.config import McpConfigError

        surface: JsonDict = checkpoint.get("surface") or {}
        recorded = surface.get("workspace")
        folder = workspace if workspace is not None else Path(recorded) if recorded else None
        if folder is None:
            raise WorkspaceNotFound(None)
        folder = folder.expanduser().resolve()
        if not folder.is_dir():
            raise WorkspaceNotFound(folder)
        chosen: FsScopeTier = tier if tier is not None else surface.get("tier") or "project"
        try:
            block, tool_ids = mcp.mcp_from_surface(surface)
        except McpConfigError as exc:
            raise McpServersInvalid(f"run {run_id}: {exc}") from None
        return _Place(folder, chosen, block, tool_ids)

    def _check_keys(self, workflow: LoadedWorkflow, pending: set[str] | None = None) -> None:
        """Each agent node's provider has a key (keyring, its reference or RELAVIUM_<P>_API_KEY).

        An unreadable provider settings file is left to the run, which fails
        the first agent node with the file's own message.
        """
        from relavium_desktop.application.providers import provider_entries
        from relavium_desktop.providers.config import ProviderConfigError
        from relavium_desktop.providers.preflight import missing_keys, needed_providers
        from relavium_desktop.providers.wiring import host_resolver

        if not needed_providers(workflow, pending):
            return  # no agent node: the provider settings are not read at all
        try:
            entries = provider_entries(self.app.paths.home, settings_file=self.surface.providers_file)
        except ProviderConfigError:
            return
        missing = missing_keys(workflow, entries, host_resolver(), pending=pending)
        if missing:
            raise ProviderKeysMissing(missing)

    def _check_consent(self, place: _Place) -> None:
        """Headless: a stdio server neither approved now nor consented to in this project is refused up front."""
        from relavium_desktop.application import mcp

        approved = self.surface.preapproved_mcp
        if approved is None or not place.mcp_block:
            return
        refused = mcp.unconsented_stdio_servers(
            place.mcp_block, approved, project=place.workspace, consents=self.app.consents
        )
        if refused:
            raise McpConsentNeeded(refused)

    def _engine(self, place: _Place) -> WorkflowEngine:
        from relavium_desktop.application.engines import build_workflow_engine

        surface = self.surface
        providers = str(surface.providers_file) if surface.providers_file is not None else None
        return build_workflow_engine(
            workspace=place.workspace,
            tier=place.tier,
            journal=self.store,
            os_capability=surface.os_capability(),
            approval=surface.approval(),
            providers_file=providers,
            hold_gates=surface.hold_gates,
            mcp_servers=place.mcp_block or None,
            mcp_hooks=surface.mcp_hooks(place.workspace),
            home=self.app.paths.home,
        )

    def _launch(
        self, handle: RunHandle, engine: WorkflowEngine, wf_run: WorkflowRun, place: _Place
    ) -> RunHandle:
        """Drive the run on the current event loop; its MCP servers live exactly as long as it."""
        from relavium_desktop.application import mcp

        handle.run = wf_run
        servers = mcp.mcp_servers_of(engine.registry.host, place.tool_ids)
        self._live[wf_run.run_id] = handle
        handle.task = asyncio.ensure_future(self._drive(handle, engine, wf_run, servers))
        return handle

    async def _drive(
        self, handle: RunHandle, engine: WorkflowEngine, wf_run: WorkflowRun, servers: list[str]
    ) -> RunResult:
        from relavium_desktop.application import mcp

        try:
            result: RunResult = await mcp.run_with_mcp(
                engine.registry, servers, wf_run.run, on_problem=self.surface.on_problem
            )
            return result
        except InputError as exc:  # the workflow's context could not be rendered: nothing ran
            self._record_crash(wf_run.run_id, exc)
            raise RunInputRefused(str(exc)) from None
        except Exception as exc:
            self._record_crash(wf_run.run_id, exc)
            raise
        finally:
            if self._live.get(wf_run.run_id) is handle:
                del self._live[wf_run.run_id]

    def _record_crash(self, run_id: str, exc: BaseException) -> None:
        """A run the engine left unfinished on an unexpected error is interrupted, not running forever."""
        try:
            row = self.store.get_run(run_id)
            if row is not None and row["status"] == "running":
                self.store.mark_interrupted(
                    run_id, "internal", f"the run stopped on an unexpected error ({type(exc).__name__})"
                )
        except Exception:  # noqa: BLE001 -- recording is best effort; the original error propagates
            log.warning("run %s: could not record its unexpected end", run_id)
