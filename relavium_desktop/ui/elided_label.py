"""A one-line label that gives up width instead of taking it.

Status text (an MCP server's failure reason, a chat title) can be any length;
a plain QLabel asks for all of it and pushes the window wider than the
screen.  This one ends in "…" when squeezed and keeps the whole text for its
tooltip and for code that reads it.
"""

from __future__ import annotations

from relavium_desktop.ui.qt import QLabel, QResizeEvent, QSizePolicy, Qt


class ElidedLabel(QLabel):
    """A one-line label that ends in "…" when its text is wider than the space it gets."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self._full = text
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def full_text(self) -> str:
        return self._full

    def set_full_text(self, text: str) -> None:
        self._full = text
        self._elide()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        self.setText(self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, max(self.width(), 1)))
