"""The Activity page (was Runs / History): past workflow runs and any run's full event log.

Rows come from history.db (the same store ``relavium run`` writes), newest
first: local start time ("Today 14:03"; the full timestamp and zone on hover),
the workflow's name, its state in words ("Done", "Waiting for you") with an
icon, duration, tokens and cost -- no run ids or codes in a row or the run's
headline; those are in the run's Details tab.  With no runs yet the page says
so and offers one button, "Run a workflow" (``go_to_workflows``).  Selecting a run
shows what it did three ways: a timeline of sentences with a filter
(:mod:`.story_view`), a per-node time and cost waterfall (:mod:`.waterfall`),
and (under Details, with the run's id) the raw events, one JSON object per
line, as the engine persisted them (already masked and bounded).  Reading runs in a worker thread; the page
re-reads history each time it is navigated to.

A selected run that is paused at a human gate -- from this session, an
earlier one, or ``relavium run`` -- shows the gate (message, kind, payload
box) with Approve / Reject; the answer resumes the run through the engine's
``resume`` (the same path as ``relavium run --resume``) in the folder the run
was started in, and the history re-reads when it ends.  A gate with a
``timeout_ms`` that runs out while the window is open gets its
``timeout_action`` then, not only at the next resume.

A run whose process ended before it finished (killed, crashed, the machine
shut down, ``relavium run``'s output closed) reads ``interrupted``; its
tooltip and log title say what happened.  Its log and last checkpoint are
kept; the tooltip says how to continue it from that checkpoint.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import TYPE_CHECKING

from relavium_desktop.engine.display_text import show_block, show_line
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.workflow.run_state import RunState, fold
from relavium_desktop.ui.mcp.hooks import app_mcp_hooks
from relavium_desktop.ui.qt import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QIcon,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTimer,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.runs.gate_panel import GatePanel
from relavium_desktop.ui.runs.local_time import full_local, short_local
from relavium_desktop.ui.runs.run_story import dollars, format_ms, node_spans, story
from relavium_desktop.ui.runs.run_undo import RunUndoBar
from relavium_desktop.ui.runs.story_view import StoryView
from relavium_desktop.ui.runs.waterfall import Waterfall
from relavium_desktop.ui.tasks import spawn
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.fonts import mono_font
from relavium_desktop.ui.theme.icons import icon
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_2, SPACE_3, SPACE_6
from relavium_desktop.ui.workflows.gate_payload import under_review
from relavium_desktop.ui.workflows.list_row import STATUS_ICONS
from relavium_desktop.ui.workflows.splitter_memory import remember_sizes

if TYPE_CHECKING:
    from relavium_desktop.application.app import Application
    from relavium_desktop.engine.workflow.run import GateDecision, RunResult
    from relavium_desktop.ui.context import AppContext
    from relavium_desktop.ui.gate_board import GateBoard
    from relavium_desktop.ui.workflows.runner import WorkflowRunner

COLUMNS = ["Started", "Workflow", "Status", "Duration", "Tokens (in / out)", "Cost"]
# A run's recorded status as a person says it (the stored word stays in the run's details).
STATUS_WORDS = {
    "completed": "Done",
    "failed": "Failed",
    "paused": "Waiting for you",
    "running": "Running",
    "pending": "Starting",
    "cancelled": "Cancelled",
    "interrupted": "Interrupted",
}
EMPTY_TEXT = "No workflow runs yet. Runs you start from Workflows, or with relavium run, show up here."
PAGE_SIZE = 200  # rows read at a time; "Load more" reads the next page
INTERRUPTED_HINT = ("It did not finish. If it was cut off between steps, continue it with "
                    "relavium run --resume {run_id} (finished steps are kept); otherwise run the workflow again.")


def status_text(status: str) -> str:
    """``completed`` -> "Done", ``paused`` -> "Waiting for you": the words a row shows."""
    return STATUS_WORDS.get(status, status.replace("_", " ").capitalize())


def run_name(run: JsonDict) -> str:
    """The workflow's name as its author wrote it (its id when it has none), safe to show."""
    return show_line(str(run.get("workflow_name") or run.get("workflow_id") or "A workflow"))


def run_headline(run: JsonDict | None, events: int) -> str:
    """The selected run in words: "Double it — Done · Today 14:03 · 8 events" (no ids, no codes)."""
    if run is None:
        return f"A run that is no longer in the history · {events} events"
    status = str(run["status"])
    words = status_text(status)
    error = run.get("error")
    if isinstance(error, dict) and error.get("message"):
        words += f": {error.get('message')}"
    return show_line(f"{run_name(run)} — {words} · {short_local(run['started_at'])} · {events} events")


