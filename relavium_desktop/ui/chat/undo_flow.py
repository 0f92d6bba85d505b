"""Taking an agent's writes back from the window: plan, confirm on the undo sheet, restore, report.

The chat (a card's Undo and Redo, "Undo changes since this message") and
Activity ("Undo this run's changes") share this flow; what a restore means
(conflicts, refusals, the undo of an undo) is the application's
``UndoService``, and this module only asks it, shows the sheet and hands the
outcome back as a sentence.  The plan (which hashes each file to find
conflicts) is made off the window's thread before the sheet shows.  A restore runs off the window's thread, after
the person confirmed, while the sheet says "Undoing…": it can be dozens of
files of up to 25 MiB, each written atomically with an fsync and its current
content kept first, so the undo can itself be undone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.chat.undo_sheet import UndoSheet, restore_plan, result_sentence
from relavium_desktop.ui.qt import QObject, QWidget, Signal, is_alive

if TYPE_CHECKING:
    from relavium_desktop.application.undo import Checkpoint, RestorePlan, UndoService

log = logging.getLogger(__name__)

NOTHING = "Nothing to undo: the agent changed no files here, or its changes were already undone"


class UndoFlow(QObject):
    """One sheet at a time over ``parent``; ``done`` carries the sentence of what was restored."""

    # "Restored 2 files" (after the person confirmed and the restore ran), or why nothing was offered
    done = Signal(str)

    def __init__(self, service: Callable[[], UndoService], parent: QWidget, theme: Any = None) -> None:
        super().__init__(parent)
        self._service = service
        self._parent = parent
        self._theme = theme
        self.sheet: UndoSheet | None = None
        self._task: asyncio.Task[None] | None = None  # the plan being made, or the confirmed restore

    @property
    def busy(self) -> bool:
        """A plan is being made or a confirmed restore is running: the next offer waits for it."""
        return self._task is not None and not self._task.done()

    def offer(self, checkpoints: Sequence[Checkpoint], *, verb: str = "Undo") -> None:
        """Show the sheet for taking ``checkpoints`` back, once its plan is known.

        The plan hashes each file's current content to find conflicts (files of up to
        25 MiB each), so it is made off the window's thread; with nothing to take back,
        ``done`` says so instead of a sheet.  A second offer while one is being planned or
        restored is ignored: the sheet that is coming answers first."""
        from relavium_desktop.ui.tasks import spawn

        if self.busy:
            return
        if not checkpoints:
            self.done.emit(NOTHING)
            return
        self._task = spawn(self._open(list(checkpoints), verb))

    async def _open(self, checkpoints: list[Checkpoint], verb: str) -> None:
        service = self._service()
        try:
            plan = await asyncio.to_thread(service.plan, checkpoints)
        except Exception as exc:  # history.db unreadable: say so instead of showing nothing
            from relavium_desktop.ui.error_text import error_text

            log.warning("the undo could not be planned", exc_info=True)
            self.done.emit(f"The undo could not start: {error_text(exc, limit=300)}")
            return
        if not is_alive(self._parent):
            return
        if not plan.files:
            self.done.emit(NOTHING)
            return
        if self.sheet is not None:
            self.sheet.close()
        sheet = UndoSheet(plan, checkpoints, self._parent, theme=self._theme, verb=verb)
        sheet.confirmed.connect(lambda overwrite: self._start(sheet, plan, overwrite))
        sheet.finished.connect(lambda _code: self._forget(sheet))
        self.sheet = sheet
        sheet.open()

    def _forget(self, sheet: UndoSheet) -> None:
        if self.sheet is sheet:
            self.sheet = None
        sheet.deleteLater()

    def _start(self, sheet: UndoSheet, plan: RestorePlan, overwrite: bool) -> None:
        from relavium_desktop.ui.tasks import spawn

        if self.busy:
            return
        sheet.set_working()
        self._task = spawn(self._restore(sheet, plan, overwrite))

    async def _restore(self, sheet: UndoSheet, plan: RestorePlan, overwrite: bool) -> None:
        service = self._service()
        try:
            result = await asyncio.to_thread(restore_plan, service, plan, overwrite=overwrite)
            sentence = result_sentence(result)
        except Exception as exc:  # history.db or the disk failed mid-way: each file is whole, old or new
            from relavium_desktop.ui.error_text import error_text

            log.warning("the undo failed", exc_info=True)
            sentence = f"The undo could not finish: {error_text(exc, limit=300)}. Files already put back stay so."
        if is_alive(sheet):
            sheet.finish()
        self.done.emit(sentence)
