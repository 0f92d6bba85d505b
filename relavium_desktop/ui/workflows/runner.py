"""Run a workflow from the window: start, stop, resume at a gate, stream events.

One :class:`WorkflowRunner` per view drives at most one run at a time on the
qasync loop.  The run is assembled by the application's
:class:`~relavium_desktop.application.runs.RunService` -- the same assembly
``relavium run`` and ``relavium gate`` use -- so a gate answered here is
checked exactly as one answered from the command line.  This class is the Qt
adapter: every engine event is re-emitted as a Qt signal on the GUI thread
(the engine calls back on the loop, which is that thread), so widgets update
directly.

Approval: tool nodes of a desktop run ask the desktop's confirm hook for
``os`` actions (clipboard) unless a grant covers them; file writes, processes
and egress run on the workflow author's trust, bounded by the workflow's
allowlists and the file policy, exactly as headless runs do
(:func:`~relavium_desktop.application.runs.desktop_regime`).  Protected-path
writes always ask (the registry never auto-approves them).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.application.runs import AUTHOR_TRUSTED, desktop_regime
from relavium_desktop.engine.tools.tooldef import ApprovalHook
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import QObject, Signal
from relavium_desktop.ui.tasks import spawn

if TYPE_CHECKING:
    from relavium_desktop.application.app import Application
    from relavium_desktop.application.runs import RunHandle, RunService
    from relavium_desktop.engine.host import OsCapability
    from relavium_desktop.engine.workflow.loader import LoadedWorkflow
    from relavium_desktop.engine.workflow.run import GateDecision, RunResult, WorkflowRun
    from relavium_desktop.engine.workflow.run_state import RunState

__all__ = ["AUTHOR_TRUSTED", "WorkflowRunner", "desktop_regime"]

log = logging.getLogger(__name__)


class WorkflowRunner(QObject):
    run_event = Signal(object)  # every stamped run event, in order
    finished = Signal(object)  # RunResult (completed, failed, cancelled or paused)
    failed_to_start = Signal(
        str
    )  # a clear, secret-free message (bad input, unknown run, gate already answered)
    running_changed = Signal(bool)

    def __init__(
        self,
        *,
        home: Callable[[], Path] | None = None,
        workspace: Callable[[], str],
        os_capability: Callable[[], OsCapability | None],
        approval_hook: Callable[[], ApprovalHook | None],
        mcp_hooks: Callable[[], Any] = lambda: None,
        app: Application | Callable[[], Application] | None = None,
        parent: QObject | None = None,
    ) -> None:
        """``app`` is the window's Application (its shared run store); without one each run opens its own in ``home``."""
        if app is None and home is None:
            raise ValueError("a WorkflowRunner needs the window's Application (or the data folder)")
        super().__init__(parent)
        self._home = home
        self._app = app
        self._workspace = workspace
        self._os = os_capability
        self._hook = approval_hook
        self._mcp_hooks = mcp_hooks
        self.handle: RunHandle | None = None
        self.task: asyncio.Task[Any] | None = None
        self.last_result: RunResult | None = None

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def run(self) -> WorkflowRun | None:
        """The engine run being driven (or last driven)."""
        return self.handle.run if self.handle is not None else None

    @property
    def state(self) -> RunState | None:
        """The current (or last) run's state, as the one reducer computes it from its events."""
        return self.handle.state if self.handle is not None else None

    def _service(self) -> tuple[RunService, Application | None]:
        """The run service over the window's Application, or over one opened for this run (to close after it)."""
        from relavium_desktop.application.app import Application
        from relavium_desktop.application.paths import AppPaths
        from relavium_desktop.application.runs import RunService, RunSurface

        own: Application | None = None
        if isinstance(self._app, Application):
            app = self._app
        elif self._app is not None:
            app = self._app()
        else:
            assert self._home is not None
            app = own = Application(AppPaths(self._home()))
        surface = RunSurface(
            approval=lambda: desktop_regime(self._hook()),
            os_capability=self._os,
            mcp_hooks=lambda _project: self._mcp_hooks(),  # the consent is asked before a server starts
        )
        return RunService(app, surface), own

    def start(self, workflow: LoadedWorkflow, inputs: dict[str, Any]) -> bool:
        """Start a run; False (and ``failed_to_start``) when inputs are refused or a run is active."""
        if not self._ready(needs_project=True):
            return False
        workspace = Path(self._workspace())
        return self._launch(
            lambda service: service.start(
                workflow, inputs, workspace, "project", on_event=self.run_event.emit
            )
        )

    def resume(
        self, run_id: str, decision: GateDecision, gate_id: str | None = None, *, workspace: str | None = None
    ) -> bool:
        """Answer a paused run's gate and continue it (also a run paused by an earlier process).

        ``workspace`` is the folder the run was started in, when it is not the
        one its checkpoint records.  A gate already answered (here, in another
        view, from a notification or by ``relavium gate``) is refused through
        ``failed_to_start`` with the words "this gate was already answered".
        """
        if not self._ready(needs_project=False):
            return False
        folder = Path(workspace) if workspace else None
        return self._launch(
            lambda service: service.answer_gate(
                run_id, decision, gate_id, workspace=folder, on_event=self.run_event.emit
            )
        )

    def stop(self) -> None:
        if self.handle is not None and self.busy:
            self.handle.cancel()

    def cancel_paused(self, run_id: str) -> bool:
        """Cancel a run that waits at a gate (no process drives it): recorded cancelled, its gates closed.

        Its ``run:cancelled`` event comes through ``run_event`` like a live
        run's; a refusal (unknown, not paused any more) through ``failed_to_start``.
        """
        from relavium_desktop.application.runs import RunRefusal

        if self.busy and self.handle is not None and self.handle.run_id == run_id:
            self.handle.cancel()
            return True
        service, own = self._service()
        service.subscribe(self.run_event.emit)
        try:
            service.cancel(run_id)
        except RunRefusal as exc:
            self.failed_to_start.emit(error_text(exc))
            return False
        finally:
            if own is not None:
                own.close()
        return True

    def _ready(self, *, needs_project: bool) -> bool:
        if self.busy:
            self.failed_to_start.emit("a run is already in progress; stop it first")
            return False
        if needs_project and not self._workspace():
            self.failed_to_start.emit("choose a project folder first")
            return False
        return True

    def _launch(self, begin: Callable[[RunService], RunHandle]) -> bool:
        from relavium_desktop.application.runs import RunRefusal

        service, own = self._service()
        try:
            handle = begin(service)
        except RunRefusal as exc:
            if own is not None:
                own.close()
            self.failed_to_start.emit(error_text(exc))
            return False
        except BaseException:
            if own is not None:
                own.close()
            raise
        self.handle = handle
        self.running_changed.emit(True)
        self.task = spawn(self._drive(handle, own))
        return True

    async def _drive(self, handle: RunHandle, own: Application | None) -> None:
        from relavium_desktop.application.runs import RunRefusal

        try:
            result = await handle.result()
        except asyncio.CancelledError:
            self._closed(own)
            raise
        except RunRefusal as exc:  # the workflow's context could not be rendered: nothing ran
            self._closed(own)
            self.failed_to_start.emit(error_text(exc))
            return
        except Exception:
            self._closed(own)
            log.exception("workflow run crashed")
            self.failed_to_start.emit("the run stopped unexpectedly; see the log")
            return
        self.last_result = result
        self._closed(own)
        self.finished.emit(result)

    def _closed(self, own: Application | None) -> None:
        if own is not None:
            own.close()
        self.running_changed.emit(False)
