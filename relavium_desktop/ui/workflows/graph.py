"""A read-only drawing of a workflow's nodes and edges, in layers.

Each node sits in the layer after its deepest predecessor (a longest-path
layering of the acyclic plan), nodes of a layer in authored order, so the
drawing reads top to bottom the way the run flows.  Branch edges carry their
``when`` key.  Node boxes are recoloured as node events arrive.  This is a
viewer, not an editor: nothing here can change the workflow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.ui.qt import (
    QBrush,
    QColor,
    QGraphicsLineItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QLineF,
    QPainter,
    QPen,
    QPointF,
    QWidget,
)

if TYPE_CHECKING:
    from relavium_desktop.engine.workflow.plan import RunPlan

BOX_W, BOX_H = 150.0, 44.0
GAP_X, GAP_Y = 30.0, 46.0

STATE_COLORS = {
    "pending": "#eceff1",
    "running": "#fff3c4",
    "waiting": "#ffe0b2",
    "retrying": "#ffe0b2",
    "completed": "#c8e6c9",
    "failed": "#ffcdd2",
    "skipped": "#e0e0e0",
    "cancelled": "#e0e0e0",
}


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
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workflowGraph")
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.graph_scene = QGraphicsScene(self)
        self.setScene(self.graph_scene)
        self.boxes: dict[str, QGraphicsRectItem] = {}
        self.edges: list[tuple[str, str, str | None]] = []
        self.states: dict[str, str] = {}

    def show_plan(self, plan: RunPlan) -> None:
        self.graph_scene.clear()
        self.boxes.clear()
        self.edges.clear()
        self.states.clear()
        centers: dict[str, QPointF] = {}
        grid = layers(plan)
        widest = max((len(row) for row in grid), default=1)
        for y, row in enumerate(grid):
            offset = (widest - len(row)) * (BOX_W + GAP_X) / 2
            for x, node_id in enumerate(row):
                left = offset + x * (BOX_W + GAP_X)
                top = y * (BOX_H + GAP_Y)
                box = QGraphicsRectItem(left, top, BOX_W, BOX_H)
                box.setBrush(QBrush(QColor(STATE_COLORS["pending"])))
                box.setPen(QPen(QColor("#607d8b")))
                box.setZValue(1)
                node = plan.nodes[node_id]
                label = QGraphicsSimpleTextItem(f"{node_id}\n{node.type}", box)
                label.setPos(left + 8, top + 5)
                box.setToolTip(f"{node_id} ({node.type})")
                self.graph_scene.addItem(box)
                self.boxes[node_id] = box
                self.states[node_id] = "pending"
                centers[node_id] = QPointF(left + BOX_W / 2, top + BOX_H / 2)
        pen = QPen(QColor("#90a4ae"))
        pen.setWidthF(1.5)
        for node_id in plan.order:
            for edge in plan.out_edges.get(node_id, []):
                if edge.source not in centers or edge.target not in centers:
                    continue
                a, b = centers[edge.source], centers[edge.target]
                line = QGraphicsLineItem(QLineF(a.x(), a.y() + BOX_H / 2, b.x(), b.y() - BOX_H / 2))
                line.setPen(pen)
                self.graph_scene.addItem(line)
                key = ",".join(sorted(edge.keys)) if edge.keys else None
                self.edges.append((edge.source, edge.target, key))
                if key:
                    tag = QGraphicsSimpleTextItem(key)
                    tag.setPos((a.x() + b.x()) / 2 + 4, (a.y() + b.y()) / 2 - 8)
                    tag.setBrush(QBrush(QColor("#455a64")))
                    tag.setZValue(2)
                    self.graph_scene.addItem(tag)
        self.graph_scene.setSceneRect(self.graph_scene.itemsBoundingRect().adjusted(-10, -10, 10, 10))

    def set_state(self, node_id: str, state: str) -> None:
        box = self.boxes.get(node_id)
        if box is None:
            return
        self.states[node_id] = state
        box.setBrush(QBrush(QColor(STATE_COLORS.get(state, STATE_COLORS["pending"]))))

    def reset_states(self) -> None:
        for node_id in self.boxes:
            self.set_state(node_id, "pending")


