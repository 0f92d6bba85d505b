"""Runs / History: runs from the window and from ``relavium run`` listed from history.db, each event log opened."""

from __future__ import annotations

import json
from pathlib import Path

from relavium_desktop.ui.runs.view import COLUMNS, format_cost, format_duration
from relavium_desktop.ui.shell import NAV_RUNS, NAV_WORKFLOWS
from tests.helpers import run_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"

DOUBLE = """\
schema_version: '1.0'
workflow:
  id: double
  name: Double it
  inputs: [{ name: n, type: number }]
  nodes:
    - { id: start, type: input }
    - { id: twice, type: transform, transform: '({ value: inputs.n * 2 })' }
    - { id: out, type: output }
  edges: [{ from: start, to: twice }, { from: twice, to: out }]
"""

BOOM = """\
schema_version: '1.0'
workflow:
  id: boom
  nodes:
    - { id: start, type: input }
    - { id: explode, type: transform, transform: 'null.boom' }
  edges: [{ from: start, to: explode }]
"""


def run_in_view(view, qtbot, rel: str, **inputs: str):
    view.open_workflow(rel)
    for key, value in inputs.items():
        view.inputs.set_value(key, value)
    with qtbot.waitSignal(view.run_finished, timeout=30_000) as blocker:
        view.run_button.click()
    return blocker.args[0]


def test_runs_history_lists_runs_and_opens_the_full_event_log(
    make_window, qtbot, project: Path, cli_env: dict[str, str]
) -> None:
    (project / "double.relavium.yaml").write_text(DOUBLE)
    (project / "boom.relavium.yaml").write_text(BOOM)
    # A run started headless lands in the same history.
    code, _out, err = run_cli("run", str(EXAMPLES / "release-gate.relavium.yaml"), "--input", "version=2.0",
                              "--workspace", str(project), env=cli_env)
    assert code == 3, err

    window = make_window()
    window.context.set_project(str(project))
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    wf = window.workflows_view
    qtbot.waitUntil(lambda: len(wf.entries) == 2, timeout=10_000)
    done = run_in_view(wf, qtbot, "double.relavium.yaml", n="21")
    failed = run_in_view(wf, qtbot, "boom.relavium.yaml")
    assert (done.status, failed.status) == ("completed", "failed")

    window.nav.setCurrentRow(NAV_RUNS)
    view = window.runs_view
    assert view is not None and window.pages.currentWidget() is view
    qtbot.waitUntil(lambda: len(view.runs) == 3, timeout=10_000)
    # Newest first: status, duration, tokens and cost per run.
    assert [view.cell(i, "Status") for i in range(3)] == ["Failed", "Done", "Waiting for you"]
    status_col = COLUMNS.index("Status")
    assert all(not view.table.item(i, status_col).icon().isNull() for i in range(3))  # the status has an icon too
    # The workflow by its name; where it came from is on hover, not in the row.
    assert view.cell(0, "Workflow") == "boom"
    assert view.cell(1, "Workflow") == "Double it"
    assert view.table.item(1, COLUMNS.index("Workflow")).toolTip() == "double.relavium.yaml"
    assert view.cell(2, "Workflow") == "Approve a release note"
    assert all(r["id"] not in view.cell(i, c) for i, r in enumerate(view.runs) for c in COLUMNS)  # no ids
    row = view.row_of(done.run_id)
    assert view.cell(row, "Duration").endswith(("ms", " s"))
    assert view.cell(row, "Tokens (in / out)") == "0 / 0"
    assert view.cell(row, "Cost") == "$0.0000"

    with qtbot.waitSignal(view.log_shown, timeout=10_000):
        view.open_run(done.run_id)
    events = [json.loads(line) for line in view.log_view.toPlainText().splitlines()]
    assert [e["sequenceNumber"] for e in events] == list(range(len(events)))
    assert [(e["type"], e.get("nodeId")) for e in events] == [
        ("run:started", None), ("node:started", "start"), ("node:completed", "start"),
        ("node:started", "twice"), ("node:completed", "twice"), ("node:started", "out"),
        ("node:completed", "out"), ("run:completed", None)]
    assert events[-1]["outputs"] == {"out": {"value": 42}}
    assert view.log_title.text() == f"Double it — Done · {view.cell(1, 'Started')} · 8 events"
    assert done.run_id not in view.log_title.text() and done.run_id in view.details.text()  # the id: in Details

    with qtbot.waitSignal(view.log_shown, timeout=10_000):
        view.open_run(failed.run_id)
    assert view.log_title.text().startswith("boom — Failed: ")
    assert "sandbox_error" not in view.log_title.text() and "error sandbox_error" in view.details.text()
    assert view.events[-1]["type"] == "run:failed"

    # Shown again later, the page re-reads history and keeps the open run selected.
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    run_in_view(wf, qtbot, "double.relavium.yaml", n="1")
    with qtbot.waitSignal(view.refreshed, timeout=10_000):
        window.nav.setCurrentRow(NAV_RUNS)
    assert len(view.runs) == 4 and view.shown_run == failed.run_id


