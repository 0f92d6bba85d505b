"""A tool call in the transcript: one line that says what happened, expandable to the result.

Collapsed (the default) a card is one sentence: a status dot, the tool's
icon, a verb ("Read", "Ran", "Not allowed to write"), the target in mono,
the facts on the right ("+12", "10 lines · 6 ms", "exit 1 · 2.3 s") and a
chevron.  Tool ids and error codes are in the expanded details only.  The expanded renderer is built on the first expand, which is
what keeps a 500-call history cheap to open.  The duration is measured from
the moment the call event arrived to its result; a card rebuilt from
stored history has none unless the result carries one (run_command).  The summary line names what
the model asked for, so it is shown by the one display rule: control, bidi and invisible characters
in a path or a command are styled markers, never raw.
"""

from __future__ import annotations

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
)
from relavium_desktop.ui.theme.tokens import SPACE_1, SPACE_2, SPACE_3
from relavium_desktop.ui.untrusted import set_shown

ICON_PX = 16
# The status dot: its colour (a tone) and the word a screen reader says for it.
DOT = {
    "running": ("muted", "Running"),
    "ok": ("success", "Done"),
    "warning": ("warning", "Finished with a problem"),
    "danger": ("danger", "Failed or refused"),
    "cancelled": ("muted", "Stopped"),
}


class ToolCard(QFrame):
    def __init__(self, tool_id: str, tool_input: Any, *, theme: Any = None) -> None:
        super().__init__()
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
        top.addWidget(self.facts)
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
        parts = [self.summary_text]
        if self.outcome.ok is False and self.outcome.text:
            parts.append(show(self.outcome.text, "block").text)
        return "\n".join(parts)
