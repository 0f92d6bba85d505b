"""The message box: Enter sends, Shift+Enter starts a new line; images and files become attachments.

Paste (Ctrl+V) with an image on the clipboard, or a drop of files, is
handed to the attachment strip (``attachments.py``) as a signal instead of
being inserted as text: the composer only recognises what arrived, the
strip publishes and checks it.  Clipboard content that carries plain text
too (a spreadsheet copy offers both) pastes as text, which is what the user
most likely meant.

:class:`ComposerCard` is the design's composer: the message box on a card
with a row of controls under it (attach, the agent, the model chip, the round
send button that Stop replaces while a turn runs), and :class:`HintRow` the
line beneath it (keyboard hints on the left, the chat's usage on the right).
"""

from __future__ import annotations

from collections.abc import Callable

from relavium_desktop.ui.qt import (
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QFrame,
    QHBoxLayout,
    QImage,
    QKeyEvent,
    QLabel,
    QMimeData,
    QPlainTextEdit,
    QSize,
    QSizePolicy,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.theme import set_surface, set_variant
from relavium_desktop.ui.theme.tokens import SPACE_1, SPACE_2, SPACE_3

PLACEHOLDER = "Reply, or drop a file or screenshot…"
SEND_PX = 32  # the round send (and stop) button

_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


def local_files(source: QMimeData) -> list[str]:
    """The local file paths a paste or a drop carries (URLs of other schemes are not files)."""
    if not source.hasUrls():
        return []
    return [url.toLocalFile() for url in source.urls() if url.isLocalFile() and url.toLocalFile()]


def _image_only(source: QMimeData) -> bool:
    return source.hasImage() and not source.hasText()


class Composer(QPlainTextEdit):
    submitted = Signal(str)
    image_pasted = Signal(QImage)
    files_dropped = Signal(list)  # local paths

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("composer")
        self.setPlaceholderText(PLACEHOLDER)
        self.setAccessibleName("Message")
        self.setAccessibleDescription("Enter sends, Shift+Enter starts a new line; paste or drop an image to attach it")
        self.setMaximumHeight(110)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setTabChangesFocus(True)
        # True when attachments wait to be sent: Enter then sends even without text.
        self.has_attachments: Callable[[], bool] = lambda: False

    def sizeHint(self) -> QSize:
        """Two lines tall at rest (the design's composer); a longer message scrolls inside it."""
        hint = super().sizeHint()
        margins = self.contentsMargins()
        lines = 2 * self.fontMetrics().lineSpacing() + 2 * int(self.document().documentMargin())
        return QSize(hint.width(), lines + margins.top() + margins.bottom())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in _ENTER and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            text = self.toPlainText().strip()
            if (text or self.has_attachments()) and self.isEnabled():
                self.submitted.emit(text)
            event.accept()
            return
        if event.key() in _ENTER:
            # Shift+Enter: a plain newline (QPlainTextEdit would insert a line separator).
            self.insertPlainText("\n")
            event.accept()
            return
        super().keyPressEvent(event)

    # -- paste and drop -----------------------------------------------------------------

    def _attaches(self, source: QMimeData, *, dropped: bool) -> bool:
        if _image_only(source):
            return True
        files = local_files(source)
        if dropped:
            return bool(files)
        from relavium_desktop.ui.chat.attachments import ATTACHABLE_SUFFIXES

        # A pasted file list (copied in a file manager) attaches only when it is all media.
        return bool(files) and all(f.lower().endswith(tuple(ATTACHABLE_SUFFIXES)) for f in files)

    def _attach(self, source: QMimeData) -> None:
        files = local_files(source)
        if files:
            self.files_dropped.emit(files)
        else:
            self.image_pasted.emit(QImage(source.imageData()))

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return self._attaches(source, dropped=False) or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        if self._attaches(source, dropped=False):
            self._attach(source)
            return
        super().insertFromMimeData(source)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._attaches(event.mimeData(), dropped=True):
            event.acceptProposedAction()
            return
        super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if self._attaches(event.mimeData(), dropped=True):
            event.acceptProposedAction()
            return
        super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        if self._attaches(event.mimeData(), dropped=True):
            self._attach(event.mimeData())
            event.acceptProposedAction()
            return
        super().dropEvent(event)


class ComposerCard(QFrame):
    """The message box on the composer surface, its controls in one row beneath it.

    ``controls`` sit left (attach, agent, model chip); ``trailing`` sit right
    (an MCP resource button, then send and stop).  The card only lays them out:
    the chat view owns what they do.
    """

    def __init__(self, composer: Composer, controls: list[QWidget], trailing: list[QWidget]) -> None:
        super().__init__()
        self.setObjectName("composerCard")
        set_surface(self, "composer")
        # The text box sits on the card with no box of its own (no colour here: the card gives it).
        self.setStyleSheet("QPlainTextEdit#composer { background: transparent; border: none; }")
        self.composer = composer
        column = QVBoxLayout(self)
        column.setContentsMargins(SPACE_3, SPACE_2, SPACE_2, SPACE_2)
        column.setSpacing(SPACE_1)
        column.addWidget(composer)
        self.row = QHBoxLayout()
        self.row.setSpacing(SPACE_2)
        for widget in controls:
            self.row.addWidget(widget)
        self.row.addStretch(1)
        self._trailing_at = self.row.count()
        for widget in trailing:
            self.row.addWidget(widget)
        column.addLayout(self.row)

    def add_trailing(self, widget: QWidget) -> None:
        """A control that arrives later (the MCP resource button), placed before send and stop."""
        self.row.insertWidget(self._trailing_at, widget)
        self._trailing_at += 1


class HintRow(QWidget):
    """Under the composer: "Enter send · Shift Enter new line" on the left, ``usage`` on the right."""

    def __init__(self, usage: QLabel) -> None:
        super().__init__()
        self.setObjectName("composerHints")
        row = QHBoxLayout(self)
        row.setContentsMargins(SPACE_1, 0, SPACE_1, 0)
        row.setSpacing(SPACE_1)
        self.keys: list[QLabel] = []
        for key, does in (("Enter", "send ·"), ("Shift Enter", "new line")):
            kbd = QLabel(key)
            set_variant(kbd, "kbd")
            words = QLabel(does)
            set_variant(words, "caption")
            row.addWidget(kbd)
            row.addWidget(words)
            self.keys.append(kbd)
        row.addStretch(1)
        set_variant(usage, "caption")
        row.addWidget(usage)
        self.usage = usage

    def text(self) -> str:
        """The row as read aloud (tests)."""
        return " ".join(label.text() for label in self.findChildren(QLabel))
