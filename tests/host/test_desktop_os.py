"""The desktop OS capability against a real clipboard (Qt offscreen) and a real dunst."""

from __future__ import annotations

import asyncio

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
