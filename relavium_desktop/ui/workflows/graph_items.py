"""The pieces of the workflow drawing: a node's card and an arrow between two cards.

They are separate from the view so the geometry (where an edge leaves and
enters a box, where the arrowhead sits) can be read and tested on its own.
Colours are never chosen here: the view hands each item the palette colours
and the :class:`NodeLook` of its state (words, mark, bar or ring, halo, faded),
so a theme switch only has to call :meth:`NodeItem.paint_with` and
:meth:`EdgeItem.paint_with` again.  A state is always shown by colour *and* words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from relavium_desktop.ui.qt import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QGraphicsRectItem,
    QGraphicsSimpleTextItem,
    QPainter,
    QPainterPath,
    QPen,
    QPointF,
    QPolygonF,
    QRectF,
    Qt,
    QWidget,
)
from relavium_desktop.ui.theme.tokens import RADIUS_CARD, TYPE_BODY_PX, TYPE_CAPTION_PX

# The design's card: ~190 px wide, 64-76 px tall -- kind, name, state; an agent adds a line for its words.
BOX_W, BOX_H = 190.0, 68.0
AGENT_BOX_H = 84.0  # an agent's card: one more line for the words it streams
AGENT_TYPES = frozenset({"agent"})
KIND_Y, NAME_Y, STATE_Y, STREAM_Y = 10.0, 25.0, 45.0, 61.0  # each line's top within the card
PAD = 12.0
BAR_W = 4.0  # the state's coloured bar down the card's left edge
HALO = 5.0  # the soft ring around a card that waits for a person
RADIUS = float(RADIUS_CARD)
FADED = 0.55  # how much of a not-yet-run (or skipped) card shows
ARROW_LEN, ARROW_HALF = 10.0, 5.0
STREAM_CHARS = 60  # how much of a running agent's latest text its face shows


@dataclass(frozen=True, slots=True)
class NodeLook:
    """How a card shows one state: its words, the palette role of its mark, and how it is drawn."""

    words: str
    role: str
    bar: bool = False  # a coloured bar down the left edge
    ring: bool = False  # the whole border in the state's colour
    halo: bool = False  # a soft ring around the card
    faded: bool = False


class NodeItem(QGraphicsRectItem):
    """One node as a card: its kind (uppercase, small), its name, its state in words, an agent's latest words."""

    def __init__(self, node_id: str, node_type: str, left: float, top: float) -> None:
        super().__init__(left, top, BOX_W, box_height(node_type))
        self.node_id = node_id
        self.node_type = node_type
        self.look = NodeLook("Not started", "muted", faded=True)
        self.colours: dict[str, QColor] = {}
        self.setZValue(1)
        self.setToolTip(f"{node_id} ({node_type})")
        small = QFont()
        small.setPixelSize(TYPE_CAPTION_PX)
        caps = QFont(small)
        caps.setWeight(QFont.Weight.DemiBold)
        caps.setCapitalization(QFont.Capitalization.AllUppercase)
        caps.setLetterSpacing(QFont.SpacingType.PercentageSpacing, 106)
        name = QFont()
        name.setPixelSize(TYPE_BODY_PX)
        name.setWeight(QFont.Weight.DemiBold)
        x = left + PAD + BAR_W / 2
        self.kind = QGraphicsSimpleTextItem(self._elide(node_type.replace("_", " "), caps), self)
        self.kind.setFont(caps)
        self.kind.setPos(x, top + KIND_Y)
        self.title = QGraphicsSimpleTextItem(self._elide(node_id, name), self)
        self.title.setFont(name)
        self.title.setPos(x, top + NAME_Y)
        self.state_label = QGraphicsSimpleTextItem(self.look.words, self)
        self.state_label.setFont(small)
        self.state_label.setPos(x, top + STATE_Y)
        self.stream = QGraphicsSimpleTextItem("", self)
        self.stream.setFont(small)
        self.stream.setPos(x, top + STREAM_Y)
        self.stream_text = ""  # the unelided tail the face shows

    @staticmethod
    def _elide(text: str, font: QFont) -> str:
        return QFontMetrics(font).elidedText(text, Qt.TextElideMode.ElideRight, int(BOX_W - 2 * PAD - BAR_W))

    def paint_with(self, look: NodeLook, colours: dict[str, QColor]) -> None:
        """Show ``look`` with the theme's ``colours`` (surface, border, text, muted, mark, halo)."""
        self.look = look
        self.colours = colours
        self.setBrush(QBrush(colours["surface"]))
        pen = QPen(colours["mark"] if look.ring else colours["border"])
        pen.setWidthF(2.0 if look.ring else 1.0)
        self.setPen(pen)
        self.setOpacity(FADED if look.faded else 1.0)
        self.title.setBrush(QBrush(colours["text"]))
        self.kind.setBrush(QBrush(colours["mark"] if look.halo else colours["muted"]))
        self.state_label.setText(look.words)
        self.state_label.setBrush(QBrush(colours["muted"] if look.faded else colours["mark_text"]))
        self.stream.setBrush(QBrush(colours["muted"]))
        self.prepareGeometryChange()
        self.update()

    def boundingRect(self) -> QRectF:
        return self.rect().adjusted(-HALO - 1, -HALO - 1, HALO + 1, HALO + 1)

    def paint(self, painter: QPainter, option: object, widget: QWidget | None = None) -> None:
        rect = self.rect()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self.look.halo and "halo" in self.colours:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self.colours["halo"])
            painter.drawRoundedRect(rect.adjusted(-HALO, -HALO, HALO, HALO), RADIUS + HALO, RADIUS + HALO)
        painter.setPen(self.pen())
        painter.setBrush(self.brush())
        painter.drawRoundedRect(rect, RADIUS, RADIUS)
        if self.look.bar and "mark" in self.colours:
            clip = QPainterPath()
            clip.addRoundedRect(rect, RADIUS, RADIUS)
            painter.save()
            painter.setClipPath(clip)
            painter.fillRect(QRectF(rect.left(), rect.top(), BAR_W, rect.height()), self.colours["mark"])
            painter.restore()

    def show_stream(self, text: str) -> None:
        """The last words streamed, on one line, cut at the left so the newest stay visible."""
        tail = " ".join(text.split())[-STREAM_CHARS:]
        self.stream_text = tail
        metrics = QFontMetrics(self.stream.font())
        self.stream.setText(metrics.elidedText(tail, Qt.TextElideMode.ElideLeft, int(BOX_W - 2 * PAD - BAR_W)))

    def center(self) -> QPointF:
        return self.rect().center()


def box_height(node_type: str) -> float:
    """How tall a node's card is: an agent's has a line for its streamed words, the others do not."""
    return AGENT_BOX_H if node_type in AGENT_TYPES else BOX_H


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
