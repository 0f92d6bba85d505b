"""A paused run answered in any of four places updates the other three.

The four places: the Workflows view's own gate panel, the gate notification's
Approve button (pressed through a real dunst on a private D-Bus), the Runs /
History gate panel, and ``relavium gate approve RUN_ID`` run as a real
subprocess.  After each, the others show the answer: the Workflows timeline
and list icon, the Runs / History row and its (gone) gate panel, the dialog
(closed), the notification (withdrawn: dunst displays none), and the tray's
waiting count (down to 0).  No mocks: the real engine, history.db, the CLI and
the notification daemon.  The window is never shown, so it is not the active
window and the gate notification is sent, as it is for a user elsewhere.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.shell import NAV_WORKFLOWS
from relavium_desktop.ui.workflows.gate import ALREADY_ANSWERED, ALREADY_ANSWERED_TITLE, NOTIFICATION_TITLE
from relavium_desktop.ui.workflows.list_row import STATUS_ROLE
from relavium_desktop.ui.workflows.timeline import PAUSED_LINE
from tests.conftest import relavium_cmd
from tests.fixtures.desktop_bus import desktop_bus  # noqa: F401
from tests.fixtures.notifications import NotificationDaemon, notification_daemon, notifications  # noqa: F401
from tests.ui.workflow_samples import RUN_TIMEOUT_MS

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"
GATE_FILE = "flows/release-gate.relavium.yaml"
WAIT_MS = 15_000


@pytest.fixture
def paused(make_window, qtbot, project: Path, notifications: NotificationDaemon):  # noqa: F811
    """A window whose Workflows view ran release-gate to its gate; dialog, notification, Runs panel all up."""
    (project / "flows").mkdir()
    shutil.copy(EXAMPLES / "release-gate.relavium.yaml", project / GATE_FILE)
    window = make_window()
    window.context.settings.setValue(keys.KEY_NOTIFY_APPROVALS, True)
    window.context.settings.setValue(keys.KEY_NOTIFY_RUNS, False)
    window.context.set_project(str(project))
    tray = window.watch_tray_status()
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    view = window.workflows_view
    qtbot.waitUntil(lambda: len(view.entries) == 1, timeout=10_000)
    view.open_workflow(GATE_FILE)
    view.inputs.set_value("version", "1.0")
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        view.run_button.click()
    result = finished.args[0]
    assert result.status == "paused" and not window.isActiveWindow()
    qtbot.waitUntil(lambda: view.gates.last_notification_id is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: notifications.displayed() == 1, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: tray.waiting == 1, timeout=WAIT_MS)
    # The Workflows view itself: the node waits for the user's answer, answerable right here, and Stop works.
    assert view.timeline.state_of("approve") == "waiting"
    assert view.timeline.records["approve"].detail.startswith("waits for your answer")
    assert view.gate_panel.isVisibleTo(view) and view.gate_panel.run_id == result.run_id
    assert view.stop_button.isEnabled()
    assert view.gates.pending is not None
    # Runs / History shows the same gate.
    runs = window.show_runs()
    qtbot.waitUntil(lambda: bool(runs.runs), timeout=WAIT_MS)
    runs.open_run(result.run_id)
    qtbot.waitUntil(lambda: runs.gate_panel.run_id == result.run_id, timeout=WAIT_MS)
    assert runs.cell(runs.row_of(result.run_id), "Status") == "Waiting for you"
    return window, view, runs, tray, result


def assert_everywhere_answered(window, view, runs, tray, run_id: str, qtbot, notifications,  # noqa: F811
                               project: Path) -> None:
    """What every other place shows once the gate was approved anywhere."""
    qtbot.waitUntil(lambda: view.timeline.state_of("approve") == "completed", timeout=RUN_TIMEOUT_MS)
    qtbot.waitUntil(lambda: view.timeline.state_of("out") == "completed", timeout=RUN_TIMEOUT_MS)
    assert view.timeline.records["approve"].decision.startswith("approved by ")
    assert not view.gate_panel.isVisibleTo(view) and not view.stop_button.isEnabled()
    qtbot.waitUntil(lambda: view.workflow_list.item(0).data(STATUS_ROLE) == "completed", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: view.gates.pending is None, timeout=WAIT_MS)  # the dialog closed
    qtbot.waitUntil(lambda: notifications.displayed() == 0, timeout=WAIT_MS)  # withdrawn, seen by dunst itself
    assert any(n["summary"] == NOTIFICATION_TITLE for n in notifications.history())
    qtbot.waitUntil(lambda: tray.waiting == 0, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: runs.gate_panel.run_id is None and not runs.gate_panel.isVisibleTo(runs),
                    timeout=WAIT_MS)
    runs.refresh()
    qtbot.waitUntil(lambda: runs.cell(runs.row_of(run_id), "Status") == "Done", timeout=WAIT_MS)
    assert (project / "RELEASE-1.0.txt").read_text() == "Release 1.0\n"


def test_answered_in_the_workflows_view(paused, qtbot, notifications, project: Path) -> None:  # noqa: F811
    window, view, runs, tray, result = paused
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as done:
        view.gate_panel.approve_button.click()
    assert done.args[0].status == "completed"
    assert_everywhere_answered(window, view, runs, tray, result.run_id, qtbot, notifications, project)
    assert view.timeline.records["approve"].decision == "approved by desktop"


def test_answered_from_the_notification(paused, qtbot, notifications, project: Path) -> None:  # noqa: F811
    window, view, runs, tray, result = paused
    nid = view.gates.last_notification_id
    with qtbot.waitSignal(view.gates.withdrawn, timeout=RUN_TIMEOUT_MS,
                          check_params_cb=lambda withdrawn: withdrawn == nid), \
            qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS):
        notifications.click(NOTIFICATION_TITLE, "Approve")
    # dunst keeps a notification whose action was invoked, and desktop-notifier forgets it on the click:
    # the D-Bus id DesktopOs kept at send time is what takes it off the screen.
    assert_everywhere_answered(window, view, runs, tray, result.run_id, qtbot, notifications, project)
    assert view.timeline.records["approve"].decision == "approved by notification"


def test_quitting_withdraws_the_gate_notification_whose_buttons_would_stop_working(
    paused, qtbot, notifications,  # noqa: F811
) -> None:
    """After the app quits, nothing answers the notification's buttons: it must not stay on screen."""
    window, _view, _runs, _tray, _result = paused
    assert notifications.displayed() == 1
    window.quitting = True  # Quit, not a close into the tray
    window.close()
    qtbot.waitUntil(lambda: notifications.displayed() == 0, timeout=WAIT_MS)
    assert any(n["summary"] == NOTIFICATION_TITLE for n in notifications.history())


