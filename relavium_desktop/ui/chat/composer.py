"""The message box: Enter sends, Shift+Enter starts a new line; images and files become attachments.

Paste (Ctrl+V) with an image on the clipboard, or a drop of files, is
handed to the attachment strip (``attachments.py``) as a signal instead of
being inserted as text: the composer only recognises what arrived, the
strip publishes and checks it.  Clipboard content that carries plain text
too (a spreadsheet copy offers both) pastes as text, which is what the user
most likely meant.
"""

from __future__ import annotations

from collections.abc import Callable

from relavium_desktop.ui.qt import (
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QImage,
    QKeyEvent,
    QMimeData,
    QPlainTextEdit,
    Qt,
    Signal,
)

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
        self.setPlaceholderText("Message the agent — Enter to send, Shift+Enter for a new line, "
                                "paste or drop an image to attach it")
        self.setMaximumHeight(110)
        self.setTabChangesFocus(True)
        # True when attachments wait to be sent: Enter then sends even without text.
        self.has_attachments: Callable[[], bool] = lambda: False

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
