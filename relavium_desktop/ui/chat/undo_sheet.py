"""The undo sheet: "Undo 3 changes in shop-api?", the files it will put back, and one primary button.

Undoing an agent's writes (a card's Undo, "Undo changes since this message",
an Activity run's "Undo this run's changes") first lists what will happen to
each file, in words: put back as it was, deleted (the agent created it),
changed since the agent wrote it (a conflict), or left alone with the reason
(refused).  A conflict is never overwritten by the primary button alone: the
person ticks "Overwrite my changes" first.  Paths are in mono, relative to
the project, with the agent's +added −removed per file.  The sheet is laid
out like the permission sheet (question first and large, a muted line under
it, one primary button); it decides nothing itself -- the planning and the
restore are :class:`~relavium_desktop.application.undo.UndoService`'s.

No checkpoint ids or action codes in what a person reads.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.display_text import show_line
from relavium_desktop.ui.qt import (
    QCheckBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.sheet_parts import question_row, sheet_badge
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_1, SPACE_2, SPACE_3, SPACE_4

if TYPE_CHECKING:
    from relavium_desktop.application.undo import (
        Checkpoint,
        PlannedFile,
        RestorePlan,
        RestoreResult,
        UndoService,
    )

# What happens to a file, in words (the reason follows a conflict or a refusal).
ACTION_WORDS = {
    "restore": "Put back as it was",
    "delete": "Deleted: the agent created it",
    "conflict": "Changed since the agent wrote it",
    "refused": "Left as it is",
}
ACTION_TONES = {"restore": "muted", "delete": "muted", "conflict": "warning", "refused": "danger"}
SHEET_WIDTH = 600


@dataclass(frozen=True)
class FileRow:
    """One file of the sheet as a person reads it."""

    path: str  # relative to the project when inside it, shown by the display rule
    action: str  # restore | delete | conflict | refused
    words: str  # what happens to it
    added: int  # the lines the agent's writes added (taken back by the undo)
    removed: int


def _shown_path(path: Path, project: Path | None) -> str:
    if project is not None:
        try:
            return show_line(str(path.relative_to(project)))
        except ValueError:
            pass
    return show_line(str(path))


def _words(planned: PlannedFile) -> str:
    words = ACTION_WORDS[planned.action]
    if planned.action in ("conflict", "refused") and planned.reason:
        reason = planned.reason[:1].lower() + planned.reason[1:]
        if planned.action == "refused":
            return f"{words}: {reason}"
        if reason != "the file changed since the agent wrote it":
            return f"{words}: {reason}"
    return words


def file_rows(plan: RestorePlan, checkpoints: Sequence[Checkpoint]) -> list[FileRow]:
    """The sheet's rows for ``plan``; the counts add up every write of that file being taken back."""
    by_id = {c.id: c for c in checkpoints}
    rows = []
    for planned in plan.files:
        ids = planned.checkpoint_ids or (planned.checkpoint_id,)
        taken = [by_id[i] for i in ids if i in by_id]
        rows.append(
            FileRow(
                path=_shown_path(planned.path, planned.project),
                action=planned.action,
                words=_words(planned),
                added=sum(c.lines_added for c in taken),
                removed=sum(c.lines_removed for c in taken),
            )
        )
    return rows


def project_of(plan: RestorePlan) -> str:
    """The project's folder name when every file is in one project ("" otherwise)."""
    projects = {f.project for f in plan.files if f.project is not None}
    if len(projects) != 1:
        return ""
    (project,) = projects
    return show_line(os.path.basename(str(project).rstrip("/\\")) or str(project))


def _changes(count: int) -> str:
    return f"{count} change" if count == 1 else f"{count} changes"


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


def question(plan: RestorePlan, verb: str = "Undo") -> str:
    """ "Undo 3 changes in shop-api?" (a change is one file put back or deleted); "Redo 1 change…"."""
    doable = sum(1 for f in plan.files if f.action != "refused")
    where = project_of(plan)
    return f"{verb} {_changes(doable)}" + (f" in {where}?" if where else "?")


def sub_line(plan: RestorePlan, verb: str = "Undo") -> str:
    """The muted line under the question: what restoring means, and what needs a second look."""
    if verb == "Redo":
        parts = ["These files go back to how the agent wrote them"]
    else:
        parts = ["These files go back to how they were before the agent wrote them"]
    if plan.conflicts:
        parts.append(f"{_files(len(plan.conflicts))} changed since: tick below to overwrite your changes")
    if plan.refused:
        parts.append(f"{_files(len(plan.refused))} cannot be restored")
    parts.append("you can undo this undo afterwards")
    return " · ".join(parts)


