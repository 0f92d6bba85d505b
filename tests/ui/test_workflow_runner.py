"""The window's WorkflowRunner over the application's RunService (offscreen, real engine and history.db).

Two runners stand for two places in one window that answer gates (the
Workflows view and Runs / History); they share the window's Application, as
the views do.  A gate answered by one is refused by the other with the words
a person reads, and a paused run is cancelled without answering its gate.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.application.app import Application
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.engine.workflow.loader import load_workflow
from relavium_desktop.engine.workflow.run import GateDecision

GATED = """schema_version: '1.0'
workflow:
  id: gated
  name: Gated ship
  nodes:
    - {id: s, type: input}
    - {id: ask, type: human_gate, message_template: 'Ship it?'}
    - {id: done, type: transform, transform: '"shipped"'}
    - {id: out, type: output}
  edges: [{from: s, to: ask}, {from: ask, to: done}, {from: done, to: out}]
"""


@pytest.fixture
def app(relavium_home: Path) -> Any:
    application = Application(AppPaths(relavium_home))
    yield application
    application.close()


def runner(app: Application, project: Path) -> Any:
    from relavium_desktop.ui.workflows.runner import WorkflowRunner

    return WorkflowRunner(
        app=app, workspace=lambda: str(project), os_capability=lambda: None, approval_hook=lambda: None
    )


def paused(qtbot: Any, first: Any) -> Any:
    with qtbot.waitSignal(first.finished, timeout=30_000) as blocker:
        assert first.start(load_workflow(GATED, "gated.relavium.yaml"), {})
    result = blocker.args[0]
    assert result.status == "paused"
    assert first.state is not None and first.state.status == "paused"
    return result


def test_a_gate_answered_in_one_place_is_refused_in_the_other_as_already_answered(
    qtbot: Any, qloop: Any, app: Application, tmp_path: Path
) -> None:
    workflows, history = runner(app, tmp_path), runner(app, tmp_path)
    result = paused(qtbot, workflows)
    gate_id = result.pending_gates[0]["gateId"]
    refusals: list[str] = []
    history.failed_to_start.connect(refusals.append)

    with qtbot.waitSignal(workflows.finished, timeout=30_000) as done:
        assert workflows.resume(result.run_id, GateDecision("approved", "desktop"), gate_id)
        # The second button, pressed before the first answer has run a single node.
        assert not history.resume(result.run_id, GateDecision("rejected", "desktop"), gate_id)
    assert done.args[0].status == "completed"
    assert refusals == ["this gate was already answered"]
    assert workflows.state.status == "completed"

    # Later (a stale notification button): who answered is said.
    assert not history.resume(result.run_id, GateDecision("approved", "desktop"), gate_id)
    assert refusals[-1] == "this gate was already answered (approved by desktop)"
    assert app.runs().get_run(result.run_id)["status"] == "completed"


def test_cancel_paused_ends_the_run_cancelled_and_its_event_reaches_the_view(
    qtbot: Any, qloop: Any, app: Application, tmp_path: Path
) -> None:
    first = runner(app, tmp_path)
    result = paused(qtbot, first)
    events: list[dict[str, Any]] = []
    first.run_event.connect(events.append)

    assert first.cancel_paused(result.run_id)
    assert [e["type"] for e in events] == ["run:cancelled"]
    assert app.runs().get_run(result.run_id)["status"] == "cancelled"
    refusals: list[str] = []
    first.failed_to_start.connect(refusals.append)
    assert not first.resume(
        result.run_id, GateDecision("approved", "desktop"), result.pending_gates[0]["gateId"]
    )
    assert refusals == [f"run {result.run_id!r} is cancelled, not waiting at a human gate"]
