"""The Providers page's warning that keys cannot be saved: a sentence first, the fix on request.

The keyring's own error names backend classes, environment variables and a
``dbus-run-session`` command: right for someone fixing their session, a wall
of jargon for everyone else.  So the banner leads with what it means for the
person (keys are not saved, a pasted key is not kept) and keeps the keyring's
text, already masked by ``ui/error_text``, in a "How to fix" part that opens
on demand and is marked as details.
"""

from __future__ import annotations

from relavium_desktop.ui.qt import QFrame, QHBoxLayout, QLabel, QPushButton, Qt, QVBoxLayout
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.tokens import SPACE_1, SPACE_2

HEADLINE = "Your system keyring isn't available, so API keys can't be saved. Keys you paste are not kept."
SHOW_FIX = "How to fix"
HIDE_FIX = "Hide how to fix"


class KeyringBanner(QFrame):
    """A warning banner: ``show_problem(detail)`` shows it with the keyring's steps folded away."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("keyringBanner")
        set_surface(self, "banner-warning")
        self.headline = QLabel(HEADLINE)
        self.headline.setObjectName("keyringHeadline")
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(Qt.TextFormat.PlainText)
        self.fix_toggle = QPushButton(SHOW_FIX)
        self.fix_toggle.setObjectName("keyringHowToFix")
        self.fix_toggle.setCheckable(True)
        self.fix_toggle.setAutoDefault(False)
        self.fix_toggle.setAccessibleName("How to fix the keyring")
        set_variant(self.fix_toggle, "ghost")
        self.fix_toggle.toggled.connect(self._show_fix)
        self.details = QLabel()  # the keyring's words: backends, variables, commands
        self.details.setObjectName("details")
        self.details.setProperty("details", True)
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setAccessibleName("How to fix the keyring: details")
        set_tone(self.details, "muted")
        self.details.setVisible(False)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(SPACE_2)
        row.addWidget(self.headline, 1)
        row.addWidget(self.fix_toggle, 0, Qt.AlignmentFlag.AlignTop)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)  # the banner surface's padding is the theme's
        column.setSpacing(SPACE_1)
        column.addLayout(row)
        column.addWidget(self.details)
        self.setVisible(False)

    def show_problem(self, detail: str) -> None:
        """Show the banner; ``detail`` (already secret-free) is what "How to fix" opens."""
        self.details.setText(detail)
        self.fix_toggle.setChecked(False)
        self.fix_toggle.setVisible(bool(detail.strip()))
        self.setVisible(True)

    def clear(self) -> None:
        self.fix_toggle.setChecked(False)
        self.setVisible(False)

    def text(self) -> str:
        """Everything the banner can show, headline then the fix (what a reader could reach)."""
        return f"{self.headline.text()}\n{self.details.text()}".strip()

    def _show_fix(self, shown: bool) -> None:
        self.details.setVisible(shown)
        self.fix_toggle.setText(HIDE_FIX if shown else SHOW_FIX)
