"""The desktop's OS capability: clipboard text and images, and native notifications.

The clipboard is reached through a :class:`ClipboardAccess` the surface hands
in (the window's is ``ui.clipboard_access.QtClipboard``): the host imports no
Qt, so a process without a Qt application -- the CLI -- builds a DesktopOs
with none, and its clipboard tools fail closed with a clear error.
``read_clipboard_image`` publishes the clipboard's PNG to the media store and
returns the handle's descriptor: a screenshot reaches a model as a handle,
never as bytes in a tool result.  ``notify`` hands the notification to the session's notification
service through desktop-notifier and returns its id as soon as the service
accepted it -- the run never waits for a click.  A click on one of its buttons
(or on its body, ``action == "default"``) arrives later, on the loop, as a
:class:`NotificationAction` delivered to every listener and kept in a short
history so a run can ask what happened to the notification it sent.

Titles, bodies and button labels pass through credential masking first: a
notification is shown on screen and kept in the daemon's history, so it must
never carry a secret a model happened to put in it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.host.desktop_entry import ASSETS

log = logging.getLogger(__name__)

APP_NAME = "Relavium"
# The app icon as a file: a notification shows it whether or not the desktop entry (and with it
# the themed icon name) is installed.  128 px is what notification daemons scale from.
APP_ICON = ASSETS / "icons" / "relavium-128.png"
# The notification service answers in milliseconds; a bus that never answers
# must not hold a tool call hostage.
SEND_TIMEOUT_S = 10.0
DEFAULT_ACTION = "default"


class ClipboardUnavailable(RuntimeError):
    """This process has no clipboard to read (no desktop app; secret-free message)."""


NO_CLIPBOARD = "no clipboard is available here: reading the clipboard needs the Relavium Desktop window"


class ClipboardAccess(Protocol):
    """What DesktopOs needs of a clipboard; called on the loop's thread (Qt's GUI thread on the desktop)."""

    def read_text(self) -> str:
        """The clipboard's text ("" when it holds none)."""
        ...

    def has_image(self) -> bool:
        """Whether an image is on the clipboard, without reading it."""
        ...

    async def read_image_png(self) -> bytes | None:
        """The clipboard's image as PNG bytes (lossless), or None when it holds no image."""
        ...


class NotificationUnavailable(RuntimeError):
    """No notification service answered on the session bus (secret-free message)."""


@dataclass(frozen=True, slots=True)
class NotificationAction:
    """A user's answer to a notification: a button label, or ``default`` for a body click."""

    notification_id: str
    action: str


ActionListener = Callable[[NotificationAction], None]
# (bytes, mime) -> the media descriptor of the published object (MediaHost.publish_bytes).
MediaPublisher = Callable[[bytes, str], dict[str, Any]]