EARLIER_WINDOW = """
import asyncio, os, sys
from pathlib import Path
from relavium_desktop.host.desktop_os import DesktopOs
from relavium_desktop.ui.workflows.gate import NOTIFICATION_TITLE

async def main():
    os_cap = DesktopOs(open_asks_file=Path(sys.argv[1]) / "open-notifications.json")
    await os_cap.notify(NOTIFICATION_TITLE, "approve: Approve the release?", ["Approve", "Reject"])
    os._exit(9)  # the app crashed: its quit path never ran

asyncio.run(main())
"""


def test_a_window_starting_after_a_crash_takes_the_dead_gate_notification_away(
    make_window, qtbot, notifications, relavium_home: Path,  # noqa: F811
) -> None:
    """A gate notification of a Relavium that crashed: its buttons reach no process, so the next start closes it."""
    proc = subprocess.run([sys.executable, "-c", EARLIER_WINDOW, str(relavium_home)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 9, proc.stderr
    assert notifications.displayed() == 1
    window = make_window()
    window.context.ensure_services()  # what the window does after its first paint
    qtbot.waitUntil(lambda: notifications.displayed() == 0, timeout=WAIT_MS)
    assert any(n["summary"] == NOTIFICATION_TITLE for n in notifications.history())
    assert not (relavium_home / "open-notifications.json").exists()


def test_answered_in_runs_history(paused, qtbot, notifications, project: Path) -> None:  # noqa: F811
    window, view, runs, tray, result = paused
    with qtbot.waitSignal(runs.resumed, timeout=RUN_TIMEOUT_MS) as done:
        runs.gate_panel.approve_button.click()
    assert done.args[0].status == "completed"
    assert_everywhere_answered(window, view, runs, tray, result.run_id, qtbot, notifications, project)
    assert view.timeline.records["approve"].decision == "approved by desktop"


def test_answered_by_the_cli_in_another_process(
    paused, qtbot, notifications, project: Path, cli_env: dict[str, str],  # noqa: F811
) -> None:
    window, view, runs, tray, result = paused
    proc = subprocess.run([*relavium_cmd(), "gate", "approve", result.run_id], env=cli_env, cwd=project,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    # Nothing in this window answered: the board's poll of history.db brings the answer in.
    assert_everywhere_answered(window, view, runs, tray, result.run_id, qtbot, notifications, project)
    assert view.timeline.records["approve"].decision == "approved by cli"


def test_a_stale_notification_button_says_already_answered(
    paused, qtbot, notifications, project: Path, cli_env: dict[str, str],  # noqa: F811
) -> None:
    window, view, _runs, tray, result = paused
    board = window.gate_board()
    board.set_poll_ms(600_000)  # the window has not looked at history.db since the CLI answered
    proc = subprocess.run([*relavium_cmd(), "gate", "approve", result.run_id], env=cli_env, cwd=project,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert notifications.displayed() == 1  # still on screen: its button now answers a question that is gone
    with qtbot.waitSignal(view.gates.stale_action, timeout=WAIT_MS):
        notifications.click(NOTIFICATION_TITLE, "Approve")
    # Not silence: a notification says so.
    notifications.close_all()
    assert (ALREADY_ANSWERED_TITLE, ALREADY_ANSWERED) in [(n["summary"], n["body"]) for n in notifications.history()]
    qtbot.waitUntil(lambda: tray.waiting == 0, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: view.timeline.state_of("approve") == "completed", timeout=WAIT_MS)


def test_refresh_keeps_the_run_paused_and_stop_cancels_it(paused, qtbot, notifications) -> None:  # noqa: F811
    window, view, runs, tray, result = paused
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.refresh_button.click()
    assert view.timeline.state_of("approve") == "waiting"  # not "pending"
    assert view.timeline.status.text() == PAUSED_LINE
    assert view.workflow_list.item(0).data(STATUS_ROLE) == "paused"
    assert view.gate_panel.isVisibleTo(view) and view.stop_button.isEnabled()
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as done:
        view.stop_button.click()
    assert (done.args[0].run_id, done.args[0].status) == (result.run_id, "cancelled")
    assert view.timeline.state_of("approve") == "cancelled" and view.timeline.status.text() == "Stopped"
    assert not view.stop_button.isEnabled() and not view.gate_panel.isVisibleTo(view)
    qtbot.waitUntil(lambda: view.workflow_list.item(0).data(STATUS_ROLE) == "cancelled", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: view.gates.pending is None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: notifications.displayed() == 0, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: tray.waiting == 0, timeout=WAIT_MS)
    runs.refresh()
    qtbot.waitUntil(lambda: runs.cell(runs.row_of(result.run_id), "Status") == "Cancelled", timeout=WAIT_MS)


def test_a_run_paused_by_the_cli_before_the_window_opened_is_shown_paused_and_answerable(
    make_window, qtbot, project: Path, cli_env: dict[str, str],
) -> None:
    """A paused run the window did not start (``relavium run`` exited 3 at the gate) reads paused, not pending."""
    (project / "flows").mkdir()
    shutil.copy(EXAMPLES / "release-gate.relavium.yaml", project / GATE_FILE)
    proc = subprocess.run([*relavium_cmd(), "run", GATE_FILE, "--input", "version=2.0"], env=cli_env, cwd=project,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 3, proc.stderr  # paused at the gate
    window = make_window()
    window.context.settings.setValue(keys.KEY_NOTIFY_APPROVALS, False)
    window.context.set_project(str(project))
    tray = window.watch_tray_status()
    qtbot.waitUntil(lambda: tray.waiting == 1, timeout=WAIT_MS)  # the board found it in history.db
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    view = window.workflows_view
    qtbot.waitUntil(lambda: len(view.entries) == 1, timeout=WAIT_MS)
    view.open_workflow(GATE_FILE)
    qtbot.waitUntil(lambda: view.gate_panel.isVisibleTo(view), timeout=WAIT_MS)
    assert view.timeline.state_of("approve") == "waiting" and view.timeline.state_of("draft") == "completed"
    assert view.timeline.status.text() == PAUSED_LINE
    assert view.workflow_list.item(0).data(STATUS_ROLE) == "paused" and view.stop_button.isEnabled()
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as done:
        view.gate_panel.approve_button.click()
    assert done.args[0].status == "completed"
    assert (project / "RELEASE-2.0.txt").read_text() == "Release 2.0\n"
    qtbot.waitUntil(lambda: tray.waiting == 0, timeout=WAIT_MS)
    assert view.workflow_list.item(0).data(STATUS_ROLE) == "completed" and not view.stop_button.isEnabled()


def test_refresh_brings_in_a_run_the_cli_paused_while_the_window_was_open(
    make_window, qtbot, project: Path, cli_env: dict[str, str],
) -> None:
    (project / "flows").mkdir()
    shutil.copy(EXAMPLES / "release-gate.relavium.yaml", project / GATE_FILE)
    window = make_window()
    window.context.settings.setValue(keys.KEY_NOTIFY_APPROVALS, False)
    window.context.set_project(str(project))
    tray = window.watch_tray_status()
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    view = window.workflows_view
    qtbot.waitUntil(lambda: len(view.entries) == 1, timeout=WAIT_MS)
    view.open_workflow(GATE_FILE)
    assert view.timeline.state_of("approve") == "pending" and not view.stop_button.isEnabled()
    proc = subprocess.run([*relavium_cmd(), "run", GATE_FILE, "--input", "version=3.0"], env=cli_env, cwd=project,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 3, proc.stderr
    view.refresh_button.click()
    qtbot.waitUntil(lambda: view.gate_panel.isVisibleTo(view), timeout=WAIT_MS)
    assert view.timeline.state_of("approve") == "waiting" and view.timeline.status.text() == PAUSED_LINE
    assert view.stop_button.isEnabled()
    qtbot.waitUntil(lambda: tray.waiting == 1, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: view.workflow_list.item(0).data(STATUS_ROLE) == "paused", timeout=WAIT_MS)
