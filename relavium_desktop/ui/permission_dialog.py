"""The permission dialog: the desktop host's answer to an approval request.

It shows only what the engine put in the (already masked) request -- tool,
action class, target preview, masked arguments -- plus, for ``write_file``,
a masked unified diff the controller prepared.  It never accepts by itself:
no button is a default button, Enter/Return are swallowed, and closing it
any other way (Esc, the window's close button) is a denial.
"""

from __future__ import annotations

import json

from relavium_desktop.engine.tools.masking import mask_text, mask_value
from relavium_desktop.engine.tools.tooldef import ApprovalDecision, ApprovalRequest
from relavium_desktop.ui.qt import (
    QCloseEvent,
    QDialog,
    QFontDatabase,
    QFormLayout,
    QHBoxLayout,
    QKeyEvent,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)

ARGS_PREVIEW_CHARS = 8_000
ACTION_WORDS = {
    "fs_write": "write a file",
    "process": "run a program",
    "egress": "connect to the network",
    "os": "use the desktop (clipboard, notifications)",
    "read": "read",
}


class PermissionDialog(QDialog):
    decided = Signal(object)  # ApprovalDecision

    def __init__(
        self,
        request: ApprovalRequest,
        *,
        project: str,
        diff: str | None,
        grant_label: str | None,
        protected: bool,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.request = request
        self.decision: ApprovalDecision | None = None
        self.setObjectName("permissionDialog")
        self.setWindowTitle(f"Allow {request.tool_id}?")
        self.resize(640, 560 if diff is not None else 420)

        heading = QLabel(f"An agent wants to {ACTION_WORDS.get(str(request.action_class), 'act')}.")
        heading.setWordWrap(True)
        font = heading.font()
        font.setBold(True)
        heading.setFont(font)

        form = QFormLayout()
        self.tool_label = QLabel(request.tool_id)
        self.class_label = QLabel(str(request.action_class))
        self.target_label = QLabel(mask_text(request.target) or "—")
        self.target_label.setWordWrap(True)
        self.target_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow("Tool:", self.tool_label)
        form.addRow("Action:", self.class_label)
        form.addRow("Target:", self.target_label)
        if project:
            form.addRow("Project:", QLabel(project))

        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.args_view = QPlainTextEdit()
        self.args_view.setReadOnly(True)
        self.args_view.setFont(mono)
        # The engine already masked these; masking again costs nothing and keeps
        # the dialog safe even for a hook caller that forgot.
        rendered = json.dumps(mask_value(request.masked_args), indent=2, ensure_ascii=False, default=str)
        if len(rendered) > ARGS_PREVIEW_CHARS:
            rendered = rendered[:ARGS_PREVIEW_CHARS] + "\n… (arguments clipped)"
        self.args_view.setPlainText(rendered)

        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addLayout(form)
        layout.addWidget(QLabel("Arguments (credentials masked):"))
        layout.addWidget(self.args_view, 1)

        self.diff_view: QPlainTextEdit | None = None
        if diff is not None:
            self.diff_view = QPlainTextEdit()
            self.diff_view.setObjectName("diffView")
            self.diff_view.setReadOnly(True)
            self.diff_view.setFont(mono)
            self.diff_view.setPlainText(diff)
            layout.addWidget(QLabel("Change:"))
            layout.addWidget(self.diff_view, 2)

        if protected:
            warn = QLabel("This is a protected path: it always asks, and cannot be allowed for longer.")
            warn.setWordWrap(True)
            warn.setObjectName("protectedWarning")
            layout.addWidget(warn)

        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Reason for denying (optional, told to the agent)")
        layout.addWidget(self.reason)

        self.once_button = QPushButton("Allow once")
        self.session_button = QPushButton("Allow for this session")
        self.project_button = QPushButton("Always allow in this project")
        self.deny_button = QPushButton("Deny")
        if grant_label:
            self.project_button.setToolTip(f"Remembered for this project: {grant_label}")
        else:
            self.project_button.setEnabled(False)
            self.project_button.setToolTip("This action cannot be allowed permanently; it will always ask.")
        if protected or not project:
            self.project_button.setEnabled(False)
        if protected:
            self.session_button.setEnabled(False)
        buttons = QHBoxLayout()
        for b in (self.once_button, self.session_button, self.project_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.deny_button)
        layout.addLayout(buttons)
        for b in (self.once_button, self.session_button, self.project_button, self.deny_button):
            b.setAutoDefault(False)
            b.setDefault(False)
        self.once_button.clicked.connect(lambda: self.answer(ApprovalDecision(True, "once")))
        self.session_button.clicked.connect(lambda: self.answer(ApprovalDecision(True, "session")))
        self.project_button.clicked.connect(lambda: self.answer(ApprovalDecision(True, "project")))
        self.deny_button.clicked.connect(self.reject)
        # Focus starts on the reason field: a stray key press types, it never approves.
        self.reason.setFocus()

    def answer(self, decision: ApprovalDecision) -> None:
        if self.decision is not None:
            return
        self.decision = decision
        self.decided.emit(decision)
        self.done(QDialog.DialogCode.Accepted if decision.approved else QDialog.DialogCode.Rejected)

    def reject(self) -> None:
        """Esc, Deny and closing the window all deny."""
        if self.decision is None:
            reason = self.reason.text().strip() or None
            self.answer(ApprovalDecision(False, "once", reason))
            return
        super().reject()

    def done(self, code: int) -> None:
        if self.decision is None:  # e.g. the parent window closed under it
            self.decision = ApprovalDecision(False, "once", None)
            self.decided.emit(self.decision)
        super().done(code)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()  # never approve (or deny) on Enter
            return
        super().keyPressEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.decision is None:
            self.reject()
        super().closeEvent(event)
