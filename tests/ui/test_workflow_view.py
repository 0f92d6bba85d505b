"""The Workflows view against the real engine, real files and real history.db.

Workflows here need no LLM (input, condition, transform, tool, human_gate,
output nodes).  Runs go through the same engine ``relavium run`` builds; gates
are answered through the dialog's buttons and through a real notification
daemon (dunst on a private bus), as a click would.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest
from relavium_desktop.store.runs import RunStore
from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.qt import QFont, QFontMetrics, QGuiApplication, QLabel, QPlainTextEdit
from relavium_desktop.ui.shell import NAV_WORKFLOWS
from relavium_desktop.ui.theme.palette import LIGHT
from relavium_desktop.ui.theme.tokens import EDGE_MIN
from relavium_desktop.ui.workflows.gate import NOTIFICATION_TITLE, GateDialog
from relavium_desktop.ui.workflows.list_row import STATUS_ROLE, elide_path, path_font, status_words
from relavium_desktop.ui.workflows.view import LIST_WIDTH, PANEL_WIDTH
from tests.fixtures.desktop_bus import desktop_bus  # noqa: F401
from tests.fixtures.notifications import NotificationDaemon, notification_daemon, notifications  # noqa: F401
from tests.ui.workflow_samples import BRANCHY, RUN_TIMEOUT_MS

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"

BROKEN = """\
schema_version: '1.0'
workflow:
  id: broken
  nodes:
    - { id: start, type: input, colour: red }
"""

SLEEPY = """\
schema_version: '1.0'
workflow:
  id: sleepy
  tools: { allowedCommands: ['sleep 30'] }
  nodes:
    - { id: start, type: input }
    - id: nap
      type: tool
      tool_config: { tool_name: run_command, input_mapping: { command: sleep, args: ['30'] } }
    - { id: out, type: output }
  edges: [{ from: start, to: nap }, { from: nap, to: out }]
"""


@pytest.fixture
def flows(project: Path) -> Path:
    folder = project / "flows"
    folder.mkdir()
    (folder / "branchy.relavium.yaml").write_text(BRANCHY)
    (folder / "broken.relavium.yaml").write_text(BROKEN)
    (folder / "sleepy.relavium.yaml").write_text(SLEEPY)
    for name in ("release-gate.relavium.yaml", "clipboard-note.relavium.yaml"):
        shutil.copy(EXAMPLES / name, folder / name)
    # Workflows in ignored folders are not listed.
    (project / "node_modules" / "x").mkdir(parents=True)
    (project / "node_modules" / "x" / "hidden.relavium.yaml").write_text(BRANCHY)
    return folder


def our_sleepers() -> list[int]:
    """Live ``sleep 30`` processes this test process started (zombies excluded)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if cmdline == b"sleep\x0030\x00" and fields[0] != "Z" and int(fields[1]) == os.getpid():
            found.append(int(pid))
    return found


def open_view(make_window, qtbot, project: Path, *, notify: bool = False):
    window = make_window()
    window.context.settings.setValue(keys.KEY_NOTIFY_APPROVALS, notify)
    window.context.set_project(str(project))
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    view = window.workflows_view
    assert view is not None and window.pages.currentWidget() is view
    qtbot.waitUntil(lambda: len(view.entries) == 5, timeout=10_000)
    return window, view


def status_of(view, row: int) -> str:
    """The last-run status a row reports (its icon's meaning, as the tooltip and screen readers say it)."""
    return status_words(view.workflow_list.item(row).data(STATUS_ROLE))


def run_and_wait(view, qtbot, *, timeout: int = RUN_TIMEOUT_MS):
    with qtbot.waitSignal(view.run_finished, timeout=timeout) as blocker:
        view.run_button.click()
    return blocker.args[0]


