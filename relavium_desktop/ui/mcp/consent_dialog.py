"""Consent before a workflow's own MCP server starts: what exactly would run, in which folder.

A stdio server named in a workflow or agent file is a program that file
wants to start on this computer with the user's rights; the user's own
``mcp.yaml`` is their intent, a downloaded workflow is not.  So before the
first start the user sees everything that decides what runs -- the command,
each argument, the names of the variables set (never their values: they may
be secrets), the working folder -- and the fingerprint of exactly that.  When
an earlier consent for this server exists under another fingerprint the
dialog says so first: the file changed what it runs since it was allowed.

Refusing is the default: no button is the default button, Enter does
nothing, and Esc or closing the window refuses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.ui.mcp.decision_dialog import DecisionDialog
from relavium_desktop.ui.qt import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
)
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.fonts import mono_font
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_4

if TYPE_CHECKING:
    from relavium_desktop.application.mcp_requests import ConsentRequest

SHORT_FINGERPRINT = 12


# What each sandbox mode lets the server do, in words (the mode itself is decided by its entry).
SANDBOX_WORDS = {
    "strict": "Strict: writes only its working folder and a private temporary folder; no network",
    "network": "Network: as strict, plus network access",
    "off": "Off: runs unconfined, with all of your rights (your files, keys and the network)",
}

def short_fingerprint(fingerprint: str) -> str:
    return fingerprint[:SHORT_FINGERPRINT] + ("…" if len(fingerprint) > SHORT_FINGERPRINT else "")


def _selectable(text: str, *, mono: bool = False) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if mono:
        label.setFont(mono_font())
    return label


class ConsentDialog(DecisionDialog):

    def __init__(
        self,
        request: ConsentRequest,
        *,
        project: str = "",
        previous_fingerprint: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.request = request
        self.setObjectName("mcpConsentDialog")
        self.setWindowTitle(f"Start the MCP server “{request.server}”?")
        self.resize(620, 480)

        headline = QLabel(f"Start the MCP server “{request.server}”?")
        headline.setObjectName("consentQuestion")
        headline.setWordWrap(True)
        set_variant(headline, "title")
        set_tone(headline, "heading")
        why = QLabel(
            "A workflow or agent file declares this server. Starting it runs the program below on this "
            "computer, with your permissions. Start it only if you trust where that file came from."
        )
        why.setWordWrap(True)
        set_tone(why, "muted")

        self.changed_banner = QLabel()
        self.changed_banner.setObjectName("consentChanged")
        self.changed_banner.setWordWrap(True)
        self.changed_banner.setTextFormat(Qt.TextFormat.PlainText)
        set_surface(self.changed_banner, "banner-warning")
        self.changed_banner.setVisible(previous_fingerprint is not None)
        if previous_fingerprint is not None:
            self.changed_banner.setText(
                "What this server runs changed since you allowed it (fingerprint "
                f"{short_fingerprint(previous_fingerprint)} then, {short_fingerprint(request.fingerprint)} now). "
                "Check the command, arguments and folder again before starting it."
            )

        self.command_label = _selectable(request.command, mono=True)
        self.command_label.setObjectName("consentCommand")
        set_surface(self.command_label, "code")
        self.args_view = QPlainTextEdit()
        self.args_view.setObjectName("consentArgs")
        self.args_view.setReadOnly(True)
        self.args_view.setFont(mono_font())
        self.args_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        # One argument per line: a space inside an argument stays visible as what it is.
        self.args_view.setPlainText("\n".join(request.args) if request.args else "(none)")
        self.args_view.setMaximumHeight(120)
        set_surface(self.args_view, "code")
        self.env_label = _selectable(", ".join(request.env_names) if request.env_names else "(none)", mono=True)
        self.env_label.setObjectName("consentEnv")
        self.cwd_label = _selectable(request.cwd, mono=True)
        self.cwd_label.setObjectName("consentCwd")
        self.fingerprint_label = _selectable(short_fingerprint(request.fingerprint), mono=True)
        self.fingerprint_label.setToolTip(request.fingerprint)
        set_tone(self.fingerprint_label, "muted")

        form = QFormLayout()
        form.addRow("Command:", self.command_label)
        form.addRow("Arguments:", self.args_view)
        form.addRow("Variables set:", self.env_label)
        form.addRow("Working folder:", self.cwd_label)
        self.sandbox_label = QLabel(SANDBOX_WORDS.get(request.sandbox, request.sandbox))
        self.sandbox_label.setObjectName("consentSandbox")
        self.sandbox_label.setWordWrap(True)
        if request.sandbox == "off":
            set_tone(self.sandbox_label, "danger")
        form.addRow("Sandbox:", self.sandbox_label)
        # Details (collapsed): the project path and the launch's fingerprint -- identifiers, not words.
        self.details_toggle = QPushButton("Show details")
        self.details_toggle.setCheckable(True)
        self.details_toggle.setAutoDefault(False)
        set_variant(self.details_toggle, "ghost")
        self.details = QWidget()
        self.details.setObjectName("details")
        self.details.setProperty("details", True)
        details_form = QFormLayout(self.details)
        details_form.setContentsMargins(0, 0, 0, 0)
        if project:
            details_form.addRow("Project:", _selectable(project))
        details_form.addRow("Fingerprint:", self.fingerprint_label)
        self.details.setVisible(False)
        self.details_toggle.toggled.connect(self._show_details)

        remember = QLabel("Your answer is remembered for this project until this server's launch changes. "
                          "Settings → MCP servers lists it, with Revoke.")
        remember.setWordWrap(True)
        set_tone(remember, "muted")

        self.start_button = QPushButton("Start server")
        self.start_button.setObjectName("consentStart")
        self.refuse_button = QPushButton("Don’t start")
        self.refuse_button.setObjectName("consentRefuse")
        for b in (self.start_button, self.refuse_button):
            b.setAutoDefault(False)
            b.setDefault(False)
        set_variant(self.start_button, "primary")  # the one primary button of the sheet
        set_variant(self.refuse_button, "secondary")
        self.start_button.clicked.connect(lambda: self._decide(True))
        self.refuse_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.refuse_button)
        buttons.addWidget(self.start_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)
        layout.setSpacing(SPACE_4)
        set_surface(self, "sheet")
        layout.addWidget(headline)
        layout.addWidget(why)
        layout.addWidget(self.changed_banner)
        layout.addLayout(form)
        toggle_row = QHBoxLayout()
        toggle_row.addWidget(self.details_toggle)
        toggle_row.addStretch(1)
        layout.addLayout(toggle_row)
        layout.addWidget(self.details)
        layout.addStretch(1)
        layout.addWidget(remember)
        layout.addLayout(buttons)
        self.refuse_button.setFocus()

    def _show_details(self, shown: bool) -> None:
        self.details.setVisible(shown)
        self.details_toggle.setText("Hide details" if shown else "Show details")

    @property
    def allowed(self) -> bool | None:
        return self.answer
