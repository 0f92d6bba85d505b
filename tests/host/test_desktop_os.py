"""The desktop OS capability against a real clipboard (Qt offscreen) and a real dunst."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from relavium_desktop.engine.host import OsCapability, ToolHost
from relavium_desktop.host.desktop_os import DesktopOs, NotificationAction
from relavium_desktop.ui.clipboard_access import QtClipboard
from tests.fixtures.desktop_bus import desktop_bus  # noqa: F401
from tests.fixtures.notifications import NotificationDaemon, notification_daemon, notifications  # noqa: F401
from tests.helpers import dispatch


def test_desktop_os_satisfies_the_engine_protocol() -> None:
    assert isinstance(DesktopOs(), OsCapability)


async def test_read_clipboard_returns_the_qt_clipboard_text(qapp) -> None:
    qapp.clipboard().setText("copied: hello from the clipboard")
    outcome = await dispatch("read_clipboard", {}, host=ToolHost(os=DesktopOs(clipboard=QtClipboard())))
    assert outcome.ok, outcome.error
    assert outcome.result == "copied: hello from the clipboard"


@pytest.mark.parametrize("content", ["text", "image", "auto"])
async def test_without_a_clipboard_the_clipboard_tool_fails_closed_and_says_why(content: str) -> None:
    """A process without the window (the CLI) builds DesktopOs with no clipboard: no read, a clear error."""
    os_cap = DesktopOs()
    assert os_cap.clipboard_has_image() is False
    outcome = await dispatch("read_clipboard", {"content": content}, host=ToolHost(os=os_cap))
    assert not outcome.ok
    assert outcome.error is not None
    assert outcome.error.code == "tool_failed"
    assert "no clipboard is available here" in outcome.error.message
    assert "Relavium Desktop window" in outcome.error.message


async def test_notify_appears_in_dunst_and_a_button_click_reaches_the_app(
    notifications: NotificationDaemon,  # noqa: F811
) -> None:
    os_cap = DesktopOs()
    received: asyncio.Queue[NotificationAction] = asyncio.Queue()
    os_cap.add_action_listener(received.put_nowait)

    outcome = await dispatch(
        "notify",
        {"title": "Build finished", "body": "All 42 tests passed", "actions": ["Open log", "Dismiss"]},
        host=ToolHost(os=os_cap),
    )
    assert outcome.ok, outcome.error
    nid = outcome.result["id"]
    # The run was not held up: the notification is still on screen, unanswered.
    assert notifications.displayed() == 1
    assert os_cap.actions_for(nid) == []

    await asyncio.to_thread(notifications.click, "Build finished", "Open log")
    action = await asyncio.wait_for(received.get(), 10)
    assert action == NotificationAction(nid, "Open log")
    assert os_cap.actions_for(nid) == ["Open log"]

    offered = notifications.menu_entries()
    assert any(e.startswith("#Open log (Build finished)") for e in offered), offered
    assert any(e.startswith("#Dismiss (Build finished)") for e in offered), offered

    notifications.close_all()
    latest = notifications.history()[0]
    assert latest["summary"] == "Build finished"
    assert latest["body"] == "All 42 tests passed"
    assert latest["appname"] == "Relavium"


async def test_notifications_never_carry_a_secret(notifications: NotificationDaemon) -> None:  # noqa: F811
    os_cap = DesktopOs()
    token = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"
    outcome = await dispatch(
        "notify", {"title": f"key {token}", "body": f"Authorization: Bearer {token}"},
        host=ToolHost(os=os_cap),
    )
    assert outcome.ok, outcome.error
    notifications.close_all()
    latest = notifications.history()[0]
    assert token not in latest["summary"] and token not in latest["body"]
    assert "***" in latest["summary"]


async def test_notify_without_a_notification_service_fails_clearly(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path}/no-bus")
    outcome = await dispatch("notify", {"title": "hi"}, host=ToolHost(os=DesktopOs()))
    assert not outcome.ok
    assert outcome.error is not None
    assert outcome.error.code == "tool_failed"
    assert "notification service" in outcome.error.message
    assert str(tmp_path) not in outcome.error.message


async def test_withdraw_takes_a_sent_notification_off_the_screen(
    notifications: NotificationDaemon,  # noqa: F811
) -> None:
    os_cap = DesktopOs()
    kept = await os_cap.notify("Build running", "still going", [])
    gone = await os_cap.notify("Approval needed", "run shell command?", ["Allow", "Deny"])
    assert notifications.displayed() == 2

    await os_cap.withdraw(gone["id"])

    # dunst closes it at once: one notification left on screen, and the withdrawn one is
    # in dunst's history of closed notifications, the other one is not.
    assert notifications.displayed() == 1
    closed = [n["summary"] for n in notifications.history()]
    assert "Approval needed" in closed
    assert "Build running" not in closed
    # A click can no longer reach the app for the withdrawn notification.
    assert os_cap.actions_for(gone["id"]) == []
    assert os_cap.actions_for(kept["id"]) == []


async def test_withdraw_never_raises_for_a_closed_or_unknown_notification(
    notifications: NotificationDaemon,  # noqa: F811
) -> None:
    os_cap = DesktopOs()
    await os_cap.withdraw("never-sent")  # nothing was ever sent by this object
    sent = await os_cap.notify("Done", "finished", [])
    await os_cap.withdraw(sent["id"])
    await os_cap.withdraw(sent["id"])  # twice: already closed by us
    assert notifications.displayed() == 0

    again = await os_cap.notify("Done again", "finished", [])
    notifications.close_all()  # the user closed it before the app withdrew it
    await asyncio.sleep(0.2)  # let the daemon's NotificationClosed signal arrive (racing it is fine too)
    await os_cap.withdraw(again["id"])
    await os_cap.withdraw("never-sent")
    assert notifications.displayed() == 0


async def test_withdraw_closes_a_notification_whose_own_button_was_pressed(
    notifications: NotificationDaemon,  # noqa: F811
) -> None:
    """dunst keeps a notification after its button was pressed, and desktop-notifier forgets it then."""
    os_cap = DesktopOs()
    received: asyncio.Queue[NotificationAction] = asyncio.Queue()
    os_cap.add_action_listener(received.put_nowait)
    sent = await os_cap.notify("Approval needed", "deploy?", ["Allow", "Deny"])
    await asyncio.to_thread(notifications.click, "Approval needed", "Allow")
    assert await asyncio.wait_for(received.get(), 10) == NotificationAction(sent["id"], "Allow")
    assert notifications.displayed() == 1  # still on screen after the press

    await os_cap.withdraw(sent["id"])

    assert notifications.displayed() == 0
    assert "Approval needed" in [n["summary"] for n in notifications.history()]
    await os_cap.withdraw(sent["id"])  # again: nothing left to close, and no error


async def test_withdraw_asking_now_closes_every_notification_with_buttons_and_keeps_the_rest(
    notifications: NotificationDaemon,  # noqa: F811
) -> None:
    """At quit nothing will answer a button any more; a notice without buttons only informs, so it stays."""
    os_cap = DesktopOs()
    await os_cap.notify("Run finished", "release-gate completed", [])
    await os_cap.notify("A workflow is waiting for you", "approve: ship it?", ["Approve", "Reject"])
    await os_cap.notify("Approval needed", "run shell command?", ["Allow", "Deny"])
    assert notifications.displayed() == 3

    # Blocking, from a thread of its own, as the window's close does (its loop is about to stop).
    assert await asyncio.to_thread(os_cap.withdraw_asking_now) == 2

    assert notifications.displayed() == 1
    closed = [n["summary"] for n in notifications.history()]
    assert "A workflow is waiting for you" in closed and "Approval needed" in closed
    assert "Run finished" not in closed
    assert os_cap.withdraw_asking_now() == 0  # nothing asking is left


EARLIER_PROCESS = """
import asyncio, os, sys
from pathlib import Path
from relavium_desktop.host.desktop_os import DesktopOs

