"""The pieces of the workflow drawing: a node's box and an arrow between two boxes.

They are separate from the view so the geometry (where an edge leaves and
enters a box, where the arrowhead sits) can be read and tested on its own.
Colours are never chosen here: the view hands each item the palette colours
for its state, so a theme switch only has to call :meth:`NodeItem.paint_with`
and :meth:`EdgeItem.paint_with` again.
"""

from __future__ import annotations

import math

from relavium_desktop.ui.qt import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QGraphicsRectItem,
    QGraphicsSimpleTextItem,
    QPainterPath,
    QPen,
    QPointF,
    QPolygonF,
    QRectF,
    Qt,
)

BOX_W, BOX_H = 170.0, 62.0
PAD = 8.0
ARROW_LEN, ARROW_HALF = 10.0, 5.0
STREAM_CHARS = 60  # how much of a running agent's latest text its face shows


class NodeItem(QGraphicsRectItem):
    """One node: its id (bold), its type, and while an agent runs, its latest words."""

    def __init__(self, node_id: str, node_type: str, left: float, top: float) -> None:
        super().__init__(left, top, BOX_W, BOX_H)
        self.node_id = node_id
        self.node_type = node_type
        self.setZValue(1)
        self.setToolTip(f"{node_id} ({node_type})")
        bold = QFont()
        bold.setBold(True)
        self.title = QGraphicsSimpleTextItem(self._elide(node_id, bold), self)
        self.title.setFont(bold)
        self.title.setPos(left + PAD, top + 5)
        small = QFont()
        small.setPointSizeF(max(6.0, small.pointSizeF() * 0.85))
        self.kind = QGraphicsSimpleTextItem(node_type, self)
        self.kind.setFont(small)
        self.kind.setPos(left + PAD, top + 24)
        self.stream = QGraphicsSimpleTextItem("", self)
        self.stream.setFont(small)
        self.stream.setPos(left + PAD, top + 41)
        self.stream_text = ""  # the unelided tail the face shows

    @staticmethod
    def _elide(text: str, font: QFont) -> str:
        return QFontMetrics(font).elidedText(text, Qt.TextElideMode.ElideRight, int(BOX_W - 2 * PAD))

    def paint_with(self, fill: QColor, border: QColor, text: QColor) -> None:
        self.setBrush(QBrush(fill))
        pen = QPen(border)
        pen.setWidthF(1.2)
        self.setPen(pen)
        for label in (self.title, self.kind, self.stream):
            label.setBrush(QBrush(text))

    def show_stream(self, text: str) -> None:
        """The last words streamed, on one line, cut at the left so the newest stay visible."""
        tail = " ".join(text.split())[-STREAM_CHARS:]
        self.stream_text = tail
        metrics = QFontMetrics(self.stream.font())
        self.stream.setText(metrics.elidedText(tail, Qt.TextElideMode.ElideLeft, int(BOX_W - 2 * PAD)))

    def center(self) -> QPointF:
        return self.rect().center()


def border_point(rect: QRectF, toward: QPointF) -> QPointF:
    """Where the line from ``rect``'s centre toward ``toward`` crosses the rectangle's border."""
    c = rect.center()
    dx, dy = toward.x() - c.x(), toward.y() - c.y()
    if dx == 0 and dy == 0:
        return c
    scales = []
    if dx:
        scales.append(rect.width() / 2 / abs(dx))
    if dy:
        scales.append(rect.height() / 2 / abs(dy))
    t = min(scales)
    return QPointF(c.x() + dx * t, c.y() + dy * t)


class EdgeItem(QGraphicsPathItem):
    """A straight arrow from the source box's border to the target box's border."""

    def __init__(self, source: NodeItem, target: NodeItem) -> None:
        super().__init__()
        self.source_id, self.target_id = source.node_id, target.node_id
        self.start = border_point(source.rect(), target.center())
        self.end = border_point(target.rect(), source.center())
        path = QPainterPath(self.start)
        path.lineTo(self.end)
        self.setPath(path)
        self.head = QGraphicsPolygonItem(arrowhead(self.start, self.end), self)

    def paint_with(self, colour: QColor) -> None:
        pen = QPen(colour)
        pen.setWidthF(1.5)
        self.setPen(pen)
        self.head.setPen(QPen(colour))
        self.head.setBrush(QBrush(colour))


def arrowhead(start: QPointF, end: QPointF) -> QPolygonF:
    """A filled triangle whose tip touches ``end``, pointing along start -> end."""
    angle = math.atan2(end.y() - start.y(), end.x() - start.x())
    back = QPointF(end.x() - ARROW_LEN * math.cos(angle), end.y() - ARROW_LEN * math.sin(angle))
    nx, ny = -math.sin(angle) * ARROW_HALF, math.cos(angle) * ARROW_HALF
    return QPolygonF([end, QPointF(back.x() + nx, back.y() + ny), QPointF(back.x() - nx, back.y() - ny)])
