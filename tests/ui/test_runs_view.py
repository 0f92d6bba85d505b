"""Runs / History: runs from the window and from ``relavium run`` listed from history.db, each event log opened."""

from __future__ import annotations

import json
from pathlib import Path

from relavium_desktop.ui.runs.view import format_cost, format_duration
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
    window.set_project(str(project))
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
    assert [view.cell(i, "Status") for i in range(3)] == ["failed", "completed", "paused"]
    assert view.cell(0, "Workflow") == "boom  (boom.relavium.yaml)"
    assert view.cell(1, "Workflow") == "Double it  (double.relavium.yaml)"
    assert view.cell(2, "Workflow").startswith("Approve a release note  (")
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
    assert view.log_title.text() == f"Run {done.run_id} — completed · 8 events"

    with qtbot.waitSignal(view.log_shown, timeout=10_000):
        view.open_run(failed.run_id)
    assert view.log_title.text().startswith(f"Run {failed.run_id} — failed: sandbox_error: ")
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
    assert view.table.rowCount() == 0
    assert view.empty_label.text().startswith("No workflow runs yet.")


def test_duration_and_cost_formats() -> None:
    assert format_duration(None) == "—"
    assert format_duration(420) == "420 ms"
    assert format_duration(1500) == "1.5 s"
    assert format_duration(125_000) == "2 min 5 s"
    assert format_cost(0) == "$0.0000"
    assert format_cost(1_234_000) == "$0.0123"
    assert format_cost(250_000_000) == "$2.50"
