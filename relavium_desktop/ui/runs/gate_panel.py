"""The pending human gate of a paused run, answered from Runs / History.

A run paused at a gate is durable (its checkpoint is in history.db), so it can
be answered here after the app restarts, or when ``relavium run`` paused it:
the panel shows the gate's message first, then what it approves (the output
of the step before it, as readable text -- never raw JSON, never the run id),
a payload box when the kind takes one (input, review), and Approve / Reject.  Answering goes through the same
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
from relavium_desktop.ui.theme import set_surface, set_tone
from relavium_desktop.ui.untrusted import fill_shown, set_shown


class GatePanel(QWidget):
    # run id, gate id, GateDecision
    decided = Signal(str, str, object)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("gatePanel")
        self.run_id: str | None = None
        self.gate: JsonDict | None = None
        self.title = QLabel("")
        self.title.setObjectName("gateTitle")
        self.title.setWordWrap(True)
        set_tone(self.title, "muted")
        self.message = QLabel("")
        self.message.setObjectName("gateMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_tone(self.message, "heading")
        self.review_heading = QLabel("What you are approving")
        set_tone(self.review_heading, "muted")
        self.review = QPlainTextEdit()
        self.review.setObjectName("gateReview")
        self.review.setReadOnly(True)
        self.review.setMaximumHeight(160)
        set_surface(self.review, "card")
        self.payload = QPlainTextEdit()
        self.payload.setObjectName("gatePayload")
        self.payload.setPlaceholderText("Your input (JSON, or plain text)")
        self.payload.setMaximumHeight(90)
        self.comment = QLineEdit()
        self.comment.setPlaceholderText("Comment (optional, kept in the run's history)")
        self.approve_button = QPushButton("Approve")
        self.reject_button = QPushButton("Reject")
        for b in (self.approve_button, self.reject_button):
            b.setAutoDefault(False)
        self.approve_button.clicked.connect(lambda: self._answer(True))
        self.reject_button.clicked.connect(lambda: self._answer(False))
        self.status = QLabel("")
        self.status.setObjectName("gateStatus")
        self.status.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.approve_button)
        row.addWidget(self.reject_button)
        row.addWidget(self.status, 1)
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
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
        self.title.setText(f"Waiting at {show_line(str(gate.get('nodeId')))} ({show_line(kind)}){when}")
        if isinstance(expires, int | float):
            self.title.setToolTip(f"Times out {full_local(expires)}")
        # The author's message and the run's data: shown by the display rule, markers styled.
        set_shown(self.message, show(mask_text(str(gate.get("message") or "Approve to continue.")), "block"))
        fill_shown(self.review, review)
        self.review.setVisible(bool(review))
        self.review_heading.setVisible(bool(review))
        self.payload.clear()
        self.payload.setVisible(kind in ("input", "review"))
        self.comment.clear()
        self.status.setText("")
        self.set_busy(False)
        self.show()

    def clear_gate(self) -> None:
        self.run_id = None
        self.gate = None
        self.hide()

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
