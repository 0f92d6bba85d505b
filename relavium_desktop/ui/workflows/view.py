"""The Workflows page: list, graph, inputs, Run / Stop, live timeline, outputs, gates.

Three columns as in the design: the project's workflows (two-line rows, a
fixed width), the graph canvas (the rest), and the run panel (fixed width:
the gate card when a run waits, inputs, Run, this run's steps, outputs,
Stop).  The columns' widths never depend on what they hold, so choosing
another workflow changes their contents, never their geometry.  One primary
button: Run, or Approve while a gate waits.

The view owns no run logic: loading is :mod:`.catalog`, running is
:class:`.runner.WorkflowRunner` (the same engine ``relavium run`` builds),
gates are :class:`.gate.GatePrompter` and the gate panel (a paused run is
answered, or stopped, right here).  What the page shows of a run is the one
reducer's :class:`~relavium_desktop.engine.workflow.run_state.RunState`, kept
across a refresh; the window's :class:`~relavium_desktop.ui.gate_board.GateBoard`
brings in runs paused or answered elsewhere.  Showing a finished run in Runs / History
is the window's job: the page asks for it with ``open_run``.  Blocking work (walking the project,
parsing YAML, reading history.db) runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.mcp.hooks import app_mcp_hooks
from relavium_desktop.ui.qt import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSize,
    QSizePolicy,
    QStackedWidget,
    Qt,
    QToolButton,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.readable import readable
from relavium_desktop.ui.runs.gate_panel import GatePanel
from relavium_desktop.ui.tasks import spawn
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.fonts import mono_font
from relavium_desktop.ui.theme.icons import icon
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_2, SPACE_3, SPACE_4
from relavium_desktop.ui.workflows.catalog import WorkflowEntry, last_statuses, scan_project
from relavium_desktop.ui.workflows.examples import add_examples
from relavium_desktop.ui.workflows.gate import GatePrompter
from relavium_desktop.ui.workflows.gate_payload import under_review
from relavium_desktop.ui.workflows.graph_pane import GraphPane
from relavium_desktop.ui.workflows.inputs_form import InputsForm
from relavium_desktop.ui.workflows.list_row import WorkflowRowDelegate, fill_item
from relavium_desktop.ui.workflows.run_notice import RunNotifier
from relavium_desktop.ui.workflows.runner import WorkflowRunner
from relavium_desktop.ui.workflows.timeline import RunTimeline

if TYPE_CHECKING:
    from relavium_desktop.engine.workflow.run import GateDecision, RunResult
    from relavium_desktop.engine.workflow.run_state import PendingGate, RunState
    from relavium_desktop.ui.context import AppContext
    from relavium_desktop.ui.gate_board import GateBoard


LIST_WIDTH = 300  # the design's list column: names read whole, paths keep their file name
PANEL_WIDTH = 380  # the run panel beside the canvas: the gate, inputs, this run's steps
LIST_LEAST, PANEL_LEAST = 180, 260  # how far the two give way in a small window (the canvas first keeps its least)
OUTPUTS_HEIGHT = 160


class Column(QWidget):
    """A page column whose wanted width is fixed, whatever it holds.

    The layout gives it ``width`` when the window has the room and narrows it
    (never below ``least``) when not; its contents never change that, so
    choosing another workflow cannot move the columns.
    """

    def __init__(self, width: int, least: int) -> None:
        super().__init__()
        self._width = width
        self.setMinimumWidth(least)
        self.setMaximumWidth(width)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def sizeHint(self) -> QSize:
        return QSize(self._width, super().sizeHint().height())


def group_label(text: str) -> QLabel:
    """An uppercase caption over a group of the run panel ("INPUTS", "THIS RUN")."""
    label = QLabel(text.upper())
    set_variant(label, "group-label")
    return label


def workflow_project(file: Path, current: str | None) -> Path:
    """The project a workflow file belongs to (see :meth:`WorkflowsView.open_workflow_path`)."""
    if current and file.is_relative_to(current):
        return Path(current)
    for folder in file.parents:
        if (folder / "workflows").is_dir():
            return folder
    return file.parent


def gate_dict(gate: PendingGate) -> JsonDict:
    """A pending gate in the wire shape the gate panel and dialog read (``nodeId``, ``gateId``, ...)."""
    out: JsonDict = {"gateId": gate.gate_id, "nodeId": gate.node_id, "gateType": gate.gate_type,
                     "message": gate.message}
    if gate.expires_at:
        out["expiresAt"] = gate.expires_at
    return out


class WorkflowsView(QWidget):
    refreshed = Signal()
    run_finished = Signal(object)  # RunResult
    open_run = Signal(str)  # run id to show in Runs / History
    examples_added = Signal(int)  # how many example files were copied
    choose_project = Signal()  # the no-project state's one button: the shell opens its folder picker

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.setObjectName("workflowsView")
        self.context = context
        self.entries: list[WorkflowEntry] = []
        self.current: WorkflowEntry | None = None
        self.run_id: str | None = None
        self.run_events: list[JsonDict] = []  # node events of the current run: what a gate reviews
        self.board: GateBoard | None = None
        self._active = False  # a run of this view is running (not paused)
        palette = context.theme.palette

        mono = mono_font()

        # -- left: the project's workflows -------------------------------------
        self.workflow_list = QListWidget()
        self.workflow_list.setObjectName("workflowList")
        self.workflow_list.setAccessibleName("Workflows in this project")
        self.row_delegate = WorkflowRowDelegate(palette, self.workflow_list)
        self.workflow_list.setItemDelegate(self.row_delegate)
        self.workflow_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.workflow_list.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.workflow_list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.workflow_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.workflow_list.setWordWrap(False)
        self.workflow_list.setMouseTracking(True)  # the hovered row is painted softly
        self.workflow_list.setFrameShape(QFrame.Shape.NoFrame)
        set_surface(self.workflow_list, "sunken")
        self.workflow_list.currentRowChanged.connect(self._picked)
        # Refresh sits in the list's header as a small icon (F5 from anywhere on the page): a lone
        # text button under the list read as a stray control.
        self.list_heading = QLabel("In this project")
        self.list_heading.setObjectName("workflowListHeading")
        set_variant(self.list_heading, "group-label")
        self.refresh_button = QToolButton()
        self.refresh_button.setObjectName("refreshWorkflows")
        self.refresh_button.setText("Refresh")
        self.refresh_button.setAccessibleName("Refresh")
        self.refresh_button.setToolTip("Refresh: read the project's workflow files again (F5)")
        self.refresh_button.setShortcut("F5")
        self.refresh_button.setAutoRaise(True)
        self.refresh_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        self.refresh_button.setIcon(icon("refresh", palette, "muted"))
        set_variant(self.refresh_button, "ghost")
        self.refresh_button.clicked.connect(self.refresh)
        self.empty_label = QLabel("")
        self.empty_label.setWordWrap(True)
        set_tone(self.empty_label, "muted")
        self.examples_button = QPushButton("Add example workflows")
        self.examples_button.setObjectName("addExamplesButton")
        self.examples_button.setToolTip("Copy the bundled example workflows into this project's workflows folder")
        self.examples_button.setAutoDefault(False)
        set_variant(self.examples_button, "primary")  # the empty page's one next step
        self.examples_button.clicked.connect(self.add_examples)
        self.examples_button.hide()
        self.folder_button = QPushButton("Choose a project folder…")
        self.folder_button.setObjectName("chooseProjectButton")
        self.folder_button.setToolTip("Pick the folder whose workflows this page lists")
        self.folder_button.setAutoDefault(False)
        set_variant(self.folder_button, "primary")  # the no-project page's one next step
        self.folder_button.clicked.connect(self.choose_project)
        self.folder_button.hide()
        left = Column(LIST_WIDTH, LIST_LEAST)
        left.setObjectName("workflowListColumn")
        left_col = QVBoxLayout(left)
        left_col.setContentsMargins(0, 0, 0, 0)
        left_col.setSpacing(SPACE_2)
        list_head = QHBoxLayout()
        list_head.setContentsMargins(SPACE_2, 0, 0, 0)
        list_head.addWidget(self.list_heading, 1)
        list_head.addWidget(self.refresh_button)
        left_col.addLayout(list_head)
        left_col.addWidget(self.workflow_list, 1)
        left_col.addWidget(self.empty_label)
        left_col.addWidget(self.examples_button)
        left_col.addWidget(self.folder_button)
        self.left = left

        # -- middle: the open workflow's graph (or why it does not load) --------
        self.title = QLabel("Open a workflow to see its graph and run it.")
        self.title.setObjectName("workflowTitle")
        set_variant(self.title, "title")
        # One line whatever the name's length: a long title never pushes the columns around.
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.error_view = QPlainTextEdit()
        self.error_view.setObjectName("workflowErrors")
        self.error_view.setReadOnly(True)
        self.error_view.setFont(mono)
        self.graph_pane = GraphPane(palette)
        self.graph = self.graph_pane.graph
        self.canvas_hint = QLabel("Pick a workflow on the left to see its steps here.")
        self.canvas_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.canvas_hint.setWordWrap(True)
        set_tone(self.canvas_hint, "muted")
        self.canvas = QStackedWidget()
        self.canvas.setObjectName("workflowCanvas")
        for shown in (self.canvas_hint, self.graph_pane, self.error_view):
            self.canvas.addWidget(shown)
        middle = QWidget()
        middle.setObjectName("workflowCanvasColumn")
        middle_col = QVBoxLayout(middle)
        middle_col.setContentsMargins(0, 0, 0, 0)
        middle_col.setSpacing(SPACE_2)
        middle_col.addWidget(self.title)
        middle_col.addWidget(self.canvas, 1)
        self.middle = middle

        # -- right: inputs, run, the gate, this run's steps, outputs -------------
        self.inputs = InputsForm()
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("runButton")
        self.run_button.setToolTip("Run this workflow with these inputs (Ctrl+Enter)")
        self.run_button.setShortcut("Ctrl+Return")
        self.stop_button = QPushButton("Stop this run")
        self.stop_button.setObjectName("stopButton")
        for b in (self.run_button, self.stop_button):
            b.setAutoDefault(False)
        set_variant(self.run_button, "primary")
        set_variant(self.stop_button, "secondary")
        self.run_button.setEnabled(False)
        self.stop_button.setEnabled(False)
        self.run_button.clicked.connect(self.run_current)
        self.stop_button.clicked.connect(self.stop)
        self.message = QLabel("")
        self.message.setObjectName("runMessage")
        self.message.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.setSpacing(SPACE_2)
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        self.timeline = RunTimeline(palette)
        # A paused run's gate, answered right here (the same panel Runs / History shows).
        self.gate_panel = GatePanel()
        self.gate_panel.setObjectName("workflowGatePanel")
        self.gate_panel.decided.connect(self._gate_decided)
        self.gate_panel.shown_changed.connect(self._primary_now)
        self.outputs_view = QPlainTextEdit()
        self.outputs_view.setObjectName("finalOutputs")
        self.outputs_view.setReadOnly(True)
        self.outputs_view.setFont(mono)
        self.outputs_view.setPlaceholderText("The run's final outputs appear here.")
        self.outputs_view.setMaximumHeight(OUTPUTS_HEIGHT)

        controls = QWidget()
        controls_col = QVBoxLayout(controls)
        controls_col.setContentsMargins(0, 0, SPACE_2, 0)  # room for the scroll bar
        controls_col.setSpacing(SPACE_3)
        controls_col.addWidget(self.gate_panel)
        controls_col.addWidget(group_label("Inputs"))
        controls_col.addWidget(self.inputs)
        controls_col.addLayout(buttons)
        controls_col.addWidget(self.message)
        controls_col.addWidget(group_label("This run"))
        controls_col.addWidget(self.timeline, 1)
        controls_col.addWidget(group_label("Final outputs"))
        controls_col.addWidget(self.outputs_view)
        scroll = QScrollArea()
        scroll.setObjectName("workflowPanelScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(controls)
        right = Column(PANEL_WIDTH, PANEL_LEAST)
        right.setObjectName("workflowRunPanel")
        right_col = QVBoxLayout(right)
        right_col.setContentsMargins(0, 0, 0, 0)
        right_col.addWidget(scroll)
        self.right = right
        self.controls = controls

        # The three columns have fixed widths (the canvas takes the rest), so choosing
        # another workflow never moves them: only their contents change.
        # (The window's top bar names the page: no second "Workflows" heading here.)
        columns = QHBoxLayout()
        columns.setSpacing(SPACE_4)
        columns.addWidget(left)
        columns.addWidget(middle, 1)
        columns.addWidget(right)
        page = QVBoxLayout(self)
        page.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)
        page.addLayout(columns, 1)
        self._show_nothing()

        # -- running -------------------------------------------------------------
        self.runner = WorkflowRunner(
            workspace=lambda: self.context.project,
            os_capability=lambda: self.context.desktop_os,
            approval_hook=self.context.approval_hook,
            mcp_hooks=lambda: app_mcp_hooks(self.context),
            app=lambda: self.context.app,  # the window's one Application: its shared run store
            parent=self,
        )
        self.runner.run_event.connect(self._on_event)
        self.runner.finished.connect(self._on_finished)
        self.runner.failed_to_start.connect(self.message.setText)
        self.runner.running_changed.connect(self._running)
        self.timeline.node_state_changed.connect(self.graph.set_state)
        self.gates = GatePrompter(
            context.window, notifier=lambda: self.context.desktop_os,
            notify_enabled=lambda: self.context.notifications_enabled(keys.KEY_NOTIFY_APPROVALS),
        )
        self.gates.decided.connect(self._gate_decided)
        self.run_notices = RunNotifier(
            context.window, notifier=lambda: self.context.desktop_os,
            enabled=lambda: self.context.notifications_enabled(keys.KEY_NOTIFY_RUNS),
        )
        self.run_notices.open_requested.connect(self.open_run)
        context.project_changed.connect(lambda _p: self.refresh())
        context.theme.changed.connect(self._retheme)

    def _retheme(self) -> None:
        palette = self.context.theme.palette
        self.graph_pane.set_palette(palette)
        self.refresh_button.setIcon(icon("refresh", palette, "muted"))
        self.timeline.set_palette(palette)
        self.row_delegate.palette_now = palette
        for row, entry in enumerate(self.entries):
            fill_item(self.workflow_list.item(row), entry, palette)

    # -- the list --------------------------------------------------------------

    def refresh(self) -> None:
        if self.board is not None:
            self.board.sync()  # a run paused or answered by another process since: shown after the re-read
        spawn(self.reload())

    async def reload(self) -> None:
        project = self.context.project
        if not project:
            entries: list[WorkflowEntry] = []
        else:
            app = self.context.app

            def scan() -> list[WorkflowEntry]:
                return scan_project(Path(project), last_statuses(app), home=app.paths.home)

            entries = await asyncio.to_thread(scan)
        if project != self.context.project:
            return  # the project changed while scanning; that scan's refresh wins
        keep = self.current.rel if self.current else None
        self.entries = entries
        self.workflow_list.blockSignals(True)
        self.workflow_list.clear()
        palette = self.context.theme.palette
        for entry in entries:
            item = QListWidgetItem()
            fill_item(item, entry, palette)
            self.workflow_list.addItem(item)
        self.workflow_list.blockSignals(False)
        if not project:
            self.empty_label.setText("Choose a project folder to see its workflows.")
        elif not entries:
            self.empty_label.setText("No *.relavium.yaml files in this project yet. "
                                     "Start from the examples, or write your own.")
        else:
            self.empty_label.setText("")
        self.examples_button.setVisible(bool(project) and not entries)
        self.folder_button.setVisible(not project)
        rels = [e.rel for e in entries]
        if keep in rels:
            self.workflow_list.setCurrentRow(rels.index(keep))
        elif self.current is not None and not self.runner.busy:
            self._close_current()
        self.refreshed.emit()

    def add_examples(self) -> None:
        """Copy the bundled examples into ``<project>/workflows`` (never overwriting), then list them."""
        spawn(self._add_examples())

    async def _add_examples(self) -> None:
        project = self.context.project
        if not project:
            return
        self.examples_button.setEnabled(False)
        try:
            written = await asyncio.to_thread(add_examples, Path(project))
        except OSError as exc:
            self.empty_label.setText(f"Could not copy the examples: {exc.strerror or type(exc).__name__}")
            return
        finally:
            self.examples_button.setEnabled(True)
        self.examples_added.emit(len(written))
        await self.reload()

    def _picked(self, row: int) -> None:
        if 0 <= row < len(self.entries):
            self.show_entry(self.entries[row])

    def open_workflow(self, rel: str) -> WorkflowEntry:
        """Select a workflow by its project-relative path (what clicking it in the list does)."""
        rels = [e.rel for e in self.entries]
        self.workflow_list.setCurrentRow(rels.index(rel))
        assert self.current is not None
        return self.current

    def open_workflow_file(self, path: str) -> None:
        """Open a workflow file given by path (a double-click in the file manager, ``relavium-desktop FILE``)."""
        spawn(self.open_workflow_path(path))

    async def open_workflow_path(self, path: str) -> WorkflowEntry | None:
        """Switch to the file's project when it is not in the open one, list it, and select the file.

        The file's project is the open project when the file lies inside it;
        otherwise the nearest folder above the file that has a ``workflows/``
        folder (the layout ``Add example workflows`` makes), else the file's own
        folder.  Opening only selects the workflow: running it is still the
        user's click on Run.
        """
        file = Path(os.path.realpath(path))
        project = workflow_project(file, self.context.project)
        if str(project) != self.context.project:
            self.context.set_project(str(project))
        await self.reload()
        rel = file.relative_to(project).as_posix()
        if rel not in [e.rel for e in self.entries]:
            self.empty_label.setText(f"{rel} is not a workflow this page lists (it must end in .relavium.yaml, "
                                     "outside hidden and build folders).")
            return None
        return self.open_workflow(rel)

    def _close_current(self) -> None:
        self.current = None
        self.title.setText("Open a workflow to see its graph and run it.")
        self._show_nothing()
        self.run_button.setEnabled(False)

    def _show_nothing(self) -> None:
        """No workflow open: the canvas says what to do, the run panel waits (its width stays)."""
        self.canvas.setCurrentWidget(self.canvas_hint)
        self.controls.setEnabled(False)

    def _primary_now(self) -> None:
        """One primary button on the page: Approve while a gate waits, else Run."""
        set_variant(self.run_button, "secondary" if self.gate_panel.isVisibleTo(self) else "primary")

    def show_entry(self, entry: WorkflowEntry) -> None:
        if self.current is not None and self.current.rel == entry.rel and self.current.loaded is entry.loaded:
            return
        if self.runner.busy:
            self.message.setText("A run is in progress; stop it before opening another workflow.")
            if self.current is not None:
                rels = [e.rel for e in self.entries]
                if self.current.rel in rels:
                    self.workflow_list.blockSignals(True)
                    self.workflow_list.setCurrentRow(rels.index(self.current.rel))
                    self.workflow_list.blockSignals(False)
            return
        same = self.current is not None and self.current.rel == entry.rel and self.run_id is not None
        kept = self.timeline.run_state if same else None  # a refresh re-reads the file, not the run
        self.current = entry
        if kept is None:
            self.run_id = None
            self.gate_panel.clear_gate()
        self.title.setText(f"{entry.title} — {entry.rel}")
        self.message.setText("")
        self.outputs_view.clear()
        if entry.loaded is None:
            self.error_view.setPlainText(entry.error or "")
            self.canvas.setCurrentWidget(self.error_view)
            self.controls.setEnabled(False)
            self.run_button.setEnabled(False)
            return
        self.canvas.setCurrentWidget(self.graph_pane)
        self.controls.setEnabled(True)
        plan = entry.loaded.plan
        self.graph.show_plan(plan)
        self.inputs.set_inputs(entry.loaded.file.workflow.inputs)
        self.timeline.set_nodes([(n, plan.nodes[n].type) for n in plan.order])
        self.run_button.setEnabled(bool(self.context.project))
        if kept is None and self.board is not None:
            kept = self._paused_run_of(entry)  # paused earlier, or by `relavium run`: shown as such
            if kept is not None:
                self.run_id = kept.run_id
        if kept is not None:
            self.show_run_state(kept)
        self._running(self._active)

    def _paused_run_of(self, entry: WorkflowEntry) -> RunState | None:
        """The newest run of this workflow the gate board knows to wait at a gate."""
        if entry.loaded is None or self.board is None:
            return None
        wf_id = entry.loaded.file.workflow.id
        found = [s for s in self.board.runs.values() if s.workflow_id == wf_id and s.gates]
        return found[-1] if found else None

    def show_run_state(self, state: RunState) -> None:
        """Show the open workflow's run as the reducer has it: node states, status line, its gate."""
        self.timeline.show_state(state)
        if state.gates and not self._active:
            gate = state.gates[0]
            if self.gate_panel.gate is None or self.gate_panel.gate.get("gateId") != gate.gate_id:
                self.gate_panel.show_gate(state.run_id, gate_dict(gate), self._review_of(gate_dict(gate)))
        else:
            self.gate_panel.clear_gate()
        if self.current is not None and state.status != "pending":
            self._set_last_status(self.current, state.status)
        self._running(self._active)

    def _set_last_status(self, entry: WorkflowEntry, status: str) -> None:
        entry.last_status = status
        row = self.entries.index(entry) if entry in self.entries else -1
        if row >= 0:
            fill_item(self.workflow_list.item(row), entry, self.context.theme.palette)

    def attach_gate_board(self, board: GateBoard) -> None:
        """Share the window's pending gates: this view's runs feed it, and answers given elsewhere show here."""
        self.board = board
        board.watch_runner(self.runner)
        self.gates.attach_board(board)
        board.run_changed.connect(self._board_run_changed)

    def _board_run_changed(self, run_id: str, state: RunState) -> None:
        """A run changed outside this view's own stream (Runs / History, the CLI): show where it is now."""
        if self._active:
            return  # this view's own run: its live events already show
        if run_id == self.run_id:
            self.show_run_state(state)
        elif self.run_id is None and self.current is not None and state.gates and self.current.loaded is not None \
                and state.workflow_id == self.current.loaded.file.workflow.id:
            self.run_id = run_id
            self.show_run_state(state)

    # -- running ---------------------------------------------------------------

    def run_current(self) -> None:
        from relavium_desktop.engine.workflow.errors import InputError

        entry = self.current
        if entry is None or entry.loaded is None:
            return
        try:
            values = self.inputs.values()
        except InputError as exc:
            self.message.setText(error_text(exc))
            return
        self.context.ensure_services()
        self.timeline.reset()
        self.graph.reset_states()
        self.gate_panel.clear_gate()
        self.run_events = []
        self.outputs_view.clear()
        self.message.setText("")
        self.runner.start(entry.loaded, values)

    def stop(self) -> None:
        """Stop the running run, or cancel the run paused at a gate (it then ends as cancelled)."""
        if self.runner.busy:
            self.runner.stop()
        elif self.run_id is not None and self.timeline.run_state.paused:
            from relavium_desktop.engine.workflow.run import RunResult

            run_id = self.run_id
            if self.runner.cancel_paused(run_id):  # its run:cancelled arrives as a run event; a refusal in message
                self.show_run_state(self.timeline.run_state)
                self.run_finished.emit(RunResult(run_id, "cancelled"))

    def _running(self, running: bool) -> None:
        self._active = running  # the runner says so (its task is still finishing when it tells)
        paused = self.run_id is not None and self.timeline.run_state.paused
        self.run_button.setEnabled(not running and self.current is not None and self.current.loaded is not None)
        self.stop_button.setEnabled(running or paused)
        self.stop_button.setToolTip("Cancel the run waiting at its gate" if paused and not running else "")
        self.workflow_list.setEnabled(not running)

    def _on_event(self, event: JsonDict) -> None:
        if event.get("type") == "run:started":
            self.run_id = str(event.get("runId"))
        self.timeline.apply(event)
        kind = event.get("type")
        if kind == "agent:token" and event.get("nodeId") is not None:
            self.graph.stream_token(str(event["nodeId"]), str(event.get("token", "")))
        elif isinstance(kind, str) and kind.startswith("node:"):
            self.run_events.append(event)
        if kind in ("run:completed", "run:failed", "run:cancelled"):
            outputs = event.get("outputs", event.get("partialOutputs", {}))
            self.outputs_view.setPlainText(readable(outputs))

    def _on_finished(self, result: RunResult) -> None:
        self.run_id = result.run_id
        state = self.timeline.run_state
        if state.run_id == result.run_id:
            self.show_run_state(state)  # also the list row's icon
        else:
            self.gate_panel.clear_gate()
            if self.current is not None:
                self._set_last_status(self.current, result.status)
        if result.status == "paused" and result.pending_gates:
            self.gates.ask(result.run_id, result.pending_gates[0], self._review_of(result.pending_gates[0]))
            self._arm_gate_timeout(result.run_id, result.pending_gates[0])
        self.run_notices.run_ended(result, self.current.title if self.current is not None else "A workflow")
        self.run_finished.emit(result)

    def _review_of(self, gate: JsonDict) -> str:
        """Readable text of what ``gate`` approves: its predecessors' outputs in this run."""
        node = str(gate.get("nodeId"))
        loaded = self.current.loaded if self.current is not None else None
        upstream = [e.source for e in loaded.plan.in_edges.get(node, [])] if loaded is not None else None
        return under_review(self.run_events, node, upstream)

    def _arm_gate_timeout(self, run_id: str, gate: JsonDict) -> None:
        """While the window stays open, a gate's timeout_ms applies on time (its timeout_action)."""
        import time

        from relavium_desktop.ui.qt import QTimer

        expires = gate.get("expiresAtEpoch")
        if not isinstance(expires, int | float):
            return
        gate_id = str(gate.get("gateId"))

        def fire() -> None:
            from relavium_desktop.engine.workflow.run import GateDecision

            if self.runner.busy:
                return
            dialog = self.gates.pending
            if dialog is not None and dialog.run_id == run_id and dialog.gate.get("gateId") == gate_id:
                if dialog.decision is None:
                    dialog.answer(False, "timeout")  # the engine turns a due timeout answer into timeout_action
                return
            state = self.timeline.run_state
            if state.run_id == run_id and state.paused and state.gate(gate_id) is not None:
                # The dialog was closed to decide later; the run is still waiting here.
                self._gate_decided(run_id, gate_id, GateDecision("rejected", "timeout"))

        QTimer.singleShot(max(0, int((expires - time.time()) * 1000)) + 50, self, fire)

    def _gate_decided(self, run_id: str, gate_id: str, decision: GateDecision) -> None:
        self.context.ensure_services()
        if self.gate_panel.run_id == run_id:
            self.gate_panel.set_busy(True)
            self.gate_panel.status.setText("Resuming…")
        if not self.runner.resume(run_id, decision, gate_id):
            self.gate_panel.set_busy(False)