def restore_plan(service: UndoService, plan: RestorePlan, *, overwrite: bool) -> RestoreResult:
    """Carry ``plan`` out: the files without a conflict as planned (each checked again as it is
    restored); the conflicts only when ``overwrite`` -- the person's explicit confirmation."""
    from relavium_desktop.application.undo import RestorePlan, RestoreResult

    safe = RestorePlan(tuple(f for f in plan.files if f.action != "conflict"))
    first = service.restore(safe)
    if not overwrite or not plan.conflicts:
        return RestoreResult(
            first.restored, first.deleted, first.skipped + plan.conflicts, first.undo_checkpoint_ids
        )
    forced = service.restore(RestorePlan(plan.conflicts), force=True)
    return RestoreResult(
        first.restored + forced.restored,
        first.deleted + forced.deleted,
        first.skipped + forced.skipped,
        first.undo_checkpoint_ids + forced.undo_checkpoint_ids,
    )


def result_sentence(result: RestoreResult) -> str:
    """What the transcript notes after an undo: "Restored 2 files", "Restored 1 file and deleted 1"."""
    done = []
    if result.restored:
        done.append(f"restored {_files(len(result.restored))}")
    if result.deleted:
        done.append(f"deleted {_files(len(result.deleted))} the agent created")
    text = " and ".join(done) if done else "nothing was changed"
    if result.skipped:
        conflicts = sum(1 for f in result.skipped if f.action == "conflict")
        others = len(result.skipped) - conflicts
        left = []
        if conflicts:
            left.append(
                f"{_files(conflicts)} changed since, kept as {'it is' if conflicts == 1 else 'they are'}"
            )
        if others:
            left.append(f"{_files(others)} could not be restored")
        text += "; " + ", ".join(left)
    return text[:1].upper() + text[1:]


def redo_plan(service: UndoService, undo_ids: Sequence[str]) -> tuple[RestorePlan, list[Checkpoint]]:
    """The plan that takes an undo back (its own checkpoints restored): "Redo"."""
    found = [c for c in (service.get(i) for i in undo_ids) if c is not None]
    return service.plan(found), found


def undone_by(checkpoints: Sequence[Checkpoint]) -> dict[str, str]:
    """For each write checkpoint taken back by an undo that is itself still in force: that undo's id.

    An undo ``U`` undoes the ids in ``U.undoes``; a later undo ``R`` with
    ``U`` in ``R.undoes`` took ``U`` back (a Redo), so ``U``'s writes count
    as in place again.
    """
    undos = sorted((c for c in checkpoints if c.scope == "undo"), key=lambda c: c.created_at)
    undo_ids = {u.id for u in undos}
    reverted = {taken for u in undos for taken in u.undoes if taken in undo_ids}
    state: dict[str, str] = {}
    for undo in undos:
        if undo.id in reverted:
            continue
        for taken in undo.undoes:
            if taken not in undo_ids:
                state[taken] = undo.id
    return state


