"""What the tray says: idle, working, or needs your attention -- and how many things wait.

The tray's state is the sum of signals other parts already send: a chat turn
starting and finishing, a workflow run running, a permission dialog or a
gate waiting, a failure the user has not seen yet.  This object only listens
and counts; it decides nothing about turns, runs or permissions.

Attention wins over working: something waiting for the user matters more
than something the app is doing on its own.  Changes are told once the
current event is handled, so a run that stops at a gate goes from working
straight to attention, without flashing idle in between.  A failure counts as unseen
when it happens while the window is hidden, minimised or not the active
window, and stays so until the window is activated again.  Once the window's
:class:`~relavium_desktop.ui.gate_board.GateBoard` is watched, gates are
counted from it: a gate answered anywhere (another view, a notification, the
CLI) drops the count, not only a dialog closing here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.qt import QEvent, QObject, QTimer, QWidget, Signal
from relavium_desktop.ui.tray import TrayState

if TYPE_CHECKING:
    from relavium_desktop.ui.approval import ApprovalController
    from relavium_desktop.ui.chat.view import ChatView
    from relavium_desktop.ui.gate_board import GateBoard
    from relavium_desktop.ui.workflows.gate import GateDialog
    from relavium_desktop.ui.workflows.view import WorkflowsView


class TrayStatus(QObject):
    changed = Signal()  # state or waiting count changed

    def __init__(self, window: QWidget, parent: QObject | None = None) -> None:
        super().__init__(parent or window)
        self._window = window
        self._chat_running = False
        self._runs_running = False
        self._approvals = 0
        self._gates: set[int] = set()  # ids of gate dialogs still open
        self._board: GateBoard | None = None  # once watched, the gates waiting anywhere (answered anywhere)
        self._unseen_failures = 0
        self._watched: set[int] = set()  # ids of objects already connected, so watching twice is harmless
        self._shown = (TrayState.IDLE, 0)
        self._telling = False
        window.installEventFilter(self)

    # -- what the tray shows --------------------------------------------------

    @property
    def waiting(self) -> int:
        """Things waiting for the user: permission prompts, gates, failures not seen yet."""
        gates = self._board.pending_count if self._board is not None else len(self._gates)
        return self._approvals + gates + self._unseen_failures

    @property
    def state(self) -> TrayState:
        if self.waiting:
            return TrayState.ATTENTION
        if self._chat_running or self._runs_running:
            return TrayState.WORKING
        return TrayState.IDLE

    def _update(self) -> None:
        if not self._telling:
            self._telling = True
            QTimer.singleShot(0, self._tell)

    def _tell(self) -> None:
        self._telling = False
        now = (self.state, self.waiting)
        if now != self._shown:
            self._shown = now
            self.changed.emit()

    # -- sources ----------------------------------------------------------------

    def _first_time(self, source: QObject) -> bool:
        if id(source) in self._watched:
            return False
        self._watched.add(id(source))
        return True

    def watch_chat(self, chat: ChatView) -> None:
        if self._first_time(chat):
            chat.turn_started.connect(self._turn_started)
            chat.turn_finished.connect(self._turn_finished)

    def watch_approvals(self, approvals: ApprovalController) -> None:
        if self._first_time(approvals):
            approvals.approval_waiting.connect(self._approval_waiting)

    def watch_workflows(self, view: WorkflowsView) -> None:
        if self._first_time(view):
            view.runner.running_changed.connect(self._runs_changed)
            view.run_finished.connect(self._run_finished)
            view.gates.dialog_opened.connect(self._gate_opened)

    def watch_gate_board(self, board: GateBoard) -> None:
        """Count the window's pending gates from the one board: one answered anywhere drops the count."""
        if self._first_time(board):
            self._board = board
            board.changed.connect(self._update)
            self._update()

    def _turn_started(self) -> None:
        self._chat_running = True
        self._update()

    def _turn_finished(self, outcome: str) -> None:
        self._chat_running = False
        self._failed(outcome == "failed")

    def _approval_waiting(self, waiting: bool) -> None:
        self._approvals = max(0, self._approvals + (1 if waiting else -1))
        self._update()

    def _runs_changed(self, running: bool) -> None:
        self._runs_running = running
        self._update()

    def _run_finished(self, result: Any) -> None:
        self._failed(getattr(result, "status", "") == "failed")

    def _gate_opened(self, dialog: GateDialog) -> None:
        self._gates.add(id(dialog))
        # A bound method, not a lambda: the connection ends with this object, and every way a
        # gate dialog goes away (answered, "decide later", replaced by the next gate) finishes it.
        dialog.finished.connect(self._gate_closed)
        self._update()

    def _gate_closed(self, _code: int = 0) -> None:
        self._gates.discard(id(self.sender()))
        self._update()

    def _failed(self, failed: bool) -> None:
        if failed and not self.window_seen():
            self._unseen_failures += 1
        self._update()

    # -- seen -----------------------------------------------------------------------

    def window_seen(self) -> bool:
        """Whether the user is looking at the window now (a failure then is seen as it happens)."""
        w = self._window
        return w.isVisible() and not w.isMinimized() and w.isActiveWindow()

    def mark_seen(self) -> None:
        self._unseen_failures = 0
        self._update()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() == QEvent.Type.WindowActivate:
            self.mark_seen()
        return False