class DesktopOs:
    """Implements :class:`relavium_desktop.engine.host.OsCapability` for the desktop app."""

    def __init__(
        self,
        *,
        app_name: str = APP_NAME,
        app_icon: Path | None = APP_ICON,
        clipboard: ClipboardAccess | None = None,
        media_root: Path | None = None,
        media_publish: MediaPublisher | None = None,
        history: int = 200,
    ) -> None:
        """``media_root``: the media store a clipboard image is published to -- the same one the
        tool hosts use (``<data folder>/media``), so a handle published here is admissible by
        any MediaHost of this process (see host.media.store.published_here).  ``media_publish``
        replaces the store outright.  With neither, clipboard images cannot be read (text can).
        """
        self._app_name = app_name
        self._app_icon = app_icon
        self._clipboard = clipboard
        self._media_root = media_root
        self._media_publish = media_publish
        self._notifier: Any = None
        self._listeners: list[ActionListener] = []
        self.actions: deque[NotificationAction] = deque(maxlen=history)

    # -- clipboard -----------------------------------------------------------

    def _require_clipboard(self) -> ClipboardAccess:
        if self._clipboard is None:
            raise ClipboardUnavailable(NO_CLIPBOARD)
        return self._clipboard

    async def read_clipboard(self) -> str:
        return self._require_clipboard().read_text()

    def clipboard_has_image(self) -> bool:
        """Whether an image is on the clipboard, without reading it (the quick panel's choice of actions)."""
        return self._clipboard is not None and self._clipboard.has_image()

    async def read_clipboard_image(self) -> dict[str, Any] | None:
        png = await self._require_clipboard().read_image_png()
        if png is None:
            return None
        return await asyncio.to_thread(self._publisher(), png, "image/png")

    def _publisher(self) -> MediaPublisher:
        if self._media_publish is None:
            if self._media_root is None:
                raise ClipboardUnavailable("no media store was given: the clipboard image has nowhere to go")
            from relavium_desktop.host.media import MediaHost

            self._media_publish = MediaHost.at(self._media_root).publish_bytes
        return self._media_publish

    # -- notifications -------------------------------------------------------

    def add_action_listener(self, listener: ActionListener) -> Callable[[], None]:
        """Call ``listener`` for every button/body click; returns an unsubscribe function."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def actions_for(self, notification_id: str) -> list[str]:
        """The actions taken on one notification so far (a run reads its answer here)."""
        return [a.action for a in self.actions if a.notification_id == notification_id]

    def _deliver(self, notification_id: str, action: str) -> None:
        event = NotificationAction(notification_id, action)
        self.actions.append(event)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a faulty listener must not starve the others
                log.exception("notification action listener failed")

    def close(self) -> None:
        """Drop the D-Bus connection (its socket watch belongs to the loop that made it)."""
        notifier, self._notifier = self._notifier, None
        bus = getattr(getattr(notifier, "_backend", None), "bus", None)
        if bus is not None:
            bus.disconnect()

    def _get_notifier(self) -> Any:
        if self._notifier is None:
            from desktop_notifier import DesktopNotifier, Icon

            # Without an icon desktop-notifier would show its own default (the Python logo).
            icon = Icon(path=self._app_icon) if self._app_icon is not None and self._app_icon.is_file() else None
            self._notifier = DesktopNotifier(app_name=self._app_name, app_icon=icon)
        return self._notifier

    async def notify(self, title: str, body: str, actions: Sequence[str]) -> dict[str, Any]:
        from desktop_notifier import Button

        notifier = self._get_notifier()
        holder: dict[str, str] = {}
        dispatched: list[bool] = []

        def pressed(label: str) -> Callable[[], None]:
            return lambda: self._deliver(holder.get("id", ""), label)

        labels = [mask_text(a) for a in actions]
        buttons = [Button(title=label, on_pressed=pressed(label)) for label in labels]
        try:
            ident = await asyncio.wait_for(
                notifier.send(
                    title=mask_text(title),
                    message=mask_text(body),
                    buttons=buttons,
                    on_clicked=lambda: self._deliver(holder.get("id", ""), DEFAULT_ACTION),
                    on_dispatched=lambda: dispatched.append(True),
                ),
                SEND_TIMEOUT_S,
            )
        except TimeoutError:
            raise NotificationUnavailable(
                "the desktop notification service did not answer in time"
            ) from None
        if not dispatched:
            # desktop-notifier logs and swallows a failed send; a tool call must not
            # report success for a notification nobody will ever see.
            raise NotificationUnavailable(
                "no desktop notification service is reachable on the session D-Bus"
            )
        holder["id"] = str(ident)
        return {"id": str(ident), "actions": labels}

    async def withdraw(self, notification_id: str) -> None:
        """Close a notification this object sent (CloseNotification over D-Bus), best effort.

        Why: a notification that asked for something (an approval, say) must leave the
        screen once the question was answered elsewhere, or a later click answers a
        question that no longer exists.  A notification the user already closed, one
        this object never sent and an unreachable bus are all fine: withdrawing is
        tidying up, so it never raises -- a failure is logged (without the text).
        """
        notifier = self._notifier
        if notifier is None or not notification_id:
            return  # nothing sent by this object, so nothing of ours is on screen
        try:
            if notification_id not in await notifier.get_current_notifications():
                return  # closed by the user or the daemon already
            await asyncio.wait_for(notifier.clear(notification_id), SEND_TIMEOUT_S)
        except KeyError:
            pass  # closed between the check and the call (the daemon's close signal won)
        except Exception:  # TimeoutError included: a bus that never answers
            log.warning("could not withdraw notification %s", notification_id, exc_info=True)