class UndoNote(QLabel):
    """The transcript's line after an undo ("Restored 2 files"): a muted sentence, centred in the column."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.setObjectName("undoNote")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        set_tone(self, "muted")

    def repaint_theme(self) -> None:
        """Nothing painted by hand: the stylesheet colours the tone."""

    def plain_text(self) -> str:
        return self.text()


class UndoSheet(QDialog):
    """The confirmation before an undo: files and what happens to each; conflicts need a tick."""

    confirmed = Signal(bool)  # overwrite the conflicts too

    def __init__(
        self,
        plan: RestorePlan,
        checkpoints: Sequence[Checkpoint],
        parent: QWidget | None = None,
        *,
        theme: Any = None,
        verb: str = "Undo",
    ) -> None:
        super().__init__(parent)
        self.plan = plan
        self.verb = verb
        self._theme = theme
        self._working = False
        self.setObjectName("undoSheet")
        set_surface(self, "sheet")
        self.setWindowTitle("Undo the agent's changes" if verb == "Undo" else "Redo the agent's changes")
        self.resize(SHEET_WIDTH, 420)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)
        layout.setSpacing(SPACE_4)

        badge = sheet_badge("undoBadge", "Undo", "accent-soft")
        self._badge = badge
        self.headline = QLabel(question(plan, verb))
        self.headline.setObjectName("undoHeadline")
        self.headline.setTextFormat(Qt.TextFormat.PlainText)
        self.sub = QLabel(sub_line(plan, verb))
        self.sub.setObjectName("undoSub")
        layout.addLayout(question_row(badge, self.headline, self.sub))

        # The files: path (mono) and +added −removed on one line, what happens to it under it.
        self.rows = file_rows(plan, checkpoints)
        box = QWidget()
        box.setObjectName("undoFiles")
        set_surface(box, "code")
        grid = QGridLayout(box)
        grid.setContentsMargins(SPACE_3, SPACE_2, SPACE_3, SPACE_2)
        grid.setHorizontalSpacing(SPACE_3)
        grid.setVerticalSpacing(0)
        self.path_labels: list[QLabel] = []
        self.action_labels: list[QLabel] = []
        for index, row in enumerate(self.rows):
            path = QLabel(row.path)
            path.setTextFormat(Qt.TextFormat.PlainText)
            set_variant(path, "mono")
            counts = QHBoxLayout()
            counts.setSpacing(SPACE_1)
            added = QLabel(f"+{row.added:,}")
            set_tone(added, "success")
            removed = QLabel(f"−{row.removed:,}")
            set_tone(removed, "danger")
            counts.addWidget(added)
            counts.addWidget(removed)
            what = QLabel(row.words)
            what.setWordWrap(True)
            what.setTextFormat(Qt.TextFormat.PlainText)
            set_tone(what, ACTION_TONES[row.action])
            grid.addWidget(path, index * 2, 0)
            grid.addLayout(counts, index * 2, 1, Qt.AlignmentFlag.AlignRight)
            what.setContentsMargins(0, 0, 0, SPACE_2 if index < len(self.rows) - 1 else 0)
            grid.addWidget(what, index * 2 + 1, 0, 1, 2)
            self.path_labels.append(path)
            self.action_labels.append(what)
        grid.setColumnStretch(0, 1)
        scroll = QScrollArea()
        scroll.setObjectName("undoFilesScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(box)
        layout.addWidget(scroll, 1)

        # A conflict: the person's own changes are overwritten only with this ticked.
        self.overwrite = QCheckBox(
            f"Overwrite my changes to {_files(len(plan.conflicts))} (they are kept, so this can be undone too)"
        )
        self.overwrite.setObjectName("undoOverwrite")
        self.overwrite.setVisible(bool(plan.conflicts))
        self.overwrite.toggled.connect(self._count)
        layout.addWidget(self.overwrite)

        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("undoCancel")
        set_variant(self.cancel_button, "secondary")
        self.cancel_button.clicked.connect(self.reject)
        self.undo_button = QPushButton()
        self.undo_button.setObjectName("undoConfirm")
        set_variant(self.undo_button, "primary")
        self.undo_button.setAutoDefault(False)
        self.cancel_button.setAutoDefault(False)
        self.undo_button.clicked.connect(self._confirm)
        actions = QHBoxLayout()
        actions.setSpacing(SPACE_2)
        hint = QLabel("Esc to cancel")
        set_variant(hint, "caption")
        actions.addWidget(hint)
        actions.addStretch(1)
        actions.addWidget(self.cancel_button)
        actions.addWidget(self.undo_button)
        layout.addLayout(actions)
        self._count()
        self.repaint_theme()

    def repaint_theme(self) -> None:
        from relavium_desktop.ui.chat.look import themed_icon

        self._badge.setPixmap(themed_icon("history", self._theme, "accent").pixmap(SPACE_4 + SPACE_1))

    @property
    def count(self) -> int:
        """The files the primary button will change now."""
        planned = [f for f in self.plan.files if f.action in ("restore", "delete")]
        if self.overwrite.isChecked():
            planned += list(self.plan.conflicts)
        return len(planned)

    def _count(self) -> None:
        count = self.count
        self.undo_button.setText(
            f"{self.verb} {_changes(count)}" if count else f"Nothing to {self.verb.lower()}"
        )
        self.undo_button.setEnabled(count > 0)
        self.undo_button.setAccessibleName(self.undo_button.text())

    def _confirm(self) -> None:
        """The person confirmed: the flow restores in the background while the sheet says so."""
        self.confirmed.emit(self.overwrite.isChecked())

    @property
    def working(self) -> bool:
        return self._working

    def set_working(self) -> None:
        """While the files are put back: the sheet stays, says so, and takes no second answer."""
        self._working = True
        for control in (self.undo_button, self.cancel_button, self.overwrite):
            control.setEnabled(False)
        words = "Undoing…" if self.verb == "Undo" else "Redoing…"
        self.undo_button.setText(words)
        self.undo_button.setAccessibleName(words)

    def finish(self) -> None:
        """The restore ended (the transcript or the run's line says how): the sheet goes."""
        self._working = False
        self.accept()

    def reject(self) -> None:
        if not self._working:  # Esc or the close button mid-restore: the restore goes on, the sheet stays
            super().reject()