def test_lists_workflows_by_file_with_last_run_status(make_window, qtbot, project: Path, flows: Path) -> None:
    window, view = open_view(make_window, qtbot, project)
    assert window.nav.item(NAV_WORKFLOWS).isHidden() is False
    rels = [e.rel for e in view.entries]
    assert rels == ["flows/branchy.relavium.yaml", "flows/broken.relavium.yaml",
                    "flows/clipboard-note.relavium.yaml", "flows/release-gate.relavium.yaml",
                    "flows/sleepy.relavium.yaml"]
    labels = [view.workflow_list.item(i).text() for i in range(view.workflow_list.count())]
    assert labels[0] == "Branch and write · flows/branchy.relavium.yaml"  # what a screen reader and search read
    assert status_of(view, 0) == "never run" and status_of(view, 1) == "invalid: open it to see why"
    assert not view.workflow_list.item(1).icon().isNull()  # the status is an icon, not a mark in the text

    view.open_workflow("flows/branchy.relavium.yaml")
    view.inputs.set_value("n", "3")
    assert run_and_wait(view, qtbot).status == "completed"
    assert status_of(view, 0) == "last run: completed"
    # The status comes from history.db: a fresh listing (as after a restart) shows it too.
    with qtbot.waitSignal(view.refreshed):
        view.refresh()
    assert view.entries[0].last_status == "completed"
    assert status_of(view, 0) == "last run: completed"
    assert view.workflow_list.item(0).toolTip().endswith("last run: completed")


def test_open_fill_inputs_run_see_node_states_and_outputs(
    make_window, qtbot, project: Path, flows: Path
) -> None:
    _window, view = open_view(make_window, qtbot, project)
    view.open_workflow("flows/branchy.relavium.yaml")
    # The graph: every node, edges in layers, branch edges labelled.
    assert set(view.graph.boxes) == {"start", "check", "hi", "lo", "save", "out"}
    assert ("check", "hi", "true") in view.graph.edges and ("check", "lo", "false") in view.graph.edges
    assert view.graph.boxes["start"].rect().top() < view.graph.boxes["check"].rect().top() \
        < view.graph.boxes["lo"].rect().top() < view.graph.boxes["save"].rect().top()
    # The inputs form comes from the declarations, with the default filled in.
    assert set(view.inputs.fields) == {"n", "word"}
    assert view.inputs.fields["word"].text() == "hello"

    seen: list[tuple[str, str]] = []
    view.timeline.node_state_changed.connect(lambda n, s: seen.append((n, s)))
    view.inputs.set_value("n", "3")
    view.inputs.set_value("word", "ahoy")
    result = run_and_wait(view, qtbot)

    assert result.status == "completed"
    assert seen == [("start", "running"), ("start", "completed"), ("check", "running"), ("check", "completed"),
                    ("hi", "skipped"), ("lo", "running"), ("lo", "completed"), ("save", "running"),
                    ("save", "completed"), ("out", "running"), ("out", "completed")]
    assert {n: view.graph.states[n] for n in view.graph.states} == {
        "start": "completed", "check": "completed", "hi": "skipped", "lo": "completed", "save": "completed",
        "out": "completed"}
    assert view.timeline.records["hi"].detail == "branch_not_taken"
    # Each node's output; the tool node shows its tool card.
    view.timeline.select("lo")
    qtbot.waitUntil(lambda: "label: low" in view.timeline.details.toPlainText())
    assert "word: ahoy" in view.timeline.details.toPlainText()
    view.timeline.select("save")
    qtbot.waitUntil(lambda: "Tool write_file (done)" in view.timeline.details.toPlainText())
    assert (project / "out" / "result.txt").read_text() == "ahoy-3"
    # The run's final outputs.
    finals = view.outputs_view.toPlainText()
    assert finals.startswith("out:") and "{" not in finals  # readable, not JSON
    assert view.timeline.status.text().startswith("Completed")
    assert view.run_button.isEnabled() and not view.stop_button.isEnabled()


def test_bad_input_is_refused_with_the_engines_message(make_window, qtbot, project: Path, flows: Path) -> None:
    _window, view = open_view(make_window, qtbot, project)
    view.open_workflow("flows/branchy.relavium.yaml")
    view.inputs.set_value("n", "three")
    view.run_button.click()
    assert view.message.text() == "input 'n' must be a number"
    view.inputs.set_value("n", "")
    view.run_button.click()
    assert view.message.text() == "missing required input 'n'"
    assert not view.runner.busy and not (project / "out").exists()


