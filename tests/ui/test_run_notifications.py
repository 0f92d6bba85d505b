"""Workflow run finished / failed notifications through a real notification daemon.

dunst runs on a private D-Bus session bus (tests/fixtures/notifications.py);
"Open" is pressed through dunst's own context menu, so dunst emits the
ActionInvoked signal a click would.  The window is never shown, so it is not
the active window -- the situation the notification exists for.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.shell import NAV_WORKFLOWS
from relavium_desktop.ui.workflows.run_notice import TITLE_FAILED, TITLE_FINISHED
from tests.fixtures.desktop_bus import desktop_bus  # noqa: F401
from tests.fixtures.notifications import NotificationDaemon, notification_daemon, notifications  # noqa: F401
from tests.ui.workflow_samples import BRANCHY, RUN_TIMEOUT_MS

FAILING = """\
schema_version: '1.0'
workflow:
  id: failing
  name: Always refused
  nodes:
    - { id: start, type: input }
    - id: nope
      type: tool
      tool_config: { tool_name: run_command, input_mapping: { command: rm, args: ['-rf', 'build'] } }
    - { id: out, type: output }
  edges: [{ from: start, to: nope }, { from: nope, to: out }]
"""


@pytest.fixture
def view(make_window, qtbot, project: Path):
    (project / "flows").mkdir()
    (project / "flows" / "branchy.relavium.yaml").write_text(BRANCHY)
    (project / "flows" / "failing.relavium.yaml").write_text(FAILING)
    window = make_window()
    window.context.settings.setValue(keys.KEY_NOTIFY_APPROVALS, False)
    window.context.set_project(str(project))
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    view = window.workflows_view
    qtbot.waitUntil(lambda: len(view.entries) == 2, timeout=10_000)
    assert not window.isActiveWindow()
    return view


def run_notified(view, qtbot, rel: str, **inputs: str):
    view.open_workflow(rel)
    for name, value in inputs.items():
        view.inputs.set_value(name, value)
    with qtbot.waitSignal(view.run_notices.notified, timeout=RUN_TIMEOUT_MS) as notified, \
            qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        view.run_button.click()
    result = finished.args[0]
    assert notified.args[1] == result.run_id
    return result


def test_finished_run_notifies_and_open_shows_that_run(
    view, qtbot, notifications: NotificationDaemon,  # noqa: F811
) -> None:
    window = view.window()
    result = run_notified(view, qtbot, "flows/branchy.relavium.yaml", n="3")
    assert result.status == "completed"
    assert notifications.displayed() == 1
    with qtbot.waitSignal(view.run_notices.open_requested, timeout=15_000) as opened:
        notifications.click(TITLE_FINISHED, "Open")
    assert any(e.startswith(f"#Open ({TITLE_FINISHED})") for e in notifications.menu_entries())
    assert opened.args == [result.run_id]
    runs = window.runs_view
    assert window.pages.currentWidget() is runs
    qtbot.waitUntil(lambda: runs.shown_run == result.run_id, timeout=10_000)
    assert runs.log_title.text().startswith("Branch and write — Done") and result.run_id in runs.details.text()
    notifications.close_all()
    shown = notifications.history()[0]
    assert shown["summary"] == TITLE_FINISHED and shown["body"] == "Branch and write completed."


def test_failed_run_notifies_with_the_error_code(
    view, qtbot, notifications: NotificationDaemon,  # noqa: F811
) -> None:
    result = run_notified(view, qtbot, "flows/failing.relavium.yaml")
    assert result.status == "failed"
    with qtbot.waitSignal(view.run_notices.open_requested, timeout=15_000):
        notifications.click(TITLE_FAILED, "Open")
    qtbot.waitUntil(lambda: view.window().runs_view.shown_run == result.run_id, timeout=10_000)
    notifications.close_all()
    shown = notifications.history()[0]
    assert shown["summary"] == TITLE_FAILED
    assert shown["body"].startswith("Always refused failed — tool_denied")


def test_no_notification_when_run_notifications_are_off(
    view, qtbot, notifications: NotificationDaemon,  # noqa: F811
) -> None:
    view.window().context.settings.setValue(keys.KEY_NOTIFY_RUNS, False)
    view.open_workflow("flows/branchy.relavium.yaml")
    view.inputs.set_value("n", "12")
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        view.run_button.click()
    assert finished.args[0].status == "completed"
    # run_ended decides synchronously; nothing was sent or is waiting to be sent.
    assert view.run_notices._runs_by_notification == {}
    assert notifications.displayed() == 0
