"""A read-only drawing of a workflow's nodes and edges, in layers, that fits its pane.

Each node sits in the layer after its deepest predecessor (a longest-path
layering of the acyclic plan), nodes of a layer in authored order, so the
drawing reads top to bottom the way the run flows.  Edges are arrows from
border to border; branch edges carry their ``when`` key.  Nodes are cards
(kind, name, state in words); as node events arrive a card shows its state by
colour *and* words (:data:`STATE_LOOKS`: "Done" with a success bar, "Waiting
for you" with a warning ring and halo, ...), and a running agent's card shows
its latest streamed words (repainted on a timer, not per token).  The canvas
is the window colour with a dotted grid, as in the design.

The drawing is fitted to the view when it opens and whenever the pane is
resized, until the user zooms (Ctrl+wheel or the buttons) -- from then on
their zoom stands until they press Fit.  Dragging pans.  This is a viewer,
not an editor: nothing here can change the workflow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.ui.qt import (
    QBrush,
    QColor,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QPainter,
    QPen,
    QPixmap,
    QResizeEvent,
    Qt,
    QTimer,
    QWheelEvent,
    QWidget,
)
from relavium_desktop.ui.workflows.graph_items import BOX_H, BOX_W, EdgeItem, NodeItem, NodeLook, box_height

if TYPE_CHECKING:
    from relavium_desktop.engine.workflow.plan import RunPlan
    from relavium_desktop.ui.theme.palette import Palette

GAP_X, GAP_Y = 32.0, 32.0
MARGIN = 12.0
ZOOM_STEP = 1.25
MIN_SCALE, MAX_SCALE = 0.2, 4.0
MAX_FIT_SCALE = 1.0  # fitting only shrinks: cards keep the design's size, never grow into giant boxes
STREAM_FLUSH_MS = 80
STREAM_KEEP = 400  # characters of streamed text kept per node (the face shows fewer)
# Wide enough for one box plus margins and a scrollbar: nodes are never clipped by the splitter.
MIN_PANE_WIDTH = int(BOX_W + 2 * MARGIN + 40)

# A node's state -> how its card shows it: words a person reads, and the palette role of its mark.
STATE_LOOKS: dict[str, NodeLook] = {
    "pending": NodeLook("Not started", "muted", faded=True),
    "running": NodeLook("Running", "accent", bar=True, ring=True),
    "retrying": NodeLook("Trying again", "accent", bar=True, ring=True),
    "waiting": NodeLook("Waiting for you", "warning", ring=True, halo=True),
    "completed": NodeLook("Done", "success", bar=True),
    "failed": NodeLook("Failed", "danger", bar=True, ring=True),
    "skipped": NodeLook("Skipped", "muted", faded=True),
    "cancelled": NodeLook("Cancelled", "muted", faded=True),
}
STATE_ROLES = {state: look.role for state, look in STATE_LOOKS.items()}  # the colour half of each state
# The text colour of a mark's words: the tuned text roles, not the graphic ones.
TEXT_ROLES = {"accent": "link", "success": "success", "warning": "warning", "danger": "danger", "muted": "muted"}
DOT_STEP = 16  # the canvas's dotted grid


def dotted_brush(background: QColor, dot: QColor) -> QBrush:
    """A tile of the canvas background with one dot: the design's dotted canvas."""
    tile = QPixmap(DOT_STEP, DOT_STEP)
    tile.fill(background)
    painter = QPainter(tile)
    painter.setPen(QPen(dot, 1.2))
    painter.drawPoint(DOT_STEP // 2, DOT_STEP // 2)
    painter.end()
    return QBrush(tile)


def layers(plan: RunPlan) -> list[list[str]]:
    """Nodes grouped by longest-path depth, each layer in plan (authored-tie) order."""
    depth: dict[str, int] = {}
    for node in plan.order:  # plan.order is topological
        preds = [e.source for e in plan.in_edges.get(node, []) if e.source in depth]
        depth[node] = 1 + max((depth[p] for p in preds), default=-1)
    out: list[list[str]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
    for node in plan.order:
        out[depth[node]].append(node)
    return out


class WorkflowGraph(QGraphicsView):
    def __init__(self, palette: Palette, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workflowGraph")
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setMinimumWidth(MIN_PANE_WIDTH)
        self.graph_scene = QGraphicsScene(self)
        self.setScene(self.graph_scene)
        self.palette_now = palette
        self.boxes: dict[str, NodeItem] = {}
        self.arrows: list[EdgeItem] = []
        self.tags: list[QGraphicsSimpleTextItem] = []
        self.edges: list[tuple[str, str, str | None]] = []
        self.states: dict[str, str] = {}
        self.streams: dict[str, str] = {}
        self.auto_fit = True
        self._dirty_streams: set[str] = set()
        self._stream_timer = QTimer(self)
        self._stream_timer.setSingleShot(True)
        self._stream_timer.setInterval(STREAM_FLUSH_MS)
        self._stream_timer.timeout.connect(self._flush_streams)

    # -- building ------------------------------------------------------------

    def show_plan(self, plan: RunPlan) -> None:
        self.graph_scene.clear()
        self.boxes.clear()
        self.arrows.clear()
        self.tags.clear()
        self.edges.clear()
        self.states.clear()
        self.streams.clear()
        grid = layers(plan)
        widest = max((len(row) for row in grid), default=1)
        top = 0.0
        for row in grid:
            offset = (widest - len(row)) * (BOX_W + GAP_X) / 2
            for x, node_id in enumerate(row):
                box = NodeItem(node_id, plan.nodes[node_id].type, offset + x * (BOX_W + GAP_X), top)
                self.graph_scene.addItem(box)
                self.boxes[node_id] = box
                self.states[node_id] = "pending"
            top += max((box_height(plan.nodes[n].type) for n in row), default=BOX_H) + GAP_Y
        for node_id in plan.order:
            for edge in plan.out_edges.get(node_id, []):
                if edge.source not in self.boxes or edge.target not in self.boxes:
                    continue
                arrow = EdgeItem(self.boxes[edge.source], self.boxes[edge.target])
                self.graph_scene.addItem(arrow)
                self.arrows.append(arrow)
                key = ",".join(sorted(edge.keys)) if edge.keys else None
                self.edges.append((edge.source, edge.target, key))
                if key:
                    tag = QGraphicsSimpleTextItem(key)
                    mid = (arrow.start + arrow.end) / 2
                    tag.setPos(mid.x() + 4, mid.y() - 8)
                    tag.setZValue(2)
                    self.graph_scene.addItem(tag)
                    self.tags.append(tag)
        self.graph_scene.setSceneRect(
            self.graph_scene.itemsBoundingRect().adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN))
        self.set_palette(self.palette_now)
        self.auto_fit = True
        self.fit()

    # -- colours -------------------------------------------------------------

    def set_palette(self, palette: Palette) -> None:
        """Repaint every item from ``palette`` (a theme switch)."""
        self.palette_now = palette
        edge = QColor(palette["edge"])
        for arrow in self.arrows:
            arrow.paint_with(edge)
        for tag in self.tags:
            tag.setBrush(QColor(palette["muted"]))
        for node_id in self.boxes:
            self._paint_node(node_id)
        self.setBackgroundBrush(dotted_brush(QColor(palette["window"]), QColor(palette["border_strong"])))

    def look_of(self, node_id: str) -> NodeLook:
        """How ``node_id``'s card shows its state now (its words are what a person reads)."""
        return STATE_LOOKS.get(self.states[node_id], STATE_LOOKS["pending"])

    def fill_of(self, node_id: str) -> QColor:
        """The colour that marks ``node_id``'s state (bar, ring or halo)."""
        return QColor(self.palette_now[self.look_of(node_id).role])

    def _paint_node(self, node_id: str) -> None:
        p = self.palette_now
        look = self.look_of(node_id)
        colours = {
            "surface": QColor(p["surface"]),
            "border": QColor(p["border_strong"]),
            "text": QColor(p["node_text"]),
            "muted": QColor(p["muted"]),
            "mark": QColor(p[look.role]),
            "mark_text": QColor(p[TEXT_ROLES.get(look.role, "muted")]),
            "halo": QColor(p["warning_bg"]),
        }
        self.boxes[node_id].paint_with(look, colours)

    def set_state(self, node_id: str, state: str) -> None:
        if node_id not in self.boxes:
            return
        self.states[node_id] = state
        self._paint_node(node_id)
        if state == "running":
            self.streams[node_id] = ""
            self.boxes[node_id].show_stream("")
        elif node_id in self._dirty_streams:  # finished: show the last words now, not on the next tick
            self._dirty_streams.discard(node_id)
            self.boxes[node_id].show_stream(self.streams.get(node_id, ""))

    def reset_states(self) -> None:
        for node_id in self.boxes:
            self.set_state(node_id, "pending")
            self.streams.pop(node_id, None)
            self.boxes[node_id].show_stream("")

    # -- streamed tokens -----------------------------------------------------

    def stream_token(self, node_id: str, token: str) -> None:
        """Add an agent's token; the box's face catches up on the next timer tick."""
        if node_id not in self.boxes:
            return
        self.streams[node_id] = (self.streams.get(node_id, "") + token)[-STREAM_KEEP:]
        self._dirty_streams.add(node_id)
        if not self._stream_timer.isActive():
            self._stream_timer.start()

    def _flush_streams(self) -> None:
        for node_id in self._dirty_streams:
            if node_id in self.boxes:
                self.boxes[node_id].show_stream(self.streams.get(node_id, ""))
        self._dirty_streams.clear()

    # -- zoom and fit --------------------------------------------------------

    def scale_now(self) -> float:
        return self.transform().m11()

    def fit(self) -> None:
        """Show the whole graph, centred, no larger than MAX_FIT_SCALE; resizing keeps it fitted."""
        self.auto_fit = True
        rect = self.graph_scene.sceneRect()
        if rect.isEmpty():
            return
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.scale_now() > MAX_FIT_SCALE:
            self.resetTransform()
            self.scale(MAX_FIT_SCALE, MAX_FIT_SCALE)
        self.centerOn(rect.center())

    def zoom(self, factor: float) -> None:
        """Zoom by ``factor`` within MIN_SCALE..MAX_SCALE; the view stops following resizes."""
        target = min(MAX_SCALE, max(MIN_SCALE, self.scale_now() * factor))
        if target != self.scale_now():
            self.scale(target / self.scale_now(), target / self.scale_now())
        self.auto_fit = False

    def zoom_in(self) -> None:
        self.zoom(ZOOM_STEP)

    def zoom_out(self) -> None:
        self.zoom(1 / ZOOM_STEP)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            steps = event.angleDelta().y() / 120
            if steps:
                self.zoom(ZOOM_STEP ** steps)
            event.accept()
            return
        super().wheelEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.auto_fit:
            self.fit()
