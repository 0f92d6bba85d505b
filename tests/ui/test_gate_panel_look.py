"""A paused run's gate, answered where the run is shown, looks and reads as the design has it.

Real engine, real history.db, the bundled release-gate example run from the
Workflows page at the design's reference size: the gate card sits on the
warning surface with the author's question as its title and what is being
approved as readable text; the page has ONE primary button (Approve, not
Run, while the gate waits); "Reject…" asks for an optional reason before it
rejects, and the reason is kept in the run's history.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.qt import QPushButton
from relavium_desktop.ui.shell import NAV_WORKFLOWS
from tests.ui.workflow_samples import RUN_TIMEOUT_MS

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"
GATE_FILE = "flows/release-gate.relavium.yaml"


def visible_primaries(view) -> list[str]:
    return [b.text() for b in view.findChildren(QPushButton) if b.property("variant") == "primary" and b.isVisible()]


def paused_view(make_window, qtbot, project: Path):
    (project / "flows").mkdir()
    shutil.copy(EXAMPLES / "release-gate.relavium.yaml", project / GATE_FILE)
    window = make_window()
    window.context.settings.setValue(keys.KEY_NOTIFY_APPROVALS, False)
    window.context.settings.setValue(keys.KEY_NOTIFY_RUNS, False)
    window.resize(1440, 900)
    window.show()
    qtbot.waitExposed(window)
    window.context.set_project(str(project))
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    view = window.workflows_view
    qtbot.waitUntil(lambda: len(view.entries) == 1, timeout=10_000)
    view.open_workflow(GATE_FILE)
    assert visible_primaries(view) == ["Run"]  # before the run: Run is the page's one primary
    view.inputs.set_value("version", "2.4")
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        view.run_button.click()
    assert finished.args[0].status == "paused"
    if view.gates.pending is not None:
        view.gates.pending.close()  # decide in the panel, not the pop-up
    qtbot.waitUntil(view.gate_panel.isVisible, timeout=10_000)
    return window, view, finished.args[0].run_id


def test_the_gate_card_is_the_question_with_one_primary_approve(make_window, qtbot, project: Path) -> None:
    _window, view, run_id = paused_view(make_window, qtbot, project)
    panel = view.gate_panel
    assert panel.property("surface") == "banner-warning"  # the warning card
    assert panel.message.text() == "Write the release note for 2.4?"  # the author's question is the title
    assert panel.message.property("variant") == "title"
    assert panel.title.text() == "The approve step waits for your approval"
    assert panel.review.isVisible() and panel.review.toPlainText() == "Release 2.4"  # readable, not JSON
    # One primary on the page: Approve while the gate waits; Run steps back.
    assert visible_primaries(view) == ["Approve"]
    assert view.run_button.property("variant") == "secondary"
    assert panel.reject_button.text() == "Reject…" and panel.reject_button.property("variant") == "secondary"
    assert not panel.comment.isVisible()  # the reason is asked for only when rejecting
    # No ids or codes in what the card says.
    shown = [panel.message.text(), panel.title.text(), panel.review.toPlainText()]
    assert not any(run_id in text or "approval)" in text for text in shown)
    # The graph says the same in words.
    assert view.graph.boxes["approve"].state_label.text() == "Waiting for you"
    assert view.graph.boxes["draft"].state_label.text() == "Done"


def test_reject_asks_for_an_optional_reason_and_keeps_it(make_window, qtbot, project: Path) -> None:
    window, view, run_id = paused_view(make_window, qtbot, project)
    panel = view.gate_panel
    panel.reject_button.click()
    assert panel.comment.isVisible() and panel.reject_button.text() == "Reject"
    assert view.runner.busy is False  # nothing answered yet
    panel.comment.setText("the date is wrong")
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        panel.reject_button.click()
    assert finished.args[0].status == "failed"
    qtbot.waitUntil(lambda: not panel.isVisible(), timeout=10_000)
    assert visible_primaries(view) == ["Run"]  # the gate is gone: Run is the primary again
    events = window.context.app.runs().events(run_id)
    resumed = next(e for e in events if e["type"] == "human_gate:resumed")
    assert resumed["decision"] == "rejected" and resumed.get("comment") == "the date is wrong"
    assert not (project / "RELEASE-2.4.txt").exists()
