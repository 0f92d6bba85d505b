"""Activity's "Undo this run's changes": what a run wrote, taken back through the undo sheet.

Shown under a selected run's headline when the run changed files that are
not undone yet ("This run changed 2 files" and the button); the button opens
the same sheet as the chat (:mod:`relavium_desktop.ui.chat.undo_flow`),
which lists each file and what will happen to it, and the line then says
what was restored.  A run that wrote nothing shows nothing here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.qt import QHBoxLayout, QLabel, QPushButton, QWidget
from relavium_desktop.ui.theme import set_tone, set_variant
from relavium_desktop.ui.theme.tokens import SPACE_2

if TYPE_CHECKING:
    from relavium_desktop.application.undo import Checkpoint, UndoService
    from relavium_desktop.ui.chat.undo_flow import UndoFlow


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


class RunUndoBar(QWidget):
    """One line: what the run changed, and "Undo this run's changes" (hidden when nothing is left to undo)."""

    def __init__(self, service: Callable[[], UndoService], *, theme: Any = None) -> None:
        super().__init__()
        self.setObjectName("runUndo")
        self._service = service
        self._theme = theme
        self.run_id: str | None = None
        self.flow: UndoFlow | None = None
        self.label = QLabel()
        self.label.setObjectName("runUndoSummary")
        self.label.setWordWrap(True)
        set_tone(self.label, "muted")
        self.button = QPushButton("Undo this run's changes")
        self.button.setObjectName("runUndoButton")
        self.button.setAccessibleName("Undo this run's changes")
        self.button.setToolTip("Put back the files this run wrote, after showing you which")
        set_variant(self.button, "secondary")
        self.button.clicked.connect(self.offer)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(SPACE_2)
        row.addWidget(self.label, 1)
        row.addWidget(self.button)
        self.hide()

    def _pending(self) -> list[Checkpoint]:
        """The run's writes that no standing undo has taken back."""
        from relavium_desktop.ui.chat.undo_sheet import undone_by

        if self.run_id is None:
            return []
        service = self._service()
        every = service.checkpoints(run=self.run_id, include_undo=True)
        undone = undone_by(every)
        return [c for c in every if c.scope != "undo" and c.id not in undone]

    def show_run(self, run_id: str, *, said: str = "") -> None:
        """Offer the undo for ``run_id`` (``said``: what the last undo did, kept on the line)."""
        self.run_id = run_id
        pending = self._pending()
        paths = {c.path for c in pending}
        self.button.setVisible(bool(pending))
        if pending:
            text = f"This run changed {_files(len(paths))}."
            self.label.setText(f"{said}. {text}" if said else text)
        else:
            self.label.setText(said)
        self.setVisible(bool(pending) or bool(said))

    def offer(self) -> None:
        from relavium_desktop.ui.chat.undo_flow import UndoFlow

        if self.flow is None:
            self.flow = UndoFlow(self._service, self, self._theme)
            self.flow.done.connect(self._done)
        self.flow.offer(self._pending())

    def _done(self, sentence: str) -> None:
        if self.run_id is not None:
            self.show_run(self.run_id, said=sentence)
