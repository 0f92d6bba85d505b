"""Where a run's time and money went: one horizontal bar per node on a shared time axis.

Gantt-style: a bar starts where its node started and is as long as the node
took, so parallel branches overlap and a slow step stands out.  Each row is
labelled with the node's name, its duration and its cost.  Painted by hand
with the theme's node-state colours; geometry is computed once per size
(:meth:`Waterfall.bars`) so painting and tooltips agree, and tests can read
what is drawn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from relavium_desktop.engine.display_text import show_line
from relavium_desktop.ui.qt import (
    QColor,
    QFontMetrics,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QRectF,
    QSize,
    Qt,
    QWidget,
)
from relavium_desktop.ui.runs.run_story import NodeSpan, dollars, format_ms

if TYPE_CHECKING:
    from relavium_desktop.ui.theme.palette import Palette

ROW_H = 26.0
BAR_H = 16.0
AXIS_H = 22.0
PAD = 10.0
NAME_W = 150.0
LABEL_W = 140.0  # room after the bar area for "1.2 s · $0.0012"
MIN_BAR_W = 2.0  # a 0 ms node still shows a sliver
TICKS = 4  # about this many tick intervals on the axis
# Bars use the strong status colours (not the pale node fills of the graph):
# a thin bar must stand out from the surface in both themes.
STATE_ROLES = {
    "completed": "success",
    "failed": "danger",
    "running": "info",
    "waiting": "warning",
    "skipped": "muted",
    "cancelled": "muted",
}


def tick_step(length_ms: float, ticks: int = TICKS) -> float:
    """A round tick interval (1, 2 or 5 times a power of ten, in ms) giving about ``ticks`` intervals."""
    raw = max(length_ms / ticks, 1e-3)
    power = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 5, 10):
        if raw <= mult * power:
            return float(mult * power)
    return float(10 * power)


@dataclass(frozen=True, slots=True)
class Bar:
    span: NodeSpan
    rect: QRectF
    label: str  # "1.2 s · $0.0012"


def bar_label(span: NodeSpan) -> str:
    parts = [format_ms(span.duration_ms)]
    if span.cost_microcents:
        parts.append(dollars(span.cost_microcents))
    return " · ".join(parts)


class Waterfall(QWidget):
    def __init__(self, palette: Palette, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("runWaterfall")
        self.setMouseTracking(True)
        self.palette_now = palette
        self.spans: list[NodeSpan] = []

    def set_spans(self, spans: list[NodeSpan]) -> None:
        self.spans = spans
        self.updateGeometry()
        self.update()

    def set_palette(self, palette: Palette) -> None:
        self.palette_now = palette
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(640, int(AXIS_H + PAD * 2 + ROW_H * max(1, len(self.spans))))

    def minimumSizeHint(self) -> QSize:
        return QSize(int(NAME_W + LABEL_W + 120), int(AXIS_H + PAD * 2 + ROW_H * max(1, len(self.spans))))

    # -- geometry ------------------------------------------------------------

    def axis(self) -> tuple[float, float, float, float]:
        """(run start epoch, run length in seconds, bar area left x, bar area width px)."""
        t0 = min((s.start for s in self.spans), default=0.0)
        t1 = max((s.end or s.start for s in self.spans), default=t0)
        left = PAD + NAME_W
        width = max(1.0, self.width() - left - LABEL_W - PAD)
        return t0, max(t1 - t0, 0.001), left, width

    def bars(self) -> list[Bar]:
        """Each node's bar at the current width: x from its start, width from its duration."""
        t0, length, left, width = self.axis()
        out = []
        for row, span in enumerate(self.spans):
            x = left + (span.start - t0) / length * width
            w = max(MIN_BAR_W, span.duration_ms / 1000 / length * width)
            y = PAD + AXIS_H + row * ROW_H + (ROW_H - BAR_H) / 2
            out.append(Bar(span, QRectF(x, y, w, BAR_H), bar_label(span)))
        return out

    # -- painting ------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        p = self.palette_now
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor(p["surface"]))
        if not self.spans:
            painter.setPen(QColor(p["muted"]))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No node of this run has started.")
            painter.end()
            return
        _t0, length, left, width = self.axis()
        metrics = QFontMetrics(self.font())
        # The time axis: a baseline with ticks at quarters of the run.
        painter.setPen(QColor(p["border"]))
        base_y = PAD + AXIS_H - 4
        painter.drawLine(int(left), int(base_y), int(left + width), int(base_y))
        step = tick_step(length * 1000)
        at = 0.0
        while at <= length * 1000 + 1e-6:
            x = left + width * at / (length * 1000)
            painter.setPen(QColor(p["border"]))
            painter.drawLine(int(x), int(base_y - 4), int(x), int(self.height() - PAD))
            painter.setPen(QColor(p["muted"]))
            text = format_ms(at)
            tw = metrics.horizontalAdvance(text)
            painter.drawText(int(min(max(x - tw / 2, left), left + width - tw)), int(PAD + metrics.ascent()), text)
            at += step
        for bar in self.bars():
            span = bar.span
            row_y = bar.rect.top() - (ROW_H - BAR_H) / 2
            name = metrics.elidedText(show_line(span.node), Qt.TextElideMode.ElideRight, int(NAME_W - PAD))
            text_box = QRectF(PAD, row_y, NAME_W - PAD, ROW_H)
            painter.setPen(QColor(p["text"]))
            painter.drawText(text_box, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, name)
            fill = QColor(p[STATE_ROLES.get(span.state, "muted")])
            painter.setPen(fill)
            painter.setBrush(fill)
            painter.drawRoundedRect(bar.rect, 3, 3)
            painter.setPen(QColor(p["muted"]))
            label_box = QRectF(bar.rect.right() + 6, row_y, LABEL_W, ROW_H)
            painter.drawText(label_box, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, bar.label)
        painter.end()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pos = event.position()
        for bar in self.bars():
            row = bar.rect.adjusted(-bar.rect.left(), -(ROW_H - BAR_H) / 2, self.width(), (ROW_H - BAR_H) / 2)
            if row.contains(pos):
                s = bar.span
                tokens = f"\n{s.input_tokens} in / {s.output_tokens} out tokens" if s.input_tokens or \
                    s.output_tokens else ""
                self.setToolTip(show_line(f"{s.node} ({s.node_type}): {s.state}") + f"\n{bar.label}{tokens}")
                break
        else:
            self.setToolTip("")
        super().mouseMoveEvent(event)