def test_invalid_workflow_shows_file_line_column_instead_of_crashing(
    make_window, qtbot, project: Path, flows: Path
) -> None:
    _window, view = open_view(make_window, qtbot, project)
    view.open_workflow("flows/broken.relavium.yaml")
    assert view.error_view.isVisibleTo(view) and not view.graph_pane.isVisibleTo(view)
    assert view.error_view.toPlainText() == "flows/broken.relavium.yaml:5:33: unknown key 'colour'"
    assert not view.run_button.isEnabled()
    # A valid one still opens afterwards.
    view.open_workflow("flows/branchy.relavium.yaml")
    assert view.graph_pane.isVisibleTo(view) and not view.error_view.isVisibleTo(view)


def test_stop_cancels_a_running_tool_node(make_window, qtbot, project: Path, flows: Path) -> None:
    _window, view = open_view(make_window, qtbot, project)
    view.open_workflow("flows/sleepy.relavium.yaml")
    view.run_button.click()
    qtbot.waitUntil(lambda: view.timeline.state_of("nap") == "running" and bool(our_sleepers()), timeout=10_000)
    assert view.stop_button.isEnabled() and not view.run_button.isEnabled()
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as blocker:
        view.stop_button.click()
    assert blocker.args[0].status == "cancelled"
    assert view.timeline.status.text() == "Stopped"
    assert view.timeline.state_of("nap") == "cancelled"
    assert view.timeline.state_of("out") != "completed"
    qtbot.waitUntil(lambda: not our_sleepers(), timeout=10_000)  # Stop leaves no process behind


def gate_run(make_window, qtbot, project: Path, *, notify: bool = False):
    window, view = open_view(make_window, qtbot, project, notify=notify)
    view.open_workflow("flows/release-gate.relavium.yaml")
    view.inputs.set_value("version", "1.0")
    dialogs: list[GateDialog] = []
    view.gates.dialog_opened.connect(dialogs.append)
    result = run_and_wait(view, qtbot)
    assert result.status == "paused"
    assert len(dialogs) == 1
    assert view.timeline.state_of("approve") == "waiting"
    assert view.timeline.status.text() == "Paused at a human gate: waiting for a decision"
    assert not (project / "RELEASE-1.0.txt").exists()
    return window, view, dialogs[0], result


def test_gate_dialog_approve_resumes_the_run(make_window, qtbot, project: Path, flows: Path) -> None:
    _window, view, dialog, paused = gate_run(make_window, qtbot, project)
    assert dialog.findChild(type(dialog.comment), None) is not None
    assert dialog.message.text() == "Write the release note for 1.0?"
    # What is being approved: the draft step's output, as text (not a JSON string with quotes and \\n).
    assert dialog.review is not None and dialog.review.toPlainText() == "Release 1.0"
    # The run id is nowhere a person reads.
    texts = [dialog.windowTitle()] + [w.text() for w in dialog.findChildren(QLabel)] \
        + [w.toPlainText() for w in dialog.findChildren(QPlainTextEdit)]
    assert texts and not any(paused.run_id in t for t in texts)
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as blocker:
        dialog.approve_button.click()
    result = blocker.args[0]
    assert result.run_id == paused.run_id and result.status == "completed"
    assert (project / "RELEASE-1.0.txt").read_text() == "Release 1.0\n"
    assert view.timeline.state_of("approve") == "completed"
    assert view.timeline.records["approve"].decision == "approved by desktop"
    assert view.timeline.state_of("out") == "completed"


def test_gate_dialog_reject_fails_the_gate_and_decide_later_keeps_it_paused(
    make_window, qtbot, project: Path, flows: Path, relavium_home: Path
) -> None:
    _window, view, dialog, paused = gate_run(make_window, qtbot, project)
    dialog.later_button.click()
    assert dialog.decision is None and not view.runner.busy
    store = RunStore.open(relavium_home)
    try:
        assert store.load_checkpoint(paused.run_id) is not None  # still resumable, e.g. by the CLI
    finally:
        store.close()
    dialog = view.gates.ask(paused.run_id, paused.pending_gates[0])
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as blocker:
        dialog.reject_button.click()
    assert blocker.args[0].status == "failed"
    assert view.timeline.state_of("approve") == "failed"
    assert view.timeline.state_of("write") == "skipped"
    assert not (project / "RELEASE-1.0.txt").exists()


