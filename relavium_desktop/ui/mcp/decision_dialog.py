"""A yes/no question a server put to the user, answered exactly once.

The consent and sampling dialogs both start something on the user's behalf,
so they share the rules that make that safe: Enter never says yes (a stray
keypress must not start a server or spend tokens), closing the window or
Escape is a no, and the first answer is final -- a second click or a
``done`` from elsewhere cannot flip it.
"""

from __future__ import annotations

from relavium_desktop.ui.qt import QDialog, QKeyEvent, Qt, QWidget, Signal


class DecisionDialog(QDialog):
    decided = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.answer: bool | None = None

    def _decide(self, yes: bool) -> None:
        if self.answer is not None:
            return
        self.answer = yes
        self.decided.emit(yes)
        super().done(QDialog.DialogCode.Accepted if yes else QDialog.DialogCode.Rejected)

    def reject(self) -> None:
        self._decide(False)

    def done(self, code: int) -> None:
        if self.answer is None:
            self._decide(False)
            return
        super().done(code)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()
            return
        super().keyPressEvent(event)
