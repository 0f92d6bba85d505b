"""The pending human gate of a paused run, answered where the run is shown (Workflows, Activity).

A run paused at a gate is durable (its checkpoint is in history.db), so it can
be answered here after the app restarts, or when ``relavium run`` paused it:
the panel shows the gate's message first, then what it approves (the output
of the step before it, as readable text -- never raw JSON, never the run id),
a payload box when the kind takes one (input, review), then one primary
Approve and a secondary "Reject…" that asks for an optional reason first.  Answering goes through the same
engine ``resume`` as ``relavium run --resume`` (:class:`WorkflowRunner`).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from relavium_desktop.engine.display_text import show, show_line
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.ui.qt import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.runs.local_time import full_local, short_local
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.tokens import SPACE_2, SPACE_4
from relavium_desktop.ui.untrusted import fill_shown, set_shown

REVIEW_HEIGHT = 160
PAYLOAD_HEIGHT = 90
REJECT_ASK = "Reject…"
REJECT_SEND = "Reject"


GATE_KIND_WORDS = {
    "approval": "waits for your approval",
    "input": "waits for your input",
    "review": "waits for your review",
}


class GatePanel(QWidget):
    """The gate as a card on the warning surface: the question, what it approves, Approve / Reject…."""

    # run id, gate id, GateDecision
    decided = Signal(str, str, object)
    shown_changed = Signal()  # shown or cleared: the page decides which button is its primary

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("gatePanel")
        set_surface(self, "banner-warning")
        self.run_id: str | None = None
        self.gate: JsonDict | None = None
        self.message = QLabel("")  # the author's question: the card's title
        self.message.setObjectName("gateMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_variant(self.message, "title")
        self.title = QLabel("")  # which step waits, and until when
        self.title.setObjectName("gateTitle")
        self.title.setWordWrap(True)
        set_tone(self.title, "muted")
        self.review_heading = QLabel("What you are approving")
        set_variant(self.review_heading, "caption")
        set_tone(self.review_heading, "muted")
        self.review = QPlainTextEdit()
        self.review.setObjectName("gateReview")
        self.review.setAccessibleName("What you are approving")
        self.review.setReadOnly(True)
        set_surface(self.review, "card")
        self.payload = QPlainTextEdit()
        self.payload.setObjectName("gatePayload")
        self.payload.setAccessibleName("Your input")
        self.payload.setPlaceholderText("Your input (JSON, or plain text)")
        self.payload.setMaximumHeight(PAYLOAD_HEIGHT)
        self.comment = QLineEdit()  # the reason for a rejection, asked for only after "Reject…"
        self.comment.setObjectName("gateReason")
        self.comment.setAccessibleName("Reason for rejecting")
        self.comment.setPlaceholderText("Why? (optional, kept in the run's history)")
        self.comment.returnPressed.connect(lambda: self._answer(False))
        self.approve_button = QPushButton("Approve")
        self.approve_button.setObjectName("gateApprove")
        self.approve_button.setToolTip("Continue the run from this gate")
        self.reject_button = QPushButton(REJECT_ASK)
        self.reject_button.setObjectName("gateReject")
        self.reject_button.setToolTip("Stop the run at this gate; you may say why")
        for b in (self.approve_button, self.reject_button):
            b.setAutoDefault(False)
        set_variant(self.approve_button, "primary")
        set_variant(self.reject_button, "secondary")
        self.approve_button.clicked.connect(lambda: self._answer(True))
        self.reject_button.clicked.connect(self._reject_clicked)
        self.status = QLabel("")
        self.status.setObjectName("gateStatus")
        self.status.setWordWrap(True)
        set_tone(self.status, "muted")
        row = QHBoxLayout()
        row.setSpacing(SPACE_2)
        row.addWidget(self.reject_button)
        row.addWidget(self.status, 1)  # "Resuming…" between the two answers, as the design's "Later"
        row.addWidget(self.approve_button)
        col = QVBoxLayout(self)
        col.setContentsMargins(SPACE_4, SPACE_4, SPACE_4, SPACE_4)
        col.setSpacing(SPACE_2)
        col.addWidget(self.message)
        col.addWidget(self.title)
        col.addWidget(self.review_heading)
        col.addWidget(self.review)
        col.addWidget(self.payload)
        col.addWidget(self.comment)
        col.addLayout(row)
        self.hide()

    def show_gate(self, run_id: str, gate: JsonDict, review: str = "") -> None:
        """Show ``gate``; ``review`` is the readable text of what it approves (may be empty)."""
        self.run_id = run_id
        self.gate = gate
        kind = str(gate.get("gateType") or "approval")
        expires = gate.get("expiresAtEpoch")
        when = f" · times out {short_local(expires).replace('Today ', 'today at ')}" \
            if isinstance(expires, int | float) else ""
        waits = GATE_KIND_WORDS.get(kind, f"waits for you ({show_line(kind)})")
        self.title.setText(f"The {show_line(str(gate.get('nodeId')))} step {waits}{when}")
        self.title.setToolTip(f"Times out {full_local(expires)}" if isinstance(expires, int | float) else "")
        # The author's message and the run's data: shown by the display rule, markers styled.
        set_shown(self.message, show(mask_text(str(gate.get("message") or "Approve to continue?")), "block"))
        fill_shown(self.review, review)
        self._fit_review()
        self.review.setVisible(bool(review))
        self.review_heading.setVisible(bool(review))
        self.payload.clear()
        self.payload.setVisible(kind in ("input", "review"))
        self.comment.clear()
        self.comment.hide()
        self.reject_button.setText(REJECT_ASK)
        self.status.setText("")
        self.set_busy(False)
        self.show()
        self.shown_changed.emit()

    def _fit_review(self) -> None:
        """As tall as what is approved (a one-line note is a one-line box), at most REVIEW_HEIGHT."""
        document = self.review.document()
        lines = max(1, document.lineCount(), document.blockCount())
        margins = self.review.contentsMargins()
        height = lines * self.review.fontMetrics().lineSpacing() + margins.top() + margins.bottom()
        height += int(2 * document.documentMargin()) + SPACE_2
        self.review.setFixedHeight(min(REVIEW_HEIGHT, height))

    def _reject_clicked(self) -> None:
        """The first click asks for an optional reason; the second (or Enter in it) rejects."""
        if self.comment.isHidden():
            self.comment.show()
            self.comment.setFocus()
            self.reject_button.setText(REJECT_SEND)
            return
        self._answer(False)

    def clear_gate(self) -> None:
        self.run_id = None
        self.gate = None
        self.hide()
        self.shown_changed.emit()

    def set_busy(self, busy: bool) -> None:
        self.approve_button.setEnabled(not busy)
        self.reject_button.setEnabled(not busy)

    def _payload(self) -> Any:
        text = self.payload.toPlainText()
        if not self.payload.isVisibleTo(self) or not text.strip():
            return None
        try:
            return json.loads(text)
        except ValueError:
            return text

    def _answer(self, approved: bool) -> None:
        from relavium_desktop.engine.workflow.run import GateDecision

        if self.run_id is None or self.gate is None:
            return
        payload = self._payload() if approved else None
        kind: Literal["approved", "rejected", "input_provided"] = (
            "rejected" if not approved else "input_provided" if payload is not None else "approved"
        )
        decision = GateDecision(kind, decided_by="desktop", payload=payload,
                                comment=self.comment.text().strip() or None)
        self.set_busy(True)
        self.status.setText("Resuming…")
        self.decided.emit(self.run_id, str(self.gate.get("gateId")), decision)
