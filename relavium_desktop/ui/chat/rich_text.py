"""Read-only rich text that grows with its content and opens only web links.

A transcript is one scroll area: a text view that scrolled on its own
inside it would trap the wheel, so each view is as tall as its document.
Links in model text are untrusted; a click opens the link in the browser
only when it is http(s), anything else does nothing (it stays text).
"""

from __future__ import annotations

from relavium_desktop.ui.chat.markdown import is_safe_link
from relavium_desktop.ui.qt import QDesktopServices, QFrame, QSizePolicy, Qt, QTextBrowser, QUrl


class FittedText(QTextBrowser):
    """A QTextBrowser without its own vertical scrolling; ``wrap=False`` keeps code lines whole."""

    def __init__(self, *, wrap: bool = True) -> None:
        super().__init__()
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(open_web_link)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        if wrap:
            self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        else:
            self.setLineWrapMode(QTextBrowser.LineWrapMode.NoWrap)
            self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
            self.horizontalScrollBar().rangeChanged.connect(self._fit)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self._fit()

    def _fit(self, *_: object) -> None:
        margins = self.contentsMargins()  # the frame and any stylesheet padding
        height = int(self.document().size().height()) + margins.top() + margins.bottom() + 4
        bar = self.horizontalScrollBar()
        if self.lineWrapMode() == QTextBrowser.LineWrapMode.NoWrap and bar.maximum() > 0:
            height += bar.sizeHint().height()
        self.setFixedHeight(max(height, 18))


def open_web_link(url: QUrl) -> None:
    """Open ``url`` in the user's browser when it is a web link; ignore anything else."""
    text = url.toString()
    if is_safe_link(text):
        QDesktopServices.openUrl(url)