def run_details(run_id: str, run: JsonDict | None) -> str:
    """What a bug report needs and a person does not read first: the id, stored status, error code."""
    parts = [f"Run ID {run_id}"]
    if run is not None:
        parts.append(f"status {run['status']}")
        error = run.get("error")
        if isinstance(error, dict) and error.get("code"):
            parts.append(f"error {error.get('code')}")
        parts.append(f"started {full_local(run['started_at'])}")
        parts.append(f"source {run.get('source')}")
    return show_line(" · ".join(parts))


def format_duration(ms: int | None) -> str:
    return format_ms(ms)


def format_cost(microcents: int) -> str:
    """Micro-cents (1e-6 cent) as dollars; small costs keep their significant digits."""
    return dollars(microcents)


def status_tooltip(run: JsonDict) -> str:
    """What a status cell explains on hover: why an interrupted run stopped."""
    if run.get("status") != "interrupted":
        return ""
    error = run.get("error")
    why = str(error.get("message")) if isinstance(error, dict) and error.get("message") else \
        "the process running it ended before it finished"
    return f"Interrupted: {why}. {INTERRUPTED_HINT.format(run_id=run.get('id', 'RUN_ID'))}"


def _read_runs(app: Application, limit: int) -> tuple[list[JsonDict], int]:
    """The newest ``limit`` runs and how many there are in all (for "showing N of M").

    Read from the window's one run journal (``app.runs()``, shared and left open),
    not a history.db connection opened per refresh.
    """
    store = app.runs()
    return store.list_runs(limit=limit), store.count_runs()


def _read_gates(app: Application, run_id: str) -> tuple[list[JsonDict], JsonDict] | None:
    return app.runs().paused_gates(run_id)


def _read_events(app: Application, run_id: str) -> list[JsonDict]:
    return app.runs().events(run_id)


