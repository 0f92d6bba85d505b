""""Delete this chat?" -- a session's transcript is gone for good once deleted.

A plain Qt dialog (not a native one), opened window-modal with ``open()`` so
the qasync loop keeps running while it waits.  Cancel is the default button
and Esc cancels: a stray Enter never deletes anything.
"""

from __future__ import annotations

from relavium_desktop.engine.display_text import show_line
from relavium_desktop.ui.qt import QDialog, QHBoxLayout, QLabel, QPushButton, Qt, QVBoxLayout, QWidget, Signal


class ConfirmDeleteDialog(QDialog):
    confirmed = Signal(str)  # session id

    def __init__(self, session_id: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session_id = session_id
        self.setObjectName("confirmDeleteDialog")
        self.setWindowTitle("Delete chat?")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.message = QLabel(
            f"Delete “{show_line(title)}” and its whole transcript? This cannot be undone."
        )
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.delete_button = QPushButton("Delete")
        self.delete_button.setObjectName("confirmDeleteButton")
        self.delete_button.setAutoDefault(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setDefault(True)
        self.delete_button.clicked.connect(self._confirm)
        self.cancel_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.delete_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addLayout(buttons)

    def _confirm(self) -> None:
        self.accept()
        self.confirmed.emit(self.session_id)