async def main():
    os_cap = DesktopOs(open_asks_file=Path(sys.argv[1]))
    sent = await os_cap.notify("A workflow is waiting for you", "approve: ship it?", ["Approve", "Reject"])
    await os_cap.notify("Run finished", "release-gate completed", [])
    print(sent["id"], flush=True)
    os._exit(9)  # a crash: no quit path ran, nothing was withdrawn

asyncio.run(main())
"""


def run_earlier_process(asks_file) -> None:
    proc = subprocess.run([sys.executable, "-c", EARLIER_PROCESS, str(asks_file)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 9 and proc.stdout.strip(), proc.stderr


async def test_asks_a_crashed_earlier_process_left_are_withdrawn_by_the_next_one(
    notifications: NotificationDaemon, tmp_path,  # noqa: F811
) -> None:
    asks_file = tmp_path / "open-notifications.json"
    run_earlier_process(asks_file)
    assert notifications.displayed() == 2 and asks_file.exists()

    # The problem: its button reaches nobody -- the daemon sends the press to the process that is gone,
    # never to a later one (this process's DesktopOs hears nothing).
    later = DesktopOs(open_asks_file=asks_file)
    heard: list[NotificationAction] = []
    later.add_action_listener(heard.append)
    await later.notify("Already here", "this process's own", [])
    await asyncio.to_thread(notifications.click, "A workflow is waiting for you", "Approve")
    await asyncio.sleep(0.5)
    assert heard == [] and notifications.displayed() == 3

    # The fix: the next process (before its first notification) takes the dead asks off the screen.
    next_start = DesktopOs(open_asks_file=asks_file)
    worker = next_start.withdraw_left_over()
    assert worker is not None
    await asyncio.to_thread(worker.join, 10)

    assert notifications.displayed() == 2  # the run notice (no buttons) and this process's own stay
    assert "A workflow is waiting for you" in [n["summary"] for n in notifications.history()]
    assert not asks_file.exists()
    assert next_start.withdraw_left_over() is None  # once: nothing is left over now


async def test_a_left_over_id_from_another_daemon_instance_is_never_closed(
    notifications: NotificationDaemon, tmp_path,  # noqa: F811
) -> None:
    """Ids are numbered per daemon instance: after a daemon restart the same number is someone else's."""
    import json

    # Another program's notification (gdbus, as a shell script would send one), whose number is recorded below.
    proc = subprocess.run(
        ["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
         "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.Notify", "mail", "0", "",
         "Someone else's", "not Relavium's", "['open', 'Open']", "{}", "0"],
        capture_output=True, text=True, timeout=30, check=True,
    )
    other_id = int(proc.stdout.strip().strip("(),").split()[-1])  # "(uint32 7,)"
    asks_file = tmp_path / "open-notifications.json"
    run_earlier_process(asks_file)
    rows = json.loads(asks_file.read_text())
    assert len(rows) == 1 and set(rows[0]) == {"bus", "daemon", "id"}  # ids and names only, no text
    rows = [{**rows[0], "daemon": ":1.999999", "id": other_id}]  # as if recorded under an earlier daemon
    asks_file.write_text(json.dumps(rows))

    worker = DesktopOs(open_asks_file=asks_file).withdraw_left_over()
    assert worker is not None
    await asyncio.to_thread(worker.join, 10)

    assert "Someone else's" not in [n["summary"] for n in notifications.history()]
    assert not asks_file.exists()