def test_gate_notification_approve_through_dunst_resumes_the_run(
    make_window, qtbot, project: Path, flows: Path, notifications: NotificationDaemon,  # noqa: F811
) -> None:
    window, view, _dialog, paused = gate_run(make_window, qtbot, project, notify=True)
    assert not window.isActiveWindow()  # never shown: the notification is how the user hears of it
    qtbot.waitUntil(lambda: view.gates.last_notification_id is not None, timeout=10_000)
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as blocker:
        notifications.click(NOTIFICATION_TITLE, "Approve")
    offered = notifications.menu_entries()
    assert any(e.startswith(f"#Approve ({NOTIFICATION_TITLE})") for e in offered), offered
    assert any(e.startswith(f"#Reject ({NOTIFICATION_TITLE})") for e in offered), offered
    result = blocker.args[0]
    assert result.run_id == paused.run_id and result.status == "completed"
    assert view.timeline.records["approve"].decision == "approved by notification"
    assert (project / "RELEASE-1.0.txt").read_text() == "Release 1.0\n"


def clipboard_run(make_window, qtbot, project: Path):
    window, view = open_view(make_window, qtbot, project)
    window.context.ensure_services()
    QGuiApplication.clipboard().setText("copied words")
    view.open_workflow("flows/clipboard-note.relavium.yaml")
    view.inputs.set_value("date", "2024-05-06")
    opened: list[object] = []
    window.context.approvals.dialog_opened.connect(opened.append)
    return window, view, opened


def test_read_clipboard_in_a_workflow_asks_first_when_not_granted(
    make_window, qtbot, project: Path, flows: Path
) -> None:
    _window, view, opened = clipboard_run(make_window, qtbot, project)
    view.run_button.click()
    qtbot.waitUntil(lambda: bool(opened), timeout=10_000)
    dialog = opened[0]
    assert dialog.request.tool_id == "read_clipboard" and str(dialog.request.action_class) == "os"
    assert view.timeline.state_of("clip") == "running"
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as blocker:
        dialog.allow_button.click()
    assert blocker.args[0].status == "completed"
    assert (project / "notes" / "2024-05-06.md").read_text() == "## 2024-05-06\n\ncopied words\n\n"


def test_read_clipboard_denied_fails_the_node_and_writes_nothing(
    make_window, qtbot, project: Path, flows: Path
) -> None:
    _window, view, opened = clipboard_run(make_window, qtbot, project)
    view.run_button.click()
    qtbot.waitUntil(lambda: bool(opened), timeout=10_000)
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as blocker:
        opened[0].reject()  # Esc, Deny and closing all deny
    assert blocker.args[0].status == "failed"
    assert blocker.args[0].error["code"] == "tool_denied"
    assert blocker.args[0].error["reason"] == "user_rejected"
    assert view.timeline.state_of("clip") == "failed" and view.timeline.state_of("append") == "skipped"
    assert not (project / "notes").exists()


def test_read_clipboard_with_a_project_grant_does_not_ask(
    make_window, qtbot, project: Path, flows: Path
) -> None:
    window, view, opened = clipboard_run(make_window, qtbot, project)
    window.context.grants.add(str(project), ApprovalRequest(
        tool_id="read_clipboard", action_class=ActionClass.OS, target="", masked_args={}, node_id="clip"))
    assert run_and_wait(view, qtbot).status == "completed"
    assert opened == []
    assert "copied words" in (project / "notes" / "2024-05-06.md").read_text()