def test_empty_history_says_so(make_window, qtbot) -> None:
    window = make_window()
    window.nav.setCurrentRow(NAV_RUNS)
    view = window.runs_view
    qtbot.waitUntil(lambda: view.empty_label.text() != "", timeout=10_000)
    assert view.table.rowCount() == 0 and not view.table.isVisibleTo(view)
    assert view.empty_label.text().startswith("No workflow runs yet.")
    # One next step: "Run a workflow" takes the person to Workflows.
    assert view.empty_button.isVisibleTo(view) and view.empty_button.text() == "Run a workflow"
    with qtbot.waitSignal(view.go_to_workflows, timeout=1_000):
        view.empty_button.click()


def test_duration_and_cost_formats() -> None:
    assert format_duration(None) == "—"
    assert format_duration(420) == "420 ms"
    assert format_duration(1500) == "1.5 s"
    assert format_duration(125_000) == "2 min 5 s"
    assert format_cost(0) == "$0.0000"
    assert format_cost(1_234_000) == "$0.0123"
    assert format_cost(250_000_000) == "$2.50"


# -- answering a gate left open by another process -------------------------------

INPUT_GATE = """\
schema_version: '1.0'
workflow:
  id: ask-a-name
  name: Ask for a name
  nodes:
    - { id: start, type: input }
    - { id: ask, type: human_gate, gate_type: input, message_template: 'Who signs the release?' }
    - { id: greet, type: transform, transform: '({ signer: run.outputs["ask"].payload.name })' }
    - { id: out, type: output }
  edges: [{ from: start, to: ask }, { from: ask, to: greet }, { from: greet, to: out }]
"""


def pause_with_cli(cli_env: dict[str, str], workflow: Path, workspace: Path, *inputs: str) -> str:
    """Run a workflow headless until it pauses at its gate (exit 3); its run id."""
    args = [arg for pair in inputs for arg in ("--input", pair)]
    code, events, err = run_cli("run", str(workflow), *args, "--workspace", str(workspace), "--json", env=cli_env)
    assert code == 3, err
    assert events[-1]["type"] == "run:paused"
    return str(events[-1]["runId"])


def open_paused_run(make_window, qtbot, run_id: str):
    """A fresh window (no project chosen) opens Runs / History and selects the paused run."""
    window = make_window()
    window.nav.setCurrentRow(NAV_RUNS)
    view = window.runs_view
    qtbot.waitUntil(lambda: run_id in [r["id"] for r in view.runs], timeout=10_000)
    assert view.cell(view.row_of(run_id), "Status") == "Waiting for you"
    with qtbot.waitSignal(view.gate_shown, timeout=10_000):
        view.open_run(run_id)
    return window, view


def test_a_gate_paused_by_the_cli_is_approved_from_a_fresh_window(
    make_window, qtbot, project: Path, cli_env: dict[str, str]
) -> None:
    run_id = pause_with_cli(cli_env, EXAMPLES / "release-gate.relavium.yaml", project, "version=3.1")
    window, view = open_paused_run(make_window, qtbot, run_id)
    assert window.context.project in (None, "")  # the run's own folder is used, not an open project
    panel = view.gate_panel
    assert panel.isVisibleTo(view) and panel.title.text().startswith("The approve step waits for your approval · times out ")
    assert panel.message.text() == "Write the release note for 3.1?"
    assert not panel.payload.isVisibleTo(panel)  # an approval gate takes no payload
    # What is being approved: the draft the step before the gate produced, as text.
    assert panel.review.isVisibleTo(panel) and panel.review.toPlainText() == "Release 3.1"
    shown = [panel.title.text(), panel.title.toolTip(), panel.message.text(), panel.review.toPlainText()]
    assert not any(run_id in text for text in shown)

    with qtbot.waitSignal(view.resumed, timeout=30_000) as blocker:
        panel.approve_button.click()
    result = blocker.args[0]
    assert (result.run_id, result.status) == (run_id, "completed")
    assert (project / "RELEASE-3.1.txt").read_text() == "Release 3.1\n"
    # History is re-read: the same run is now completed, its log carries the whole story.
    qtbot.waitUntil(lambda: view.shown_run == run_id and view.events[-1]["type"] == "run:completed",
                    timeout=10_000)
    assert view.cell(view.row_of(run_id), "Status") == "Done"
    assert not panel.isVisibleTo(view)
    resumed = next(e for e in view.events if e["type"] == "human_gate:resumed")
    assert (resumed["decision"], resumed["decidedBy"]) == ("approved", "desktop")
    assert [e["sequenceNumber"] for e in view.events] == list(range(len(view.events)))
    # It is no longer resumable, from the window or the CLI.
    code, _out, err = run_cli("run", "--resume", run_id, "--decision", "approve", env=cli_env)
    assert code == 2 and "no paused run" in err


