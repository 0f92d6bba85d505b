"""Relavium as the user's desktop knows it: the app id, and whether it starts at login.

The id names the ``.desktop`` file, the installed icon and the window's
Wayland app id, so the launcher, the autostart entry and the running window
match; the window's identity and its settings take it from here.  Starting
at login is an XDG autostart entry (Linux desktops): the entry itself is
the setting, so it is read back from the file, not remembered.
"""

from __future__ import annotations

from relavium_desktop.host.desktop_entry import APP_ID

__all__ = ["APP_ID", "login_start_enabled", "set_login_start"]


def login_start_enabled(app_id: str = APP_ID) -> bool:
    """Whether the autostart entry ``<app_id>.desktop`` exists."""
    from relavium_desktop.host import autostart

    return autostart.is_enabled(app_id)


def set_login_start(on: bool, app_id: str = APP_ID) -> None:
    """Write (atomically) or remove the autostart entry; ``OSError`` when the config folder cannot be written."""
    from relavium_desktop.host import autostart

    if on:
        autostart.enable(app_id)
    else:
        autostart.disable(app_id)
