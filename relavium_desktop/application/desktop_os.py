"""The desktop's clipboard and notifications as the window hands them to the tools and shows its asks.

:class:`DesktopOs` is the host's capability for ``read_clipboard`` and for
notifications that ask (a gate, an approval) with buttons; the window builds
one with its Qt clipboard and keeps it on its context, and its views send
and withdraw notifications through it.  Surfaces name it and its action type
from here.  Importing this module loads the notification stack, so the
window names these types under ``TYPE_CHECKING`` before its first paint.
"""

from __future__ import annotations

from relavium_desktop.host.desktop_os import (
    ClipboardAccess,
    ClipboardUnavailable,
    DesktopOs,
    NotificationAction,
    NotificationUnavailable,
)

__all__ = [
    "ClipboardAccess",
    "ClipboardUnavailable",
    "DesktopOs",
    "NotificationAction",
    "NotificationUnavailable",
]
