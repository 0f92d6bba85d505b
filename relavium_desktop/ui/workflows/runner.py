"""Run a workflow from the window: start, stop, resume at a gate, stream events.

One :class:`WorkflowRunner` per view drives at most one run at a time on the
qasync loop.  Every engine event is re-emitted as a Qt signal on the GUI
thread (the engine calls back on the loop, which is that thread), so widgets
update directly.  Runs are journaled to history.db like ``relavium run``:
a run paused at a gate can be resumed here or by the CLI, in any process.

Approval: tool nodes of a desktop run ask the desktop's confirm hook for
``os`` actions (clipboard) unless a grant covers them; file writes, processes
and egress run on the workflow author's trust, bounded by the workflow's
allowlists and the file policy, exactly as headless runs do.  Protected-path
writes always ask (the registry never auto-approves them).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalHook, ApprovalRegime
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import QObject, Signal
from relavium_desktop.ui.tasks import spawn

if TYPE_CHECKING:
    from relavium_desktop.engine.host import OsCapability
    from relavium_desktop.engine.workflow.loader import LoadedWorkflow
    from relavium_desktop.engine.workflow.run import GateDecision, RunResult, WorkflowRun

log = logging.getLogger(__name__)

# What a desktop workflow run does without asking (see the module docstring).
AUTHOR_TRUSTED = frozenset({ActionClass.FS_WRITE, ActionClass.PROCESS, ActionClass.EGRESS})


def desktop_regime(hook: ApprovalHook | None) -> ApprovalRegime:
    return ApprovalRegime(hook=hook, auto_approve=AUTHOR_TRUSTED)


class WorkflowRunner(QObject):
    run_event = Signal(object)  # every stamped run event, in order
    finished = Signal(object)  # RunResult (completed, failed, cancelled or paused)
    failed_to_start = Signal(str)  # a clear, secret-free message (bad input, unknown run)
    running_changed = Signal(bool)

    def __init__(
        self,
        *,
        home: Callable[[], Path],
        workspace: Callable[[], str],
        os_capability: Callable[[], OsCapability | None],
        approval_hook: Callable[[], ApprovalHook | None],
        mcp_hooks: Callable[[], Any] = lambda: None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._home = home
        self._mcp_hooks = mcp_hooks
        # The run's MCP servers: the workflow's own block (consent asked through
        # ``mcp_hooks`` before one starts) and the servers its tool ids name.
        self._mcp_block: dict[str, Any] = {}
        self._mcp_tool_ids: list[str] = []
        self._workspace = workspace
        self._os = os_capability
        self._hook = approval_hook
        self.run: WorkflowRun | None = None
        self.task: asyncio.Task[Any] | None = None
        self.last_result: RunResult | None = None
        # A resumed run works in the folder it was started in (its checkpoint's surface).
        self._run_workspace: str | None = None

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    def _engine(self, journal: Any) -> Any:
        from relavium_desktop.services import build_workflow_engine

        workspace = Path(self._run_workspace or self._workspace()).resolve()
        return build_workflow_engine(workspace=workspace, tier="project", journal=journal,
                                     os_capability=self._os(), approval=desktop_regime(self._hook()),
                                     mcp_servers=self._mcp_block or None, mcp_hooks=self._mcp_hooks())

    def start(self, workflow: LoadedWorkflow, inputs: dict[str, Any]) -> bool:
        """Start a run; False (and ``failed_to_start``) when inputs are refused or a run is active."""
        from relavium_desktop import services
        from relavium_desktop.engine.workflow.errors import InputError
        from relavium_desktop.host.mcp.config import McpConfigError

        if self.busy:
            self.failed_to_start.emit("a run is already in progress; stop it first")
            return False
        self._run_workspace = None
        try:
            self._mcp_block = services.workflow_mcp_block(workflow)
        except McpConfigError as exc:
            self.failed_to_start.emit(error_text(exc))
            return False
        self._mcp_tool_ids = services.workflow_tool_ids(workflow)
        return self._launch(lambda engine: engine.start(
            workflow, inputs, on_event=self.run_event.emit,
            surface={"workspace": str(Path(self._workspace()).resolve()), "tier": "project",
                     **services.mcp_surface(self._mcp_block, self._mcp_tool_ids)},
        ), InputError)

    def resume(
        self, run_id: str, decision: GateDecision, gate_id: str | None = None, *, workspace: str | None = None
    ) -> bool:
        """Answer a paused run's gate and continue it (also a run paused by an earlier process).

        ``workspace`` is the folder the run was started in, when it is not the open project.
        """
        from relavium_desktop.engine.workflow.errors import InputError

        if not self.busy:
            self._run_workspace = workspace
            self._restore_mcp(run_id)
        return self._launch(lambda engine: engine.resume(run_id, decision, gate_id=gate_id,
                                                         on_event=self.run_event.emit), InputError)

    def _restore_mcp(self, run_id: str) -> None:
        """The MCP servers a paused run started with, from its checkpoint (consent is asked again on spawn)."""
        from relavium_desktop import services
        from relavium_desktop.host.mcp.config import McpConfigError

        self._mcp_block, self._mcp_tool_ids = {}, []
        store = services.run_store(self._home())
        try:
            checkpoint = store.load_checkpoint(run_id) or store.continuable_checkpoint(run_id) or {}
            self._mcp_block, self._mcp_tool_ids = services.mcp_from_surface(checkpoint.get("surface") or {})
        except McpConfigError as exc:
            log.warning("run %s: its MCP servers cannot be restored: %s", run_id, exc)
        finally:
            store.close()

    def stop(self) -> None:
        if self.run is not None and self.busy:
            self.run.cancel()

    def _launch(self, make: Callable[[Any], WorkflowRun], refused: type[Exception]) -> bool:
        from relavium_desktop import services

        if self.busy:
            self.failed_to_start.emit("a run is already in progress; stop it first")
            return False
        if not (self._run_workspace or self._workspace()):
            self.failed_to_start.emit("choose a project folder first")
            return False
        store = services.run_store(self._home())
        try:
            engine = self._engine(store)
            self.run = make(engine)
        except refused as exc:
            store.close()
            self.failed_to_start.emit(error_text(exc))
            return False
        except BaseException:
            store.close()
            raise
        self.running_changed.emit(True)
        servers = services.mcp_servers_of(engine.registry.host, self._mcp_tool_ids)
        on_problem = lambda line: log.warning("workflow run: %s", line)  # noqa: E731
        self.task = spawn(self._drive(services.run_with_mcp(engine.registry, servers, self.run.run, on_problem), store))
        return True

    async def _drive(self, work: Awaitable[RunResult], store: Any) -> None:
        try:
            result = await work
        except asyncio.CancelledError:
            store.close()
            self.running_changed.emit(False)
            raise
        except Exception:
            store.close()
            self.running_changed.emit(False)
            log.exception("workflow run crashed")
            self.failed_to_start.emit("the run stopped unexpectedly; see the log")
            return
        store.close()
        self.last_result = result
        self.running_changed.emit(False)
        self.finished.emit(result)
