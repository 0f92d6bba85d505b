"""A fenced code block in the transcript: language, highlighted code, a Copy button.

Copy puts the exact code on the clipboard (the fence's content, not the
rendered text), which is what a person pastes into a terminal or editor.
While an answer streams, an unclosed fence is one of these growing a line at
a time (``set_code``): it is never shown as raw backticks.
"""

from __future__ import annotations

from typing import Any

from relavium_desktop.ui.chat import look
from relavium_desktop.ui.chat.highlight import highlight_html
from relavium_desktop.ui.chat.rich_text import FittedText
from relavium_desktop.ui.qt import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    Qt,
    QTimer,
    QToolButton,
    QVBoxLayout,
)
from relavium_desktop.ui.theme import set_variant
from relavium_desktop.ui.theme.tokens import SPACE_1, SPACE_2, SPACE_3

COPIED_MS = 1_500


class CodeBlock(QFrame):
    def __init__(self, code: str, language: str = "", *, theme: Any = None, filename: str = "") -> None:
        super().__init__()
        self.setObjectName("codeBlock")
        self.code = code
        self.language = language
        self._filename = filename
        self._theme = theme
        look.surface(self, "code")
        self.setAccessibleName(f"{language} code" if language else "Code")
        self.caption = QLabel(language or filename or "code")
        set_variant(self.caption, "caption")
        look.tone(self.caption, "muted")
        self.copy_button = QToolButton()
        self.copy_button.setObjectName("copyCode")
        self.copy_button.setText("Copy")
        self.copy_button.setToolTip("Copy this code")
        self.copy_button.setAccessibleName("Copy code")
        self.copy_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.copy_button.setAutoRaise(True)
        set_variant(self.copy_button, "ghost")
        self.copy_button.clicked.connect(self.copy)
        self._reset = QTimer(self)
        self._reset.setSingleShot(True)
        self._reset.setInterval(COPIED_MS)
        self._reset.timeout.connect(lambda: self.copy_button.setText("Copy"))
        self.view = FittedText(wrap=False)
        self.view.setObjectName("codeText")
        self.view.setAccessibleName("Code")
        set_variant(self.view, "mono")
        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.caption)
        header.addStretch(1)
        header.addWidget(self.copy_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(SPACE_3, SPACE_1, SPACE_2, SPACE_2)
        layout.setSpacing(SPACE_1)
        layout.addLayout(header)
        layout.addWidget(self.view)
        self.repaint_theme()

    def set_code(self, code: str) -> None:
        """Show ``code`` instead (a streaming fence that grew), highlighted again."""
        if code != self.code:
            self.code = code
            self._highlight()

    def repaint_theme(self) -> None:
        """Highlight again with the current palette's style (after a light/dark switch)."""
        self._highlight()

    def _highlight(self) -> None:
        style = look.code_style(self._theme)
        colour = look.palette_of(self._theme)["code_text"]
        self.view.setHtml(
            highlight_html(self.code, self.language, style=style, filename=self._filename, colour=colour)
        )

    def copy(self) -> None:
        QApplication.clipboard().setText(self.code)
        self.copy_button.setText("Copied")
        self._reset.start()

    def plain_text(self) -> str:
        return self.code
