"""The app's notifications say who sent them: the name Relavium and the Relavium icon.

Checked in a real dunst (tests/fixtures/notifications.py): its history
records the app name and the icon file it resolved for each notification.
Without an explicit icon desktop-notifier sends its own (the Python logo).
"""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.host.desktop_os import APP_ICON, DesktopOs
from tests.fixtures.desktop_bus import desktop_bus  # noqa: F401
from tests.fixtures.notifications import NotificationDaemon, notification_daemon, notifications  # noqa: F401


async def test_a_notification_carries_the_app_name_and_icon(notifications: NotificationDaemon) -> None:  # noqa: F811
    os_cap = DesktopOs()  # as the app's context builds it
    try:
        await os_cap.notify("Run finished", "review-file: 3 steps, all done", [])
    finally:
        os_cap.close()
    notifications.close_all()
    latest = notifications.history()[0]
    assert latest["summary"] == "Run finished"
    assert latest["appname"] == "Relavium"
    assert Path(latest["icon_path"]).resolve() == APP_ICON.resolve()
    assert APP_ICON.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
