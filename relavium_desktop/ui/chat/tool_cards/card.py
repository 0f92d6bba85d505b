"""A tool call in the transcript: one line that says what happened, expandable to the result.

Collapsed (the default) a card is one sentence: a status dot, the tool's
icon, a verb ("Read", "Ran", "Not allowed to write"), the target in mono,
the facts on the right ("+12", "10 lines · 6 ms", "exit 1 · 2.3 s") and a
chevron.  Tool ids and error codes are in the expanded details only.  The expanded renderer is built on the first expand, which is
what keeps a 500-call history cheap to open.  The duration is measured from
the moment the call event arrived to its result; a card rebuilt from
stored history has none unless the result carries one (run_command).  A write_file card
with a checkpoint (the result's ``checkpointId``) says "Edited" or "Created", shows "+9 −31" from the
result's exact counts and an Undo action; expanded, its diff comes from the checkpoint (removed lines
included).  The undo itself is asked of the transcript (``undo_requested``), which plans and confirms it.  The summary line names what
the model asked for, so it is shown by the one display rule: control, bidi and invisible characters
in a path or a command are styled markers, never raw.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from relavium_desktop.engine.display_text import show, show_line
from relavium_desktop.ui.chat import look
from relavium_desktop.ui.chat.tool_cards.renderers import ResultView, render
from relavium_desktop.ui.chat.tool_cards.results import Outcome, args_from_preview, parse
from relavium_desktop.ui.chat.tool_cards.summaries import Sentence, icon_name, sentence, summary_line
from relavium_desktop.ui.qt import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QSizePolicy,
    Qt,
    QToolButton,
    QUrl,
    QVBoxLayout,
    Signal,
    is_alive,
)
from relavium_desktop.ui.theme.tokens import SPACE_1, SPACE_2, SPACE_3
from relavium_desktop.ui.untrusted import set_shown

log = logging.getLogger(__name__)
ICON_PX = 16
# The status dot: its colour (a tone) and the word a screen reader says for it.
DOT = {
    "running": ("muted", "Running"),
    "ok": ("success", "Done"),
    "warning": ("warning", "Finished with a problem"),
    "danger": ("danger", "Failed or refused"),
    "cancelled": ("muted", "Stopped"),
}


class TextAction(QLabel):
    """A word that acts when clicked, or on Enter or Space with the focus: the card's "Undo".

    The design draws it as accent text in the line, not as a button's box
    (every button variant has a box or muted text), so it is a label that
    takes the focus and a click.
    """

    clicked = Signal()

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAccessibleDescription("Button")

    def mouseReleaseEvent(self, event: Any) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.clicked.emit()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: Any) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.clicked.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class ToolCard(QFrame):
    undo_requested = Signal(str)  # the write's checkpoint id: take this write back
    redo_requested = Signal(str)  # the undo's checkpoint id: take the undo back

    def __init__(self, tool_id: str, tool_input: Any, *, theme: Any = None, undo: Any = None) -> None:
        super().__init__()
        # The chat's UndoService (application/undo.py), or a callable returning it; None: no undo here.
        self.undo_source = undo
        self.checkpoint_id: str | None = None
        self.undone_by: str | None = None  # the undo that took this write back, while it stands
        self._diffing = False
        self.setObjectName("toolCard")
        look.surface(self, "card")
        self.tool_id = tool_id
        self._theme = theme
        from relavium_desktop.engine.tools.masking import mask_value

        masked = mask_value(tool_input) if tool_input is not None else {}
        args = masked if isinstance(masked, dict) else {"preview": str(masked)}
        if set(args) == {"preview"}:
            args = args_from_preview(str(args["preview"]))
        self.outcome = Outcome(tool_id, args)
        self._started = time.monotonic()
        self.status = "running"
        self._spill: dict[str, Any] | None = None
        self._view: ResultView | None = None
        self.chevron = QToolButton()
        self.chevron.setObjectName("toolExpand")
        self.chevron.setAutoRaise(True)
        self.chevron.setCheckable(True)
        look.mark(self.chevron, variant="ghost")
        self.chevron.setToolTip("Show the details")
        self.chevron.setAccessibleName("Show the details")
        self.chevron.toggled.connect(self.set_expanded)
        self.dot = QLabel("●")
        self.dot.setObjectName("toolState")
        self.icon_label = QLabel()
        self.verb = QLabel()
        self.verb.setObjectName("toolVerb")
        bold = self.verb.font()
        bold.setBold(True)
        self.verb.setFont(bold)
        self.summary = QLabel()  # the target (and a refusal's reason): text the model or a tool chose
        self.summary.setObjectName("toolSummary")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        look.mark(self.summary, variant="mono")
        self.added = QLabel()
        self.added.setObjectName("toolAdded")
        look.mark(self.added, tone="success")
        self.added.hide()
        self.removed = QLabel()
        self.removed.setObjectName("toolRemoved")
        look.mark(self.removed, tone="danger")
        self.removed.hide()
        self.undone = QLabel("Undone")
        self.undone.setObjectName("toolUndone")
        look.mark(self.undone, tone="muted")
        self.undone.hide()
        self.undo_button = TextAction("Undo")
        self.undo_button.setObjectName("toolUndo")
        self.undo_button.setToolTip("Put the file back as it was before this write")
        self.undo_button.setAccessibleName("Undo this change")
        look.mark(self.undo_button, tone="accent")  # the design's accent text action beside "+9 −31"
        self.undo_button.clicked.connect(self._undo_clicked)
        self.undo_button.hide()
        self.facts = QLabel()
        self.facts.setObjectName("toolFacts")
        look.mark(self.facts, tone="muted")
        self._state = ""
        self._summary_tone: str | None = None
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.setSpacing(SPACE_2)
        top.addWidget(self.dot)
        top.addWidget(self.icon_label)
        top.addWidget(self.verb)
        top.addWidget(self.summary, 1)
        top.addWidget(self.added)
        top.addWidget(self.removed)
        top.addWidget(self.facts)
        top.addWidget(self.undone)
        top.addWidget(self.undo_button)
        top.addWidget(self.chevron)
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(SPACE_3, SPACE_1, SPACE_1, SPACE_1)
        self._column.setSpacing(SPACE_1)
        self._column.addLayout(top)
        self.spill_link = QLabel()
        self.spill_link.setObjectName("spillLink")
        self.spill_link.setOpenExternalLinks(True)
        self.spill_link.setVisible(False)
        # An MCP tool's progress notifications, shown while it runs (built on the first one).
        self.progress_bar: QProgressBar | None = None
        self.progress_label: QLabel | None = None
        self.repaint_theme()

    # -- state -------------------------------------------------------------------------

    def set_progress(self, progress: float, total: float | None, message: str | None) -> None:
        """A running call's progress: a thin bar (busy when the server gives no total) and its message.

        Ignored once the call has ended: a late notification must not bring the bar back.
        """
        if self.status != "running":
            return
        if self.progress_bar is None:
            bar = QProgressBar()
            bar.setObjectName("toolProgress")
            bar.setTextVisible(False)
            bar.setFixedHeight(6)
            label = QLabel()
            label.setObjectName("toolProgressMessage")
            label.setTextFormat(Qt.TextFormat.PlainText)
            look.tone(label, "muted")
            self._paint_bar(bar)
            self._column.insertWidget(1, bar)
            self._column.insertWidget(2, label)
            self.progress_bar, self.progress_label = bar, label
        assert self.progress_label is not None
        if total and total > 0:
            self.progress_bar.setRange(0, 1000)
            self.progress_bar.setValue(max(0, min(1000, round(progress / total * 1000))))
        else:
            self.progress_bar.setRange(0, 0)  # no total: an indeterminate bar
        from relavium_desktop.engine.tools.masking import mask_text

        shown = show_line(mask_text(message or "")[:200])
        if total and total > 0:
            shown = f"{shown} ({progress:g}/{total:g})" if shown else f"{progress:g} of {total:g}"
        self.progress_label.setText(shown)
        self.progress_label.setVisible(bool(shown))

    def _paint_bar(self, bar: QProgressBar) -> None:
        """The bar's fill in the theme's accent: its default (the selection colour) is too pale to see."""
        from relavium_desktop.ui.qt import QColor, QPalette

        palette = bar.palette()
        palette.setColor(QPalette.ColorRole.Highlight, QColor(look.palette_of(self._theme)["accent"]))
        bar.setPalette(palette)

    def _end_progress(self) -> None:
        for widget in (self.progress_bar, self.progress_label):
            if widget is not None:
                widget.hide()

    def set_result(self, event: dict[str, Any]) -> None:
        from relavium_desktop.engine.tools.masking import mask_text

        o = self.outcome
        if o.duration_ms is None and event.get("durationMs") is None and not event.get("fromHistory"):
            o.duration_ms = (time.monotonic() - self._started) * 1000
        if event.get("success"):
            self.status = "done"
            o.ok = True
            o.text = mask_text(str(event.get("outputSummary") or ""))
            o.data, o.clipped = parse(o.text)
            self._read_checkpoint()
        else:
            error = event.get("error") or {}
            o.ok = False
            o.code = str(error.get("code", "tool_failed"))
            o.reason = str(error.get("reason") or "")
            o.text = mask_text(str(error.get("message", "")))
            self.status = "cancelled" if o.code == "cancelled" else "failed"
        self._end_progress()
        spill = event.get("spill")
        if isinstance(spill, dict) and spill.get("path"):
            self._spill = spill
            url = QUrl.fromLocalFile(str(spill["path"])).toString()
            self.spill_link.setText(f'<a href="{url}">Full output ({int(spill.get("bytes", 0)):,} bytes)</a>')
        self._refresh()

    def cancel(self) -> None:
        if self.status == "running":
            self.status = "cancelled"
            self.outcome.ok = False
            self.outcome.code = "cancelled"
            self._end_progress()
            self._refresh()

    # -- undo ----------------------------------------------------------------------------

    def _service(self) -> Any:
        source = self.undo_source
        return source() if callable(source) else source

    def _read_checkpoint(self) -> None:
        """Read the write's checkpoint in the background: the verb ("Created"), and whether Undo is offered.

        Why not here: a chat opened from history sets thirty results at once, and
        each read is a history.db query -- the window's thread does no I/O.  Until
        it arrives the card reads as the result alone says, without an Undo.
        """
        found = self.outcome.field("checkpointId") if self.tool_id == "write_file" else None
        service = self._service() if isinstance(found, str) and found else None
        # Known now (the chat's undo state keys its cards by it); Undo waits for the read.
        self.checkpoint_id = found if service is not None else None
        self.outcome.extra.pop("checkpoint", None)  # Undo is offered once this write's is read
        if service is not None and isinstance(found, str):
            from relavium_desktop.ui.tasks import spawn

            spawn(self._load_checkpoint(service, found))

    async def _load_checkpoint(self, service: Any, checkpoint_id: str) -> None:
        import asyncio

        try:
            checkpoint = await asyncio.to_thread(service.get, checkpoint_id)
        except Exception:  # history.db unreadable: the card stays as the result says, without an Undo
            log.warning("the write's checkpoint could not be read", exc_info=True)
            checkpoint = None
        if not is_alive(self) or self.checkpoint_id != checkpoint_id:  # the card closed, or a newer result
            return
        if checkpoint is None:  # gone (retention, another data folder): nothing to undo with
            self.checkpoint_id = None
            return
        self.outcome.extra["created"] = not checkpoint.existed
        self.outcome.extra["checkpoint"] = checkpoint
        self._refresh()

    def _undo_clicked(self) -> None:
        if self.undone_by is not None:
            self.redo_requested.emit(self.undone_by)
        elif self.checkpoint_id is not None:
            self.undo_requested.emit(self.checkpoint_id)

    def set_undone(self, undo_id: str | None) -> None:
        """This write was taken back by the undo ``undo_id`` ("Undone", and Redo), or is in place again."""
        self.undone_by = undo_id
        self._show_undo()

    def _show_undo(self) -> None:
        offered = self.checkpoint_id is not None and "checkpoint" in self.outcome.extra and self.outcome.ok is True
        undone = offered and self.undone_by is not None
        self.undone.setVisible(undone)
        self.undo_button.setVisible(offered)
        self.undo_button.setText("Redo" if undone else "Undo")
        words = "Redo this change" if undone else "Undo this change"
        self.undo_button.setAccessibleName(words)
        self.undo_button.setToolTip("Write it again, as the agent had" if undone
                                    else "Put the file back as it was before this write")

    def _load_diff(self) -> None:
        """Compute the checkpoint's diff (removed lines included) off the window's thread, once.

        It reads both versions from the media store and diffs them -- a large
        file takes long enough to freeze the window.  Until it arrives the
        details show the lines the write sent; then they are drawn again.
        """
        checkpoint = self.outcome.extra.get("checkpoint")
        service = self._service() if checkpoint is not None else None
        if service is None or "diff" in self.outcome.extra or self._diffing:
            return
        from relavium_desktop.ui.tasks import spawn

        self._diffing = True
        spawn(self._compute_diff(service, checkpoint))

    async def _compute_diff(self, service: Any, checkpoint: Any) -> None:
        import asyncio

        try:
            diff = await asyncio.to_thread(service.diff, checkpoint)
        except Exception:  # history.db or the media store unreadable: the written lines stay
            log.warning("the write's diff could not be read", exc_info=True)
            diff = None
        if not is_alive(self):
            return
        self._diffing = False
        self.outcome.extra["diff"] = diff
        if diff is not None and self._view is not None:
            self._rebuild_view()

    # -- view ----------------------------------------------------------------------------

    @property
    def summary_text(self) -> str:
        """The summary line as shown (markers in their brackets)."""
        return show_line(summary_line(self.outcome))

    @property
    def expanded(self) -> bool:
        return self._view is not None and self._view.isVisibleTo(self)

    @property
    def result_view(self) -> ResultView:
        """The expanded renderer (built now if the card was never opened)."""
        if self._view is None:
            if self.checkpoint_id is not None:
                self._load_diff()
            self._view = render(self.outcome, self._theme)
            self._view.setVisible(self.chevron.isChecked())
            self._column.addWidget(self._view)
            self._column.addWidget(self.spill_link)
        return self._view

    def set_expanded(self, expanded: bool) -> None:
        if self.chevron.isChecked() != expanded:
            self.chevron.setChecked(expanded)  # comes back here through toggled
            return
        view = self.result_view
        view.setVisible(expanded)
        self.spill_link.setVisible(expanded and self._spill is not None)
        self.chevron.setIcon(look.themed_icon("chevron-down" if expanded else "chevron-right", self._theme, "muted"))
        words = "Hide the details" if expanded else "Show the details"
        self.chevron.setToolTip(words)
        self.chevron.setAccessibleName(words)

    def mouseReleaseEvent(self, event: Any) -> None:
        """A click on the summary line opens or closes the card, like its chevron."""
        if event.button() == Qt.MouseButton.LeftButton and event.position().y() <= self.chevron.geometry().bottom():
            self.chevron.toggle()
        super().mouseReleaseEvent(event)

    @property
    def sentence(self) -> Sentence:
        return sentence(self.outcome)

    def _refresh(self) -> None:
        said = self.sentence
        self.verb.setText(said.verb)
        target = said.target + ("…" if said.state == "running" else "")
        line = f"{target} — {said.why}" if said.why else target
        shown = set_shown(self.summary, show(line), look.palette_of(self._theme))
        self.summary.setToolTip(show_line(said.target) if shown.text else "")  # the whole target, never clipped
        self.facts.setText(" · ".join(said.facts))
        self.facts.setVisible(bool(said.facts))
        if said.added is not None:
            self.added.setText(f"+{said.added:,}")
            self.added.show()
        if said.removed:
            self.removed.setText(f"−{said.removed:,}")
        self.removed.setVisible(bool(said.removed))
        self._show_undo()
        if said.state != self._state:  # a re-polish per card adds up over a long history: only on a change
            self._state = said.state
            tone, word = DOT[said.state]
            look.mark(self.dot, tone=tone)
            self.dot.setAccessibleName(word)
            self.dot.setToolTip(word)
            summary_tone = "danger" if said.state == "danger" else None
            if summary_tone != self._summary_tone:
                self._summary_tone = summary_tone
                look.mark(self.summary, tone=summary_tone) if summary_tone else look.tone(self.summary, None)
        if self._view is not None:  # a result arrived after the card was opened on its arguments
            self._rebuild_view()

    def _rebuild_view(self) -> None:
        """Draw the open details again from the outcome as it is now."""
        if self._view is not None:
            self._column.removeWidget(self._view)
            self._view.deleteLater()
            self._view = None
            if self.chevron.isChecked():
                self.set_expanded(True)

    def repaint_theme(self) -> None:
        if self.progress_bar is not None:
            self._paint_bar(self.progress_bar)
        self.icon_label.setPixmap(look.themed_icon(icon_name(self.tool_id), self._theme, "muted").pixmap(ICON_PX))
        self.chevron.setIcon(look.themed_icon("chevron-down" if self.chevron.isChecked() else "chevron-right",
                                              self._theme, "muted"))
        if self._view is not None:
            expanded = self.chevron.isChecked()
            self._column.removeWidget(self._view)
            self._view.deleteLater()
            self._view = None
            if expanded:
                self.set_expanded(True)
        self._refresh()

    @property
    def details_text(self) -> str:
        """The expanded details as text (the tool's id and the error codes live here)."""
        return self.result_view.toPlainText()

    def plain_text(self) -> str:
        """What a person reads on this card: its line, and why it failed."""
        parts = [self.summary_text + (" · Undone" if self.undone.isVisibleTo(self) else "")]
        if self.outcome.ok is False and self.outcome.text:
            parts.append(show(self.outcome.text, "block").text)
        return "\n".join(parts)
