"""The live timeline of a run: one row per node, its state, tokens, tool cards, output.

Events arrive in sequence order on the GUI thread.  State changes update the
row at once; streamed agent tokens are appended to the node's record and the
open detail pane is refreshed on a short timer, so a fast stream costs one
repaint per tick rather than one per token.  Everything shown comes from the
events, which the engine already masked and bounded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.workflow.run_state import NodeState, RunState, reduce
from relavium_desktop.ui.qt import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QIcon,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QTimer,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.readable import readable
from relavium_desktop.ui.theme.icons import icon

if TYPE_CHECKING:
    from relavium_desktop.ui.theme.palette import Palette

FLUSH_MS = 30

# A node state -> (icon, palette role tinting it) in the State column; no icon while pending.
STATE_ICONS = {
    "running": ("play", "info"),
    "retrying": ("refresh", "warning"),
    "waiting": ("pause", "warning"),
    "completed": ("check", "success"),
    "failed": ("x", "danger"),
    "skipped": ("chevron-right", "muted"),
    "cancelled": ("stop", "muted"),
}

# A node state -> the word the run panel shows (the stored state stays in ``NodeRecord.state``).
STATE_WORDS = {
    "pending": "Not started",
    "running": "Running",
    "retrying": "Trying again",
    "waiting": "Waiting for you",
    "completed": "Done",
    "failed": "Failed",
    "skipped": "Skipped",
    "cancelled": "Cancelled",
}

WAITING_DETAIL = "waits for your answer: {message}"
PAUSED_LINE = "Paused at a human gate: waiting for a decision"


def shown_state(node: NodeState) -> str:
    """The State column's word for a node: the reducer's status, "retrying" between attempts."""
    return "retrying" if node.retrying and node.status == "running" else node.status


def status_line(state: RunState) -> str:
    """The line above the timeline for a run's status (the reducer's, never a view's own guess)."""
    if state.status == "running":
        return "Running…"
    if state.status == "paused":
        return PAUSED_LINE
    if state.status == "completed":
        return f"Completed in {state.duration_ms or 0} ms"
    if state.status == "failed":
        return "Failed: " + (state.error.text() if state.error is not None else "")
    if state.status == "cancelled":
        return "Stopped"
    if state.status == "interrupted":
        return "Interrupted: " + (state.error.message if state.error is not None else "the run's process ended")
    return ""


NODE_STATE_BY_EVENT = {
    "node:started": "running",
    "node:completed": "completed",
    "node:failed": "failed",
    "node:skipped": "skipped",
    "node:retrying": "retrying",
    "human_gate:paused": "waiting",
}


@dataclass(slots=True)
class ToolCard:
    tool_id: str
    input_preview: str
    status: str = "running"  # running | ok | error
    summary: str = ""

    def render(self) -> str:
        word = {"running": "running", "ok": "done", "error": "failed"}[self.status]
        text = f"Tool {self.tool_id} ({word}) {self.input_preview}".rstrip()
        if self.summary:
            text += "\n    " + self.summary.replace("\n", "\n    ")
        return text


@dataclass(slots=True)
class NodeRecord:
    node_id: str
    node_type: str
    state: str = "pending"
    detail: str = ""  # skip reason, error message, duration
    decision: str = ""  # a gate's answer, e.g. "approved by desktop"
    tokens: list[str] = field(default_factory=list)
    tools: list[ToolCard] = field(default_factory=list)
    output: Any = None
    has_output: bool = False

    @property
    def streamed(self) -> str:
        return "".join(self.tokens)

    def render(self) -> str:
        kind = self.node_type.replace("_", " ")  # "human gate", not the YAML's human_gate
        parts = [f"{self.node_id} ({kind}): {self.state}" + (f" — {self.detail}" if self.detail else "")]
        if self.tokens:
            parts.append("Agent output:\n" + self.streamed)
        parts.extend(card.render() for card in self.tools)
        if self.has_output:
            parts.append("Output:\n" + readable(self.output, 1))
        return "\n\n".join(parts)


