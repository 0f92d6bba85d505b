"""Error banners that name the problem and offer the action that fixes it.

A failed turn carries a fixed error code (ARCHITECTURE.md); each code maps
to a sentence a user can act on and, where one exists, a button that goes
there -- a missing or rejected key opens Settings → Providers, a rate limit
or an unreachable server offers to send the message again.  The engine's
message (already secret-free, but written for logs: it may name a tool id
or a setting key) sits in a collapsed "Show details" part under the
headline, shown through ``ui/error_text``, the one way error text reaches
the screen (masked, clipped, display rule).  The headline is always a
sentence for people.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from relavium_desktop.ui.error_text import error_text, error_words
from relavium_desktop.ui.qt import QHBoxLayout, QLabel, QPushButton, Qt, QVBoxLayout, QWidget, Signal
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.tokens import SPACE_1, SPACE_2, SPACE_3

ACTION_ADD_KEY = "add_key"
ACTION_PROVIDERS = "providers"
ACTION_RETRY = "retry"


class BannerText(NamedTuple):
    headline: str
    button: str | None
    action: str | None


def describe(code: str) -> BannerText:
    if code == "provider_auth":
        return BannerText("The provider rejected the API key, or none is set.", "Add an API key", ACTION_ADD_KEY)
    if code == "provider_rate_limit":
        return BannerText("The provider is rate-limiting requests. Wait a moment and try again.", "Try again",
                          ACTION_RETRY)
    if code == "provider_unavailable":
        return BannerText("The provider could not be reached or is having trouble.", "Try again", ACTION_RETRY)
    if code == "validation":
        return BannerText("The provider settings are not usable as they are.", "Open provider settings",
                          ACTION_PROVIDERS)
    if code == "content_filter":
        return BannerText("The provider refused to answer this message (content filter).", None, None)
    if code == "turn_limit":
        return BannerText("The agent used all its tool turns without finishing.", "Continue", ACTION_RETRY)
    if code == "tool_denied":
        return BannerText("A tool call was refused, so the agent stopped.", None, None)
    return BannerText(error_words(code), None, None)  # a sentence for every code; never the code itself


class ErrorBanner(QWidget):
    action_requested = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("errorBanner")
        set_surface(self, "banner-danger")
        self.code = ""
        self.action: str | None = None
        self.label = QLabel()  # the headline: a sentence, never a code or an id
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        # The engine's message, collapsed: words for logs (ids, keys), marked as details.
        self.details_toggle = QPushButton("Show details")
        self.details_toggle.setCheckable(True)
        self.details_toggle.setAutoDefault(False)
        set_variant(self.details_toggle, "ghost")
        self.details_toggle.toggled.connect(self._show_details)
        self.details = QLabel()
        self.details.setObjectName("details")
        self.details.setProperty("details", True)
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_variant(self.details, "mono")
        set_tone(self.details, "muted")
        self.details.setVisible(False)
        self.button = QPushButton()
        self.button.setAutoDefault(False)
        set_variant(self.button, "primary")  # the banner's one way forward
        self.button.clicked.connect(lambda: self.action_requested.emit(self.action or ""))
        self.dismiss = QPushButton("Dismiss")
        self.dismiss.setAutoDefault(False)
        set_variant(self.dismiss, "ghost")
        self.dismiss.clicked.connect(self.hide)
        column = QVBoxLayout(self)
        column.setContentsMargins(SPACE_3, SPACE_2, SPACE_2, SPACE_2)
        column.setSpacing(SPACE_1)
        row = QHBoxLayout()
        row.setSpacing(SPACE_2)
        row.addWidget(self.label, 1)
        row.addWidget(self.details_toggle)
        row.addWidget(self.button)
        row.addWidget(self.dismiss)
        column.addLayout(row)
        column.addWidget(self.details)
        self.setVisible(False)

    def _show_details(self, shown: bool) -> None:
        self.details.setVisible(shown)
        self.details_toggle.setText("Hide details" if shown else "Show details")

    def show_error(self, error: dict[str, Any]) -> None:
        self.code = str(error.get("code", ""))
        text = describe(self.code)
        if error.get("reason") == "empty_answer":  # reached, answered nothing: not "could not be reached"
            text = BannerText("The model returned an empty answer.", "Try again", ACTION_RETRY)
        detail = error_text(str(error.get("message", "")), limit=400, mode="block")
        self.label.setText(f"<b>{_escape(text.headline)}</b>")
        self.details.setText(detail)
        self.details_toggle.setChecked(False)
        self.details_toggle.setVisible(bool(detail.strip()))
        self.action = text.action
        self.button.setText(text.button or "")
        self.button.setVisible(text.button is not None)
        self.setVisible(True)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