def test_an_input_gate_takes_a_payload_and_reject_fails_the_run(
    make_window, qtbot, project: Path, cli_env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "ask.relavium.yaml"
    wf.write_text(INPUT_GATE)
    first = pause_with_cli(cli_env, wf, project)
    second = pause_with_cli(cli_env, wf, project)
    _window, view = open_paused_run(make_window, qtbot, first)
    panel = view.gate_panel
    assert panel.title.text() == "The ask step waits for your input"
    assert panel.payload.isVisibleTo(panel)
    panel.payload.setPlainText('{"name": "Zed"}')
    with qtbot.waitSignal(view.resumed, timeout=30_000) as blocker:
        panel.approve_button.click()
    assert blocker.args[0].status == "completed"
    assert blocker.args[0].outputs == {"out": {"signer": "Zed"}}
    qtbot.waitUntil(lambda: view.shown_run == first and view.events[-1]["type"] == "run:completed", timeout=10_000)

    with qtbot.waitSignal(view.gate_shown, timeout=30_000):  # a resumed run's engine: slow on a loaded box
        view.open_run(second)
    assert panel.reject_button.text() == "Reject…" and not panel.comment.isVisibleTo(panel)
    panel.reject_button.click()  # "Reject…" first asks why (optional)
    assert panel.comment.isVisibleTo(panel) and panel.reject_button.text() == "Reject"
    panel.comment.setText("wrong signer")
    with qtbot.waitSignal(view.resumed, timeout=30_000) as blocker:
        panel.reject_button.click()
    assert blocker.args[0].status == "failed"
    qtbot.waitUntil(lambda: view.shown_run == second and view.events[-1]["type"] == "run:failed", timeout=10_000)
    assert view.cell(view.row_of(second), "Status") == "Failed"
    assert view.events[-1]["error"]["reason"] == "user_rejected"


def test_a_gate_timeout_applies_while_the_window_is_open(
    make_window, qtbot, project: Path, cli_env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "release.relavium.yaml"
    wf.write_text((EXAMPLES / "release-gate.relavium.yaml").read_text()
                  .replace("timeout_ms: 86400000", "timeout_ms: 1500").replace("timeout_action: reject",
                                                                              "timeout_action: approve"))
    run_id = pause_with_cli(cli_env, wf, project, "version=4.0")
    _window, view = open_paused_run(make_window, qtbot, run_id)
    # Nobody answers: the gate's timeout_action (approve) is applied when it runs out.
    with qtbot.waitSignal(view.resumed, timeout=30_000) as blocker:
        pass
    assert blocker.args[0].status == "completed"
    assert (project / "RELEASE-4.0.txt").read_text() == "Release 4.0\n"
    qtbot.waitUntil(lambda: view.shown_run == run_id and view.events[-1]["type"] == "run:completed",
                    timeout=10_000)
    resumed = next(e for e in view.events if e["type"] == "human_gate:resumed")
    assert (resumed["decision"], resumed["decidedBy"]) == ("approved", "timeout")


# -- runs whose process ended before they finished --------------------------------


def test_a_run_whose_process_died_reads_interrupted(make_window, qtbot, relavium_home: Path) -> None:
    """A run left 'running' by a process that is gone (here: its pid now belongs to another process,
    this one, started at another time) reads interrupted; a run this live process owns stays running."""
    import sqlite3

    from relavium_desktop.engine.workflow.journal import RunInfo
    from relavium_desktop.store.db import history_db_path
    from relavium_desktop.store.runs import RunStore, this_process

    store = RunStore.open(relavium_home)
    for run_id, started in (("run-dead", 100.0), ("run-live", 200.0)):
        store.run_started(RunInfo(run_id, "slow", "Slow steps", "slow.relavium.yaml", started))
        store.record({"type": "run:started", "runId": run_id, "sequenceNumber": 0, "timestamp": "t"})
        store.checkpoint(run_id, {"nextSeq": 1}, "running")
    store.close()
    me = this_process()
    conn = sqlite3.connect(history_db_path(relavium_home))
    conn.execute("UPDATE runs SET owner_started = ? WHERE id = 'run-dead'", (me.started - 3600,))
    conn.commit()
    conn.close()

    window = make_window()
    window.nav.setCurrentRow(NAV_RUNS)
    view = window.runs_view
    qtbot.waitUntil(lambda: len(view.runs) == 2, timeout=10_000)
    dead, live = view.row_of("run-dead"), view.row_of("run-live")
    assert (view.cell(dead, "Status"), view.cell(live, "Status")) == ("Interrupted", "Running")
    tip = view.table.item(dead, COLUMNS.index("Status")).toolTip()
    assert tip.startswith(f"Interrupted: the process running it (pid {me.pid} on ")
    assert tip.endswith("continue it with relavium run --resume run-dead (finished steps are kept); "
                        "otherwise run the workflow again.")
    assert view.table.item(live, COLUMNS.index("Status")).toolTip() == ""

    with qtbot.waitSignal(view.log_shown, timeout=10_000):
        view.open_run("run-dead")
    assert view.log_title.text().startswith("Slow steps — Interrupted: the process running it (pid ")
    assert view.log_title.text().endswith(" · 1 events")
    assert not view.gate_panel.isVisibleTo(view)  # nothing to answer


def test_a_killed_relavium_run_reads_interrupted_in_a_fresh_window(
    make_window, qtbot, project: Path, cli_env: dict[str, str]
) -> None:
    from tests.cli.run_processes import SLOW, killed_at_its_sleep, read_until, start_run

    wf = project / "slow.relavium.yaml"
    wf.write_text(SLOW)
    proc = start_run(wf, cli_env, project)
    with killed_at_its_sleep(proc):
        run_id = read_until(proc, "node:started", "wait")[0]["runId"]

    window = make_window()
    window.nav.setCurrentRow(NAV_RUNS)
    view = window.runs_view
    qtbot.waitUntil(lambda: run_id in [r["id"] for r in view.runs], timeout=10_000)
    row = view.row_of(run_id)
    assert view.cell(row, "Status") == "Interrupted"
    assert view.cell(row, "Workflow") == "Slow steps"
    with qtbot.waitSignal(view.log_shown, timeout=10_000):
        view.open_run(run_id)
    assert view.log_title.text().startswith(f"Slow steps — Interrupted: the process running it (pid {proc.pid} ")
    assert [e["type"] for e in view.events][:1] == ["run:started"]


def test_refreshing_runs_and_workflows_opens_no_new_history_connection(
    make_window, qtbot, project: Path, monkeypatch
) -> None:
    """Both pages read the window's one run journal: a refresh opens no history.db connection of its own.

    (Opening one runs the migration check and the liveness sweep each time.)  The real open_db is
    wrapped to count its calls, not replaced: every read still goes to the real history.db.
    """
    import relavium_desktop.store.db as db
    import relavium_desktop.store.runs as run_store

    (project / "double.relavium.yaml").write_text(DOUBLE)
    window = make_window()
    window.context.set_project(str(project))
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    wf = window.workflows_view
    qtbot.waitUntil(lambda: len(wf.entries) == 1, timeout=10_000)
    assert run_in_view(wf, qtbot, "double.relavium.yaml", n="2").status == "completed"
    window.nav.setCurrentRow(NAV_RUNS)
    view = window.runs_view
    qtbot.waitUntil(lambda: len(view.runs) == 1, timeout=10_000)

    opened: list[object] = []
    real_open = db.open_db

    def counting_open(*args, **kwargs):
        opened.append(args[0] if args else kwargs)
        return real_open(*args, **kwargs)

    monkeypatch.setattr(db, "open_db", counting_open)
    monkeypatch.setattr(run_store, "open_db", counting_open)
    for _ in range(3):
        with qtbot.waitSignal(view.refreshed, timeout=10_000):
            view.refresh()
        with qtbot.waitSignal(wf.refreshed, timeout=10_000):
            wf.refresh()
    assert view.cell(0, "Status") == "Done"
    assert wf.entries[0].last_status == "completed"
    assert opened == []


def test_activity_keeps_its_controls_off_the_window_edge(make_window, qtbot) -> None:
    from relavium_desktop.ui.theme.tokens import EDGE_MIN, PAD_MAIN

    window = make_window()
    window.resize(1440, 900)
    window.show()
    qtbot.waitExposed(window)
    window.nav.setCurrentRow(NAV_RUNS)
    view = window.runs_view
    qtbot.waitUntil(view.empty_button.isVisible, timeout=10_000)
    edge = window.rect().adjusted(EDGE_MIN, EDGE_MIN, -EDGE_MIN, -EDGE_MIN)
    for widget in (view.empty_state, view.empty_button, view.refresh_button):
        where = widget.rect().translated(widget.mapTo(window, widget.rect().topLeft()))
        assert edge.contains(where), widget.objectName()
    margins = view.layout().contentsMargins()
    assert (margins.left(), margins.top(), margins.right(), margins.bottom()) == (PAD_MAIN,) * 4