def test_timeline_streams_agent_tokens_and_tool_cards(qtbot, qloop) -> None:
    """Agent events as the engine emits them (no LLM here: the events are fed in their documented shapes)."""
    from relavium_desktop.ui.workflows.timeline import RunTimeline

    timeline = RunTimeline(LIGHT)
    qtbot.addWidget(timeline)
    timeline.set_nodes([("ask", "agent"), ("out", "output")])
    timeline.select("ask")
    timeline.apply({"type": "node:started", "nodeId": "ask"})
    for token in ("The ", "file ", "says hi."):
        timeline.apply({"type": "agent:token", "nodeId": "ask", "token": token})
    timeline.apply({"type": "agent:tool_call", "nodeId": "ask", "toolId": "read_file",
                    "toolInput": {"path": "a.txt"}})
    qtbot.waitUntil(lambda: 'Tool read_file (running) {"path": "a.txt"}' in timeline.details.toPlainText())
    assert "The file says hi." in timeline.details.toPlainText()
    timeline.apply({"type": "agent:tool_result", "nodeId": "ask", "toolId": "read_file", "success": True,
                    "outputSummary": "hi"})
    timeline.apply({"type": "agent:tool_call", "nodeId": "ask", "toolId": "run_command",
                    "toolInput": {"preview": "rm -rf /"}})
    timeline.apply({"type": "agent:tool_result", "nodeId": "ask", "toolId": "run_command", "success": False,
                    "error": {"code": "tool_denied", "message": "command 'rm' is not in allowedCommands"}})
    timeline.apply({"type": "node:completed", "nodeId": "ask", "output": "The file says hi.", "durationMs": 12})
    qtbot.waitUntil(lambda: "Output:" in timeline.details.toPlainText())
    text = timeline.details.toPlainText()
    assert "Tool read_file (done)" in text and "\n    hi" in text
    assert "Tool run_command (failed) rm -rf /\n    tool_denied: command 'rm' is not in allowedCommands" in text
    assert timeline.state_of("ask") == "completed" and timeline.records["ask"].detail == "12 ms"


def test_an_unanswered_gate_times_out_while_the_window_is_open(
    make_window, qtbot, project: Path, flows: Path
) -> None:
    gate_file = flows / "release-gate.relavium.yaml"
    gate_file.write_text(gate_file.read_text().replace("timeout_ms: 86400000", "timeout_ms: 500")
                         .replace("timeout_action: reject", "timeout_action: approve"))
    _window, view, dialog, paused = gate_run(make_window, qtbot, project)
    assert paused.pending_gates[0]["timeoutMs"] == 500
    # Nobody presses anything: the gate's timeout_action applies and the run goes on.
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as blocker:
        pass
    result = blocker.args[0]
    assert (result.run_id, result.status) == (paused.run_id, "completed")
    assert dialog.decision is not None and dialog.decision.decided_by == "timeout"
    assert (project / "RELEASE-1.0.txt").read_text() == "Release 1.0\n"
    assert view.timeline.state_of("approve") == "completed"
    assert view.timeline.records["approve"].decision == "approved by timeout"


def shown_at_reference_size(make_window, qtbot, project: Path):
    window, view = open_view(make_window, qtbot, project)
    window.resize(1440, 900)  # the design's reference size
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: view.workflow_list.viewport().width() > 0)
    return window, view


def areas(view) -> list[tuple[int, int, int, int]]:
    """Where the list, the graph canvas and the run panel are in the window."""
    top = view.window()
    out = []
    for widget in (view.left, view.canvas, view.right):
        corner = widget.mapTo(top, widget.rect().topLeft())
        out.append((corner.x(), corner.y(), widget.width(), widget.height()))
    return out


def test_choosing_a_workflow_never_moves_the_columns(make_window, qtbot, project: Path, flows: Path) -> None:
    _window, view = shown_at_reference_size(make_window, qtbot, project)
    before = areas(view)
    assert before[0][2] == LIST_WIDTH and before[2][2] == PANEL_WIDTH  # list and panel at the design's widths
    assert before[1][2] > before[0][2]  # the canvas takes the rest
    for entry in view.entries:  # valid, broken, with and without inputs
        view.open_workflow(entry.rel)
        qtbot.wait(50)  # let a queued re-layout happen, if any would
        assert areas(view) == before, entry.rel


