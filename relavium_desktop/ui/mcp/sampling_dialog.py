"""Approving an MCP server's sampling request: it wants an answer from *your* model, on your account.

A server with ``allowSampling: true`` may ask the client to run a
completion.  That spends the user's tokens and sends the server's text to
their provider, so each request is shown first: which server, the messages
as they would be sent, the system prompt, the model and the token ceiling.
Refusing is the default (Esc, closing, Enter does nothing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.engine.display_text import show_line
from relavium_desktop.ui.mcp.decision_dialog import DecisionDialog
from relavium_desktop.ui.qt import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    Qt,
    QTextOption,
    QVBoxLayout,
    QWidget,
)
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_4

if TYPE_CHECKING:
    from relavium_desktop.application.mcp_requests import SamplingRequest

PREVIEW_CHARS = 20_000
ROLE_NAMES = {"user": "User", "assistant": "Assistant"}


def transcript(request: SamplingRequest) -> str:
    """The messages as a person reads them: a role line, then the text."""
    parts = [f"{ROLE_NAMES.get(role, role.capitalize())}:\n{text}" for role, text in request.messages]
    text = "\n\n".join(parts) or "(no messages)"
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + "\n… (clipped)"


class SamplingDialog(DecisionDialog):

    def __init__(self, request: SamplingRequest, *, model: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.setObjectName("mcpSamplingDialog")
        self.setWindowTitle(f"{request.server} asks your model")
        self.resize(620, 520)

        headline = QLabel(f"Let “{show_line(request.server)}” ask your model for an answer?")
        headline.setObjectName("samplingQuestion")
        headline.setWordWrap(True)
        set_variant(headline, "title")
        set_tone(headline, "heading")
        why = QLabel("Answering sends these messages to your model provider and uses your tokens. "
                     "The server sees the answer.")
        why.setWordWrap(True)
        set_tone(why, "muted")

        form = QFormLayout()
        self.model_label = QLabel(model or "no model chosen: pick one in the chat first")
        self.model_label.setObjectName("samplingModel")
        if model is None:
            set_tone(self.model_label, "danger")
        self.max_tokens_label = QLabel(f"{request.max_tokens:,} tokens")
        self.max_tokens_label.setObjectName("samplingMaxTokens")
        form.addRow("Server:", QLabel(request.server))
        form.addRow("Model:", self.model_label)
        form.addRow("At most:", self.max_tokens_label)
        if request.system_prompt:
            system = QLabel(request.system_prompt[:2_000])
            system.setWordWrap(True)
            system.setTextFormat(Qt.TextFormat.PlainText)
            form.addRow("System prompt:", system)

        self.messages_view = QPlainTextEdit()
        self.messages_view.setObjectName("samplingMessages")
        self.messages_view.setReadOnly(True)
        self.messages_view.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.messages_view.setPlainText(transcript(request))
        set_surface(self.messages_view, "card")

        self.answer_button = QPushButton("Answer with my model")
        self.answer_button.setObjectName("samplingApprove")
        self.answer_button.setEnabled(model is not None)
        self.refuse_button = QPushButton("Refuse")
        for b in (self.answer_button, self.refuse_button):
            b.setAutoDefault(False)
            b.setDefault(False)
        set_variant(self.answer_button, "primary")  # the one primary button of the sheet
        set_variant(self.refuse_button, "secondary")
        self.answer_button.clicked.connect(lambda: self._decide(True))
        self.refuse_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.refuse_button)
        buttons.addWidget(self.answer_button)

        caption = QLabel("Messages:")
        set_tone(caption, "muted")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)
        layout.setSpacing(SPACE_4)
        set_surface(self, "sheet")
        layout.addWidget(headline)
        layout.addWidget(why)
        layout.addLayout(form)
        layout.addWidget(caption)
        layout.addWidget(self.messages_view, 1)
        layout.addLayout(buttons)
        self.refuse_button.setFocus()

    @property
    def approved(self) -> bool | None:
        return self.answer