class RunsView(QWidget):
    refreshed = Signal()
    log_shown = Signal(str)  # run id
    gate_shown = Signal(str)  # run id whose pending gate the panel shows
    resumed = Signal(object)  # RunResult of a run resumed from this page
    go_to_workflows = Signal()  # the empty page's "Run a workflow": the shell shows Workflows

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.setObjectName("runsView")
        self.context = context
        self._runner: WorkflowRunner | None = None
        self._board: GateBoard | None = None
        self._resuming: str | None = None  # the run this page is resuming, until it ends
        self._run_workspace: str | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._gate_timed_out)
        self.gate_panel = GatePanel()
        self.gate_panel.decided.connect(self.answer_gate)
        self.undo_bar = RunUndoBar(context.app.undo, theme=context.theme)  # the run's writes, taken back
        self.runs: list[JsonDict] = []
        self.events: list[JsonDict] = []
        self.run_state = RunState.initial()  # the shown run, from the one reducer
        self.shown_run: str | None = None
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("runsTable")
        self.table.setAccessibleName("Workflow runs, newest first")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setShowGrid(False)  # rows, not a spreadsheet
        self.table.setFrameShape(QFrame.Shape.NoFrame)
        self.table.setWordWrap(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for column in range(len(COLUMNS)):  # headers such as "Tokens (in / out)" are never cut
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COLUMNS.index("Workflow"), QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._selected)
        set_surface(self.table, "card")
        self.empty_label = QLabel("")
        self.empty_label.setObjectName("runsEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        set_tone(self.empty_label, "muted")
        self.empty_button = QPushButton("Run a workflow")
        self.empty_button.setObjectName("runsGoToWorkflows")
        self.empty_button.setToolTip("Open Workflows to pick one and run it")
        self.empty_button.setAutoDefault(False)
        set_variant(self.empty_button, "primary")
        self.empty_button.clicked.connect(self.go_to_workflows)
        self.empty_state = QWidget()
        self.empty_state.setObjectName("runsEmptyState")
        empty_col = QVBoxLayout(self.empty_state)
        empty_col.setContentsMargins(SPACE_6, SPACE_6, SPACE_6, SPACE_6)
        empty_col.setSpacing(SPACE_3)
        empty_col.addStretch(1)
        empty_col.addWidget(self.empty_label)
        empty_col.addWidget(self.empty_button, 0, Qt.AlignmentFlag.AlignHCenter)
        empty_col.addStretch(1)
        self.empty_state.hide()
        self.total_runs = 0
        self._wanted = PAGE_SIZE  # how many rows the list shows; grows with "Load more"
        self.count_label = QLabel("")
        self.count_label.setObjectName("runsCount")
        set_variant(self.count_label, "caption")
        set_tone(self.count_label, "muted")
        self.more_button = QPushButton("Load more")
        self.more_button.setObjectName("runsLoadMore")
        self.more_button.setAutoDefault(False)
        set_variant(self.more_button, "secondary")
        self.more_button.setVisible(False)
        self.more_button.clicked.connect(self.load_more)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip("Read the run history again (F5)")
        self.refresh_button.setShortcut("F5")
        self.refresh_button.setAutoDefault(False)
        set_variant(self.refresh_button, "ghost")
        self.refresh_button.clicked.connect(self.refresh)
        self.log_title = QLabel("Select a run to see what it did.")
        self.log_title.setObjectName("runTitle")
        self.log_title.setWordWrap(True)
        set_variant(self.log_title, "title")
        palette = context.theme.palette
        self.story_view = StoryView(palette)
        self.waterfall = Waterfall(palette)
        waterfall_scroll = QScrollArea()
        waterfall_scroll.setObjectName("waterfallScroll")
        waterfall_scroll.setWidgetResizable(True)
        waterfall_scroll.setFrameShape(QFrame.Shape.NoFrame)
        waterfall_scroll.setWidget(self.waterfall)
        self.log_view = QPlainTextEdit()
        self.log_view.setObjectName("eventLog")
        self.log_view.setReadOnly(True)
        self.log_view.setFont(mono_font())
        self.log_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        # The run's id, stored status and error code: details for a bug report, not the primary text.
        self.details = QLabel("")
        self.details.setObjectName("runDetails")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_variant(self.details, "mono")
        set_tone(self.details, "muted")
        raw = QWidget()
        raw_col = QVBoxLayout(raw)
        raw_col.setContentsMargins(0, SPACE_2, 0, 0)
        raw_col.setSpacing(SPACE_2)
        raw_col.addWidget(self.details)
        raw_col.addWidget(self.log_view, 1)
        self.detail_tabs = QTabWidget()
        self.detail_tabs.setObjectName("runDetailTabs")
        self.detail_tabs.setDocumentMode(True)
        self.detail_tabs.addTab(self.story_view, "Timeline")
        self.detail_tabs.addTab(waterfall_scroll, "Waterfall")
        self.detail_tabs.addTab(raw, "Details")
        self.detail_tabs.setTabToolTip(2, "The run's id and every recorded event, one JSON object per line (NDJSON)")
        context.theme.changed.connect(self._retheme)

        top = QWidget()
        top_col = QVBoxLayout(top)
        top_col.setContentsMargins(0, 0, 0, 0)
        top_col.setSpacing(SPACE_2)
        top_col.addWidget(self.table, 1)
        top_col.addWidget(self.empty_state, 1)
        count_row = QHBoxLayout()
        count_row.addWidget(self.count_label)
        count_row.addStretch(1)
        count_row.addWidget(self.more_button)
        count_row.addWidget(self.refresh_button)
        top_col.addLayout(count_row)
        bottom = QWidget()
        self.run_detail = bottom
        bottom_col = QVBoxLayout(bottom)
        bottom_col.setContentsMargins(0, SPACE_3, 0, 0)
        bottom_col.setSpacing(SPACE_3)
        bottom_col.addWidget(self.log_title)
        bottom_col.addWidget(self.undo_bar)
        bottom_col.addWidget(self.gate_panel)
        bottom_col.addWidget(self.detail_tabs, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("runsSplit")
        split.setChildrenCollapsible(False)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setStretchFactor(1, 2)
        remember_sizes(split, context.settings, "runs/split", [260, 640])
        # The window's top bar names the page ("Activity"): no second heading here.
        page = QVBoxLayout(self)
        page.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)
        page.addWidget(split, 1)

    def _retheme(self) -> None:
        palette = self.context.theme.palette
        self.story_view.set_palette(palette)
        self.waterfall.set_palette(palette)
        for row, run in enumerate(self.runs):
            item = self.table.item(row, COLUMNS.index("Status"))
            if item is not None:
                item.setIcon(self._status_icon(str(run["status"])))

    def _status_icon(self, status: str) -> QIcon:
        name, role = STATUS_ICONS.get(status, STATUS_ICONS[None])
        return icon(name, self.context.theme.palette, role)

    def refresh(self) -> None:
        if self._board is not None and self._resuming is None:
            self._board.sync()  # the window's pending gates follow what this re-read shows
        spawn(self.reload())

    def load_more(self) -> None:
        """Show the next page of older runs (the list keeps its selection)."""
        self._wanted += PAGE_SIZE
        self.refresh()

    async def reload(self) -> None:
        runs, total = await asyncio.to_thread(_read_runs, self.context.app, self._wanted)
        keep = self.shown_run
        self.runs = runs
        self.total_runs = total
        self.count_label.setText(f"Showing {len(runs)} of {total} runs" if runs else "")
        self.more_button.setVisible(len(runs) < total)
        if len(runs) < total:
            self.more_button.setText(f"Load {min(PAGE_SIZE, total - len(runs))} more")
        self.table.blockSignals(True)
        self.table.setRowCount(len(runs))
        for i, run in enumerate(runs):
            status = str(run["status"])
            cells = {
                "Started": short_local(run["started_at"]),
                "Workflow": run_name(run),
                "Status": status_text(status),
                "Duration": format_duration(run.get("duration_ms")),
                "Tokens (in / out)": f"{run['input_tokens']} / {run['output_tokens']}",
                "Cost": format_cost(int(run["cost_microcents"] or 0)),
            }
            for col, name in enumerate(COLUMNS):
                item = QTableWidgetItem(cells[name])
                if name == "Workflow":
                    item.setToolTip(show_line(str(run["source"])))
                elif name == "Status":
                    item.setIcon(self._status_icon(status))
                    if tip := status_tooltip(run):
                        item.setToolTip(tip)
                elif name == "Started":
                    item.setToolTip(full_local(run["started_at"]))
                self.table.setItem(i, col, item)
        self.table.clearSelection()
        self.table.blockSignals(False)
        self.empty_label.setText("" if runs else EMPTY_TEXT)
        self.table.setVisible(bool(runs))
        self.empty_state.setVisible(not runs)
        self.run_detail.setVisible(bool(runs))
        ids = [r["id"] for r in runs]
        if keep in ids:
            self.table.selectRow(ids.index(keep))
        self.refreshed.emit()

    def cell(self, row: int, column: str) -> str:
        item = self.table.item(row, COLUMNS.index(column))
        return item.text() if item is not None else ""

    def row_of(self, run_id: str) -> int:
        return [r["id"] for r in self.runs].index(run_id)

    def open_run(self, run_id: str) -> None:
        """Select a run (what clicking its row does); its log loads in the background."""
        self.table.selectRow(self.row_of(run_id))

    async def show_run(self, run_id: str) -> bool:
        """Re-read history, then open ``run_id``'s log if it is there (a notification's "Open")."""
        await self.reload()
        if not any(r["id"] == run_id for r in self.runs):
            return False
        self.open_run(run_id)
        return True

    def _selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows and rows[0].row() < len(self.runs):
            spawn(self.show_log(str(self.runs[rows[0].row()]["id"])))

    async def show_log(self, run_id: str) -> None:
        events = await asyncio.to_thread(_read_events, self.context.app, run_id)
        self.events = events
        self.shown_run = run_id
        run = next((r for r in self.runs if r["id"] == run_id), None)
        # The run as the one reducer has it (the Workflows view, the tray and the notices read the same).
        state = fold(events, RunState.initial(run_id))
        if run is not None:
            error = run.get("error")
            state = state.with_recorded_status(str(run["status"]), error if isinstance(error, dict) else None)
        self.run_state = state
        self.log_title.setText(run_headline(run, len(events)))
        self.details.setText(run_details(run_id, run))
        # JSON escapes controls but not bidi or invisible characters: the display rule marks those.
        self.log_view.setPlainText(show_block("\n".join(json.dumps(e, ensure_ascii=False, default=str)
                                                        for e in events)))
        self.story_view.set_rows(story(events))
        self.waterfall.set_spans(node_spans(events))
        self.undo_bar.show_run(run_id)
        await self._show_gate(run_id, run)
        self.log_shown.emit(run_id)

    # -- answering a paused run's gate -----------------------------------------

    async def _show_gate(self, run_id: str, run: JsonDict | None) -> None:
        if run_id == self._resuming:
            return  # the panel is showing the run being resumed
        self._timer.stop()
        paused = await asyncio.to_thread(_read_gates, self.context.app, run_id) \
            if run is not None and self.run_state.paused else None
        if self.shown_run != run_id:
            return  # another run was selected meanwhile
        if not paused or not paused[0]:
            self.gate_panel.clear_gate()
            return
        gates, surface = paused
        self._run_workspace = surface.get("workspace")
        gate = gates[0]
        self.gate_panel.show_gate(run_id, gate, under_review(self.events, str(gate.get("nodeId"))))
        self._arm_gate_timer(gate, only_if_ahead=False)
        self.gate_shown.emit(run_id)

    def attach_gate_board(self, board: GateBoard) -> None:
        """Share the window's pending gates: answers given here feed it, answers given elsewhere show here."""
        self._board = board
        board.watch_runner(self._ensure_runner())
        board.gate_answered.connect(self._answered_elsewhere)
        board.changed.connect(self._gates_changed)

    def _answered_elsewhere(self, run_id: str, gate_id: str) -> None:
        """The shown gate was answered (Workflows, a notification, the CLI): the panel goes, the list re-reads."""
        panel = self.gate_panel
        if self._resuming == run_id or panel.run_id != run_id or panel.gate is None \
                or str(panel.gate.get("gateId")) != gate_id:
            return
        self._timer.stop()
        panel.clear_gate()
        if self.isVisible():
            spawn(self._after_resume(run_id))

    def _gates_changed(self) -> None:
        if self.isVisible() and self._resuming is None:
            self.refresh()  # a run paused or answered elsewhere: its status cell and icon change

    def _ensure_runner(self) -> WorkflowRunner:
        from relavium_desktop.ui.workflows.runner import WorkflowRunner

        if self._runner is None:
            context = self.context
            self._runner = WorkflowRunner(
                workspace=lambda: context.project,
                os_capability=lambda: context.desktop_os,
                approval_hook=context.approval_hook,
                mcp_hooks=lambda: app_mcp_hooks(context),
                app=lambda: context.app,  # the window's one Application: its shared run store
                parent=self,
            )
            self._runner.finished.connect(self._resume_finished)
            self._runner.failed_to_start.connect(self._resume_refused)
        return self._runner

    def answer_gate(self, run_id: str, gate_id: str, decision: GateDecision) -> None:
        """Resume a paused run with a decision (what Approve / Reject do)."""
        self._timer.stop()
        self.context.ensure_services()
        self._resuming = run_id
        self._ensure_runner().resume(run_id, decision, gate_id, workspace=self._run_workspace)

    def _arm_gate_timer(self, gate: JsonDict, *, only_if_ahead: bool) -> bool:
        """Start the timer to fire just after the gate's expiry; whether it was started.

        The engine refuses a timeout answer before the gate is due, hence the
        50 ms margin, and ``only_if_ahead`` re-arms a timer that fired early
        (Qt's default coarse timers may run up to 5% ahead) for the time left.
        """
        expires = gate.get("expiresAtEpoch")
        if not isinstance(expires, int | float):
            return False
        left = expires - time.time()
        if only_if_ahead and left <= 0:
            return False
        self._timer.start(max(0, int(left * 1000)) + 50)
        return True

    def _gate_timed_out(self) -> None:
        from relavium_desktop.engine.workflow.run import GateDecision

        panel = self.gate_panel
        if panel.run_id is None or panel.gate is None or self._resuming is not None:
            return
        if self._runner is not None and self._runner.busy:
            self._timer.start(500)  # another resume is finishing; try again shortly
            return
        if self._arm_gate_timer(panel.gate, only_if_ahead=True):
            return  # fired early: wait out the rest
        panel.set_busy(True)
        panel.status.setText("The gate timed out; applying its timeout action…")
        self.answer_gate(panel.run_id, str(panel.gate.get("gateId")), GateDecision("rejected", "timeout"))

    def _resume_refused(self, message: str) -> None:
        self._resuming = None
        self.gate_panel.set_busy(False)
        self.gate_panel.status.setText(message)

    def _resume_finished(self, result: RunResult) -> None:
        self._resuming = None
        self.gate_panel.clear_gate()
        self.resumed.emit(result)
        spawn(self._after_resume(result.run_id))

    async def _after_resume(self, run_id: str) -> None:
        self.shown_run = run_id
        await self.reload()
        if run_id in [r["id"] for r in self.runs]:
            await self.show_log(run_id)