def test_nothing_sits_within_8_px_of_the_window_edge(make_window, qtbot, project: Path, flows: Path) -> None:
    window, view = shown_at_reference_size(make_window, qtbot, project)
    view.open_workflow("flows/branchy.relavium.yaml")
    edge = window.rect().adjusted(EDGE_MIN, EDGE_MIN, -EDGE_MIN, -EDGE_MIN)
    for widget in (view.workflow_list, view.title, view.canvas, view.run_button, view.refresh_button, view.right):
        where = widget.rect().translated(widget.mapTo(window, widget.rect().topLeft()))
        assert edge.contains(where), widget.objectName()


def test_list_rows_show_the_whole_name_and_the_paths_file_name(
    make_window, qtbot, project: Path, flows: Path
) -> None:
    _window, view = shown_at_reference_size(make_window, qtbot, project)
    listing = view.workflow_list
    assert not listing.horizontalScrollBar().isVisible()
    room = view.row_delegate.text_width(listing.viewport().width())
    for row, entry in enumerate(view.entries):
        index = listing.model().index(row, 0)
        name, path = view.row_delegate.shown_texts(index, room, listing.font())
        assert name == entry.title  # the example names read whole at 1440
        assert path.endswith(entry.rel.rsplit("/", 1)[1])  # the file name is never cut
        # Two lines: the name over the path.
        assert listing.visualRect(index).height() >= 2 * listing.fontMetrics().height()
    row = [e.rel for e in view.entries].index("flows/release-gate.relavium.yaml")
    assert view.workflow_list.item(row).toolTip().startswith("Approve a release note\nflows/release-gate.relavium.yaml")


def test_a_long_path_is_cut_in_the_middle_keeping_its_file_name(qtbot) -> None:
    metrics = QFontMetrics(path_font(QFont()))
    path = "work/clients/acme/pipelines/nightly/clipboard-to-data.relavium.yaml"
    room = metrics.horizontalAdvance("work/…/clipboard-to-data.relavium.yaml") + 2
    assert elide_path(path, metrics, room) == "work/…/clipboard-to-data.relavium.yaml"
    tighter = metrics.horizontalAdvance("…/clipboard-to-data.relavium.yaml") + 2
    assert elide_path(path, metrics, tighter) == "…/clipboard-to-data.relavium.yaml"
    assert elide_path("flows/x.yaml", metrics, 1000) == "flows/x.yaml"


def test_an_empty_project_offers_the_example_workflows(make_window, qtbot, project: Path) -> None:
    window = make_window()
    window.context.set_project(str(project))
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    view = window.workflows_view
    qtbot.waitUntil(lambda: view.examples_button.isVisibleTo(view), timeout=10_000)
    assert view.entries == []
    # The user already has their own edited copy of one example: it is kept.
    mine = project / "workflows" / "release-gate.relavium.yaml"
    mine.parent.mkdir()
    mine.write_text("# my edits\n")
    with qtbot.waitSignal(view.refreshed, timeout=10_000):
        view.examples_button.click()
    assert mine.read_text() == "# my edits\n"
    bundled = sorted(p.name for p in EXAMPLES.glob("*.relavium.yaml"))
    assert sorted(p.name for p in (project / "workflows").glob("*.relavium.yaml")) == bundled
    assert (project / "workflows" / "agents" / "reviewer.agent.yaml").is_file()  # $ref targets come along
    assert [e.rel for e in view.entries] == [f"workflows/{n}" for n in bundled]
    assert not view.examples_button.isVisibleTo(view)
    # The examples load (the agent one finds its $ref), except the file the user had replaced.
    broken = [e.rel for e in view.entries if e.error is not None]
    assert broken == ["workflows/release-gate.relavium.yaml"]


def test_without_a_project_the_page_offers_one_next_step(make_window, qtbot) -> None:
    window = make_window()
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    view = window.workflows_view
    qtbot.waitUntil(lambda: view.empty_label.text() != "", timeout=10_000)
    assert view.empty_label.text() == "Choose a project folder to see its workflows."
    assert view.folder_button.isVisibleTo(view) and not view.examples_button.isVisibleTo(view)
    with qtbot.waitSignal(view.choose_project, timeout=1_000):
        view.folder_button.click()