def shown_detail(detail: str) -> str:
    """A row's detail as words: a skip reason such as ``branch_not_taken`` reads "branch not taken"."""
    return detail.replace("_", " ") if detail.isidentifier() else detail


def _describe_error(error: Any) -> str:
    if not isinstance(error, dict):
        return ""
    code, message = error.get("code", ""), error.get("message", "")
    return f"{code}: {message}" if code else str(message)


class RunTimeline(QWidget):
    node_state_changed = Signal(str, str)  # node id, state

    def __init__(self, palette: Palette, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("runTimeline")
        self.palette_now = palette
        self.records: dict[str, NodeRecord] = {}
        self.order: list[str] = []
        self.run_state = RunState.initial()
        self.table = QTableWidget(0, 3)
        self.table.setObjectName("timelineTable")
        self.table.setHorizontalHeaderLabels(["Step", "State", "Detail"])
        self.table.setAccessibleName("This run's steps")
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setVisible(False)  # the rows read as "● draft  Done  3.8 s"
        self.table.setShowGrid(False)
        self.table.setFrameShape(QFrame.Shape.NoFrame)
        self.table.setWordWrap(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._show_selected)
        self.details = QPlainTextEdit()
        self.details.setObjectName("nodeDetails")
        self.details.setReadOnly(True)
        self.details.setPlaceholderText("Select a node to see its streamed text, tool calls and output.")
        self.status = QLabel("")
        self.status.setObjectName("runStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.details)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.status)
        column.addWidget(split, 1)
        self._dirty = False
        self._flush = QTimer(self)
        self._flush.setSingleShot(True)
        self._flush.setInterval(FLUSH_MS)
        self._flush.timeout.connect(self._refresh_details)

    # -- setup ---------------------------------------------------------------

    def set_nodes(self, nodes: list[tuple[str, str]]) -> None:
        """(id, type) of every node, in plan order; all pending."""
        self.run_state = RunState.initial(node_ids=nodes)
        self.records = {nid: NodeRecord(nid, ntype) for nid, ntype in nodes}
        self.order = [nid for nid, _ in nodes]
        self.table.setRowCount(len(nodes))
        for row, (nid, ntype) in enumerate(nodes):
            step = QTableWidgetItem(nid)
            step.setToolTip(f"{nid} ({str(ntype).replace('_', ' ')})")
            self.table.setItem(row, 0, step)
            self.table.setItem(row, 1, QTableWidgetItem(STATE_WORDS["pending"]))
            self.table.setItem(row, 2, QTableWidgetItem(""))
        self.details.clear()
        self.status.setText("")

    def reset(self) -> None:
        self.set_nodes([(r.node_id, r.node_type) for r in self.records.values()])

    # -- events --------------------------------------------------------------

    def apply(self, event: JsonDict) -> None:
        """One run event: states and the status line from the one reducer; tokens and tool cards kept here."""
        kind = str(event.get("type", ""))
        self.run_state = reduce(self.run_state, event)
        node_id = event.get("nodeId")
        record = self.records.get(str(node_id)) if node_id is not None else None
        if kind in NODE_STATE_BY_EVENT and record is not None:
            if kind == "human_gate:paused":
                record.detail = WAITING_DETAIL.format(message=event.get("message", ""))
            elif kind == "node:skipped":
                record.detail = str(event.get("reason", ""))
            elif kind == "node:failed":
                record.detail = _describe_error(event.get("error"))
            elif kind == "node:retrying":
                record.detail = f"attempt {event.get('attemptNumber')}: {_describe_error(event.get('error'))}"
            elif kind == "node:completed":
                took = f"{event.get('durationMs', 0)} ms"
                record.detail = f"{record.decision} · {took}" if record.decision else took
                record.output = event.get("output")
                record.has_output = True
            elif kind == "node:started" and record.state != "waiting":
                record.detail = ""  # a gate's start event precedes its paused event: keep what it waits for
            self._sync_states()
        elif kind == "human_gate:resumed" and record is not None:
            node = self.run_state.node(record.node_id)
            record.decision = node.decision if node is not None else str(event.get("decision"))
            record.detail = record.decision
            if event.get("decision") != "rejected":  # the gate's completion (no node:completed follows)
                record.output = {k: event[k] for k in ("decision", "decidedBy", "payload") if k in event}
                record.has_output = True
            self._sync_states()
            self._update_row(record)
        elif kind == "budget:paused" and record is not None:
            node = self.run_state.node(record.node_id)
            record.detail = node.summary if node is not None else ""
            self._sync_states()
        elif kind == "agent:token" and record is not None:
            record.tokens.append(str(event.get("token", "")))
            self._touch(record)
        elif kind == "agent:tool_call" and record is not None:
            preview = event.get("toolInput", {})
            text = preview.get("preview") if isinstance(preview, dict) and "preview" in preview else preview
            record.tools.append(ToolCard(str(event.get("toolId")),
                                         text if isinstance(text, str) else json.dumps(text, default=str)))
            self._touch(record)
        elif kind == "agent:tool_result" and record is not None:
            card = next((c for c in reversed(record.tools)
                         if c.tool_id == event.get("toolId") and c.status == "running"), None)
            if card is None:
                card = ToolCard(str(event.get("toolId")), "")
                record.tools.append(card)
            card.status = "ok" if event.get("success") else "error"
            card.summary = str(event.get("outputSummary") or "") if event.get("success") \
                else _describe_error(event.get("error"))
            self._touch(record)
        elif kind.startswith("run:"):
            self._sync_states()
            self.status.setText(status_line(self.run_state))

    def show_state(self, state: RunState) -> None:
        """Show a run's state as it stands (a refresh, a reopened run): node states, details, status line."""
        self.run_state = state
        for record in self.records.values():
            node = state.node(record.node_id)
            if node is None:
                continue
            gate = state.gate_for(record.node_id)
            if gate is not None:
                record.detail = WAITING_DETAIL.format(message=gate.message)
            elif node.decision:
                record.decision = record.detail = node.decision
            elif node.summary and not record.detail:
                record.detail = node.summary  # a live run's own detail ("12 ms", a tool card's) is kept
        self._sync_states()
        for record in self.records.values():
            self._update_row(record)
        self.status.setText(status_line(state))

    def _sync_states(self) -> None:
        """Every row's state from the reducer's NodeState; a changed one is repainted and told."""
        for record in self.records.values():
            node = self.run_state.node(record.node_id)
            if node is None:
                continue
            shown = shown_state(node)
            if shown != record.state:
                self._set_state(record, shown)

    def _set_state(self, record: NodeRecord, state: str) -> None:
        record.state = state
        self._update_row(record)
        self._touch(record)
        self.node_state_changed.emit(record.node_id, state)

    def _update_row(self, record: NodeRecord) -> None:
        row = self.order.index(record.node_id)
        for col, text in ((1, STATE_WORDS.get(record.state, record.state)), (2, shown_detail(record.detail))):
            item = self.table.item(row, col)
            if item is not None:
                item.setText(text)
        step_item = self.table.item(row, 0)
        if step_item is not None:
            step_item.setIcon(self.state_icon(record.state))
        detail_item = self.table.item(row, 2)
        if detail_item is not None:
            detail_item.setToolTip(record.detail)

    def state_icon(self, state: str) -> QIcon:
        spec = STATE_ICONS.get(state)
        return icon(spec[0], self.palette_now, spec[1]) if spec else QIcon()

    def set_palette(self, palette: Palette) -> None:
        """Re-tint the state icons for a new theme."""
        self.palette_now = palette
        for record in self.records.values():
            self._update_row(record)

    def _touch(self, record: NodeRecord) -> None:
        if self.selected() == record.node_id and not self._flush.isActive():
            self._flush.start()

    # -- details -------------------------------------------------------------

    def selected(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        return self.order[rows[0].row()] if rows else None

    def select(self, node_id: str) -> None:
        self.table.selectRow(self.order.index(node_id))

    def _show_selected(self) -> None:
        self._refresh_details()

    def _refresh_details(self) -> None:
        node_id = self.selected()
        record = self.records.get(node_id) if node_id else None
        self.details.setPlainText(record.render() if record else "")

    def state_of(self, node_id: str) -> str:
        return self.records[node_id].state
