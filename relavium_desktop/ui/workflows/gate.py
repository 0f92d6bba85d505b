"""Human gates in the window: a dialog, and a notification when the window is unfocused.

A gate pauses the run durably (it is checkpointed in history.db), so closing
the dialog is "decide later", never a rejection: the run stays paused and can
be answered again from the view or with ``relavium run --resume``.  When the
window is not the active one, a notification with Approve / Reject buttons is
sent as well; pressing one answers the same pending dialog, exactly as the
permission prompt does.  Enter never answers (a stray key press must not
approve a release).  The gate's message and node id are the workflow author's text and the
review is the run's data: all are shown by the one display rule (``engine/display_text.py``), in the
dialog and in the notification, so no control or bidi character reaches the screen raw.

With the window's :class:`~relavium_desktop.ui.gate_board.GateBoard` attached,
a gate answered anywhere else (Runs / History, the Workflows panel, the CLI)
closes its dialog and withdraws its notification; a button pressed on a gate
that was already answered is told so in a notification ("This gate was
already answered"), never silently ignored.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, Literal

from relavium_desktop.engine.display_text import show, show_block, show_line
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools.masking import clip, mask_text
from relavium_desktop.engine.workflow.run import GateDecision
from relavium_desktop.ui.qt import (
    QDialog,
    QHBoxLayout,
    QKeyEvent,
    QLabel,
    QLineEdit,
    QObject,
    QPlainTextEdit,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.tasks import spawn
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_2, SPACE_3
from relavium_desktop.ui.untrusted import fill_shown, set_shown

if TYPE_CHECKING:
    from collections.abc import Callable

    from relavium_desktop.application.desktop_os import DesktopOs, NotificationAction
    from relavium_desktop.ui.gate_board import GateBoard

log = logging.getLogger(__name__)

APPROVE = "Approve"
REJECT = "Reject"
NOTIFICATION_TITLE = "A workflow is waiting for you"
ALREADY_ANSWERED_TITLE = "Nothing to answer"
ALREADY_ANSWERED = "This gate was already answered"
GATE_KINDS = {"approval": "approval", "input": "asks for input", "review": "review"}


class GateDialog(QDialog):
    decided = Signal(object)  # GateDecision

    def __init__(self, run_id: str, gate: JsonDict, parent: QWidget | None = None, *, review: str = "") -> None:
        super().__init__(parent)
        self.run_id = run_id  # kept to answer the right run; never shown
        self.gate = gate
        self.decision: GateDecision | None = None
        self.setObjectName("gateDialog")
        self.setWindowTitle(f"Human gate: {show_line(str(gate.get('nodeId')))}")
        self.resize(600, 460 if review else 300)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)
        layout.setSpacing(SPACE_3)
        # The question first, large: it is what the person has to answer.
        self.message = QLabel()
        set_shown(self.message, show(mask_text(str(gate.get("message") or "Approve to continue.")), "block"))
        self.message.setObjectName("gateMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_tone(self.message, "title")
        layout.addWidget(self.message)
        self.where = QLabel(f"The workflow is paused at {show_line(str(gate.get('nodeId')))} "
                            f"({GATE_KINDS.get(str(gate.get('gateType')), 'approval')}).")
        self.where.setObjectName("gateWhere")
        self.where.setWordWrap(True)
        set_tone(self.where, "muted")
        layout.addWidget(self.where)
        self.review: QPlainTextEdit | None = None
        if review:
            heading = QLabel("What you are approving")
            set_tone(heading, "heading")
            layout.addWidget(heading)
            self.review = QPlainTextEdit()
            fill_shown(self.review, review)
            self.review.setObjectName("gateReview")
            self.review.setReadOnly(True)
            set_surface(self.review, "card")
            layout.addWidget(self.review, 2)
        self.payload: QPlainTextEdit | None = None
        if gate.get("gateType") in ("input", "review"):
            self.payload = QPlainTextEdit()
            self.payload.setObjectName("gatePayload")
            self.payload.setPlaceholderText("Your input (JSON, or plain text)")
            layout.addWidget(self.payload, 1)
        self.comment = QLineEdit()
        self.comment.setPlaceholderText("Comment or reason (optional, kept in the run's history)")
        self.comment.setAccessibleName("Comment or reason")
        layout.addWidget(self.comment)
        self.approve_button = QPushButton(APPROVE)
        self.reject_button = QPushButton(REJECT)
        self.later_button = QPushButton("Decide later")
        # As the design's gate card: refusing is secondary on the left, the one primary is Approve.
        set_variant(self.approve_button, "primary")
        set_variant(self.reject_button, "secondary")
        set_variant(self.later_button, "ghost")
        row = QHBoxLayout()
        row.setSpacing(SPACE_2)
        row.addWidget(self.reject_button)
        row.addStretch(1)
        row.addWidget(self.later_button)
        row.addWidget(self.approve_button)
        layout.addLayout(row)
        for b in (self.approve_button, self.reject_button, self.later_button):
            b.setAutoDefault(False)
            b.setDefault(False)
        self.approve_button.clicked.connect(lambda: self.answer(True, "desktop"))
        self.reject_button.clicked.connect(lambda: self.answer(False, "desktop"))
        self.later_button.clicked.connect(self.close)
        self.comment.setFocus()

    def _payload(self) -> Any:
        if self.payload is None or not self.payload.toPlainText().strip():
            return None
        text = self.payload.toPlainText()
        try:
            return json.loads(text)
        except ValueError:
            return text

    def answer(self, approved: bool, decided_by: str) -> None:
        if self.decision is not None:
            return
        payload = self._payload()
        kind: Literal["approved", "rejected", "input_provided"] = (
            "rejected" if not approved else "input_provided" if payload is not None else "approved"
        )
        self.decision = GateDecision(kind, decided_by=decided_by, payload=payload,
                                     comment=self.comment.text().strip() or None)
        self.decided.emit(self.decision)
        self.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()
            return
        super().keyPressEvent(event)


class GatePrompter(QObject):
    """Opens the dialog for a paused run's gate and, when unfocused, the notification."""

    dialog_opened = Signal(object)  # GateDialog
    decided = Signal(str, str, object)  # run id, gate id, GateDecision
    withdrawn = Signal(str)  # notification id withdrawn because its gate was answered
    stale_action = Signal(str)  # notification id whose button was pressed after its gate was answered

    def __init__(
        self,
        window: QWidget,
        *,
        notifier: Callable[[], DesktopOs | None],
        notify_enabled: Callable[[], bool] = lambda: True,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._notifier = notifier
        self._notify_enabled = notify_enabled
        self._listening: DesktopOs | None = None
        self._by_notification: dict[str, GateDialog] = {}
        # Every gate notification sent, until its gate is answered: (run id, gate id) by notification id.
        self._notices: dict[str, tuple[str, str]] = {}
        self._answered: set[str] = set()  # notifications of gates answered since: a late click says so
        self._board: GateBoard | None = None
        self.pending: GateDialog | None = None
        self.last_notification_id: str | None = None

    def attach_board(self, board: GateBoard) -> None:
        """Follow the window's pending gates: a gate answered anywhere closes its dialog and its notification."""
        if self._board is None:
            self._board = board
            board.gate_answered.connect(self.answered_elsewhere)

    def answered_elsewhere(self, run_id: str, gate_id: str) -> None:
        """The gate was answered (here, in Runs / History, from the notification or by the CLI): tidy up."""
        dialog = self.pending
        if dialog is not None and dialog.run_id == run_id and str(dialog.gate.get("gateId")) == gate_id \
                and dialog.decision is None:
            dialog.close()  # "decide later" semantics: no answer of its own
        notifier = self._notifier()
        for nid, (rid, gid) in list(self._notices.items()):
            if (rid, gid) == (run_id, gate_id):
                del self._notices[nid]
                self._answered.add(nid)
                self._by_notification.pop(nid, None)
                if notifier is not None:
                    spawn(notifier.withdraw(nid))
                    self.withdrawn.emit(nid)

    def ask(self, run_id: str, gate: JsonDict, review: str = "") -> GateDialog:
        """Open the dialog; ``review`` is the readable text of what the gate approves (may be empty)."""
        if self.pending is not None and self.pending.decision is None:
            self.pending.close()
        dialog = GateDialog(run_id, gate, self._window, review=review)
        dialog.decided.connect(lambda d: self.decided.emit(run_id, str(gate.get("gateId")), d))
        dialog.finished.connect(lambda _code: self._forget(dialog))
        self.pending = dialog
        dialog.open()
        self.dialog_opened.emit(dialog)
        notifier = self._notifier()
        if notifier is not None and self._notify_enabled() and not self._window.isActiveWindow():
            if self._listening is not notifier:
                notifier.add_action_listener(self._on_action)
                self._listening = notifier
            spawn(self._notify(notifier, dialog))
        return dialog

    def _forget(self, dialog: GateDialog) -> None:
        for nid, d in list(self._by_notification.items()):
            if d is dialog:
                del self._by_notification[nid]
        if self.pending is dialog:
            self.pending = None
        dialog.deleteLater()

    async def _notify(self, notifier: DesktopOs, dialog: GateDialog) -> None:
        message = show_block(clip(mask_text(str(dialog.gate.get("message", ""))), 200))
        body = f"{show_line(str(dialog.gate.get('nodeId')))}: {message}"
        try:
            result = await notifier.notify(show_line(NOTIFICATION_TITLE), body, [show_line(APPROVE), show_line(REJECT)])
        except Exception as exc:  # noqa: BLE001 -- the dialog still waits; a missing notifier is not fatal
            log.info("gate notification not shown: %s", type(exc).__name__)
            return
        nid = str(result["id"])
        key = (dialog.run_id, str(dialog.gate.get("gateId")))
        self._notices[nid] = key
        if dialog.decision is None and self.pending is dialog:
            self._by_notification[nid] = dialog
        self.last_notification_id = nid
        board = self._board
        if dialog.decision is not None or (board is not None and board.state_of(key[0]) is not None
                                           and not board.is_pending(*key)):
            self.answered_elsewhere(*key)  # answered while the notification was being sent

    def _on_action(self, action: NotificationAction) -> None:
        nid = action.notification_id
        if nid not in self._notices and nid not in self._by_notification and nid not in self._answered:
            return  # not a gate notification (a run notice, a tool's): its own listener answers it
        spawn(self._act(action))

    async def _act(self, action: NotificationAction) -> None:
        nid = action.notification_id
        key = self._notices.get(nid)
        if key is not None and self._board is not None:
            await self._board.sync_now()  # an answer given in another process may not be polled in yet
        dialog = self._by_notification.get(nid)
        live = key is not None and (self._board is None or self._board.is_pending(*key))
        if dialog is None or dialog.decision is not None or not live:
            if action.action in (APPROVE, REJECT):
                await self._say_already_answered(nid)
            return
        if action.action == APPROVE:
            dialog.answer(True, "notification")
        elif action.action == REJECT:
            dialog.answer(False, "notification")
        else:  # a click on the body: bring the dialog forward
            self._window.activateWindow()
            dialog.raise_()

    async def _say_already_answered(self, nid: str) -> None:
        """A button of a gate that was already answered: say so (never silence) and take the old notice away."""
        self._notices.pop(nid, None)
        self._by_notification.pop(nid, None)
        self._answered.discard(nid)
        notifier = self._notifier()
        if notifier is not None:
            await notifier.withdraw(nid)
            try:
                await notifier.notify(show_line(ALREADY_ANSWERED_TITLE), show_line(ALREADY_ANSWERED), [])
            except Exception as exc:  # noqa: BLE001 -- no daemon: nothing more can be shown there
                log.info("already-answered notification not shown: %s", type(exc).__name__)
        self.stale_action.emit(nid)
