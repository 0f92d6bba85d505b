"""The message box: Enter sends, Shift+Enter starts a new line."""

from __future__ import annotations

from relavium_desktop.ui.qt import QKeyEvent, QPlainTextEdit, Qt, Signal

_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class Composer(QPlainTextEdit):
    submitted = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("composer")
        self.setPlaceholderText("Message the agent — Enter to send, Shift+Enter for a new line")
        self.setMaximumHeight(110)
        self.setTabChangesFocus(True)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in _ENTER and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            text = self.toPlainText().strip()
            if text and self.isEnabled():
                self.submitted.emit(text)
            event.accept()
            return
        if event.key() in _ENTER:
            # Shift+Enter: a plain newline (QPlainTextEdit would insert a line separator).
            self.insertPlainText("\n")
            event.accept()
            return
        super().keyPressEvent(event)
