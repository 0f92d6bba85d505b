"""Taking an agent's writes back from the window: plan, confirm on the undo sheet, restore, report.

The chat (a card's Undo and Redo, "Undo changes since this message") and
Activity ("Undo this run's changes") share this flow; what a restore means
(conflicts, refusals, the undo of an undo) is the application's
``UndoService``, and this module only asks it, shows the sheet and hands the
outcome back as a sentence.  A restore is a few small file writes and
history.db rows: it runs on the GUI thread, after the person confirmed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.chat.undo_sheet import UndoSheet, restore_plan, result_sentence
from relavium_desktop.ui.qt import QObject, QWidget, Signal

if TYPE_CHECKING:
    from relavium_desktop.application.undo import Checkpoint, RestorePlan, UndoService

NOTHING = "Nothing to undo: the agent changed no files here, or its changes were already undone"


class UndoFlow(QObject):
    """One sheet at a time over ``parent``; ``done`` carries the sentence of what was restored."""

    done = Signal(str)  # "Restored 2 files" (after the person confirmed and the restore ran)

    def __init__(self, service: Callable[[], UndoService], parent: QWidget, theme: Any = None) -> None:
        super().__init__(parent)
        self._service = service
        self._parent = parent
        self._theme = theme
        self.sheet: UndoSheet | None = None

    def offer(self, checkpoints: Sequence[Checkpoint], *, verb: str = "Undo") -> UndoSheet | None:
        """Show the sheet for taking ``checkpoints`` back (None, and nothing shown, when there are none)."""
        if not checkpoints:
            return None
        service = self._service()
        plan = service.plan(checkpoints)
        if not plan.files:
            return None
        if self.sheet is not None:
            self.sheet.close()
        sheet = UndoSheet(plan, checkpoints, self._parent, theme=self._theme, verb=verb)
        sheet.confirmed.connect(lambda overwrite: self._restore(plan, overwrite))
        sheet.finished.connect(lambda _code: self._forget(sheet))
        self.sheet = sheet
        sheet.open()
        return sheet

    def _forget(self, sheet: UndoSheet) -> None:
        if self.sheet is sheet:
            self.sheet = None
        sheet.deleteLater()

    def _restore(self, plan: RestorePlan, overwrite: bool) -> None:
        result = restore_plan(self._service(), plan, overwrite=overwrite)
        self.done.emit(result_sentence(result))
