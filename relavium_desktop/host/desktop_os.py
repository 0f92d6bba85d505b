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

A notification that asks something leaves the screen once it is answered
(``withdraw``, by the D-Bus id kept at send time, also after its own button
was pressed), when the app quits (``withdraw_asking_now``) and, after a crash,
at the next start (``withdraw_left_over``; host/open_asks.py): the daemon
sends a button press only to the process that sent the notification, so a
button outliving its process would do nothing, silently.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.host import open_asks
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


@dataclass(frozen=True, slots=True)
class _Sent:
    """What the daemon knows a notification by (its D-Bus id) and whether it asks something (has buttons)."""

    platform_id: int
    has_buttons: bool


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
        open_asks_file: Path | None = None,
    ) -> None:
        """``media_root``: the media store a clipboard image is published to -- the same one the
        tool hosts use (``<data folder>/media``), so a handle published here is admissible by
        any MediaHost of this process (see host.media.store.published_here).  ``media_publish``
        replaces the store outright.  With neither, clipboard images cannot be read (text can).
        ``open_asks_file``: where this process records its notifications with buttons while they
        are open, so the next process can take them off the screen after a crash
        (:meth:`withdraw_left_over`; see host/open_asks.py).  None records nothing.
        """
        self._app_name = app_name
        self._app_icon = app_icon
        self._clipboard = clipboard
        self._media_root = media_root
        self._media_publish = media_publish
        self._notifier: Any = None
        self._listeners: list[ActionListener] = []
        self.actions: deque[NotificationAction] = deque(maxlen=history)
        # Our id -> the daemon's, kept ourselves: desktop-notifier forgets a notification the moment one of
        # its buttons is pressed, but dunst (like most daemons) keeps showing it, so withdrawing it later
        # needs the D-Bus id.  Bounded like the action history; dropped when withdrawn.
        self._sent: OrderedDict[str, _Sent] = OrderedDict()
        self._sent_limit = history
        self._bus_address: str | None = None  # the session bus the notifications went to
        self._open_asks_file = open_asks_file
        self._identity: open_asks.DaemonIdentity | None = None  # the daemon that issued our ids

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
            icon = (
                Icon(path=self._app_icon) if self._app_icon is not None and self._app_icon.is_file() else None
            )
            self._notifier = DesktopNotifier(app_name=self._app_name, app_icon=icon)
            self._bus_address = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
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
            raise NotificationUnavailable("the desktop notification service did not answer in time") from None
        if not dispatched:
            # desktop-notifier logs and swallows a failed send; a tool call must not
            # report success for a notification nobody will ever see.
            raise NotificationUnavailable("no desktop notification service is reachable on the session D-Bus")
        holder["id"] = str(ident)
        self._remember(notifier, str(ident), has_buttons=bool(labels))
        if labels and self._open_asks_file is not None:
            await self._record_open_asks(notifier)
        return {"id": str(ident), "actions": labels}

    def _remember(self, notifier: Any, ident: str, *, has_buttons: bool) -> None:
        # desktop-notifier has no public way to ask for the daemon's id; its D-Bus backend keeps it in a
        # bidict.  Read defensively: another backend (or version) simply leaves withdraw to the notifier.
        backend = getattr(notifier, "_backend", None)
        ids = getattr(backend, "_platform_to_interface_notification_identifier", None)
        try:
            platform_id = ids.inverse[ident] if ids is not None else None
        except (AttributeError, KeyError):
            platform_id = None
        if isinstance(platform_id, int):
            self._sent[ident] = _Sent(platform_id, has_buttons)
            while len(self._sent) > self._sent_limit:
                self._sent.popitem(last=False)

    async def _record_open_asks(self, notifier: Any) -> None:
        if self._identity is None:
            bus = getattr(getattr(notifier, "_backend", None), "bus", None)
            try:
                self._identity = await asyncio.wait_for(open_asks.daemon_identity(bus), SEND_TIMEOUT_S)
            except Exception as exc:  # noqa: BLE001 -- without it nothing is recorded; the quit path still withdraws
                log.info("notification daemon not identified: %s", type(exc).__name__)
                return
        self._save_open_asks()

    def _save_open_asks(self) -> None:
        if self._open_asks_file is not None and self._identity is not None:
            identity = self._identity
            asks = [open_asks.OpenAsk(identity, s.platform_id) for s in self._sent.values() if s.has_buttons]
            open_asks.save(self._open_asks_file, asks)

    def withdraw_left_over(self) -> threading.Thread | None:
        """Take off the screen the notifications with buttons an earlier Relavium left (it crashed).

        Their buttons reach nobody: the daemon sends a press only to the process that
        sent the notification.  Reads (and removes) ``open_asks_file`` now; the D-Bus
        calls run in a daemon thread of their own, so starting the window never waits
        on the bus.  Returns that thread (tests join it), or None when nothing was left.
        Only before this object's first notification: after it, the file is this process's own.
        """
        if self._open_asks_file is None or self._notifier is not None:
            return None
        left = open_asks.take(self._open_asks_file)
        if not left:
            return None
        address = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
        worker = threading.Thread(
            target=lambda: asyncio.run(open_asks.close_on_new_connection(address, left, 2.0)),
            name="relavium-withdraw-left-over",
            daemon=True,
        )
        worker.start()
        return worker

    async def withdraw(self, notification_id: str) -> None:
        """Close a notification this object sent (CloseNotification over D-Bus), best effort.

        Why: a notification that asked for something (an approval, say) must leave the
        screen once the question was answered elsewhere, or a later click answers a
        question that no longer exists.  That includes one answered by its own button:
        desktop-notifier forgets it then, but the daemon keeps showing it, so the D-Bus
        id kept at send time closes it.  A notification the user already closed, one
        this object never sent and an unreachable bus are all fine: withdrawing is
        tidying up, so it never raises -- a failure is logged (without the text).
        """
        notifier = self._notifier
        sent = self._sent.pop(notification_id, None)
        if sent is not None and sent.has_buttons:
            self._save_open_asks()
        if notifier is None or not notification_id:
            return  # nothing sent by this object, so nothing of ours is on screen
        try:
            if notification_id in await notifier.get_current_notifications():
                await asyncio.wait_for(notifier.clear(notification_id), SEND_TIMEOUT_S)
            elif sent is not None:  # forgotten by desktop-notifier (a button was pressed), maybe still shown
                await asyncio.wait_for(self._close_by_platform_id(notifier, sent.platform_id), SEND_TIMEOUT_S)
        except KeyError:
            pass  # closed between the check and the call (the daemon's close signal won)
        except Exception:  # TimeoutError included: a bus that never answers
            log.warning("could not withdraw notification %s", notification_id, exc_info=True)

    @staticmethod
    async def _close_by_platform_id(notifier: Any, platform_id: int) -> None:
        interface = getattr(getattr(notifier, "_backend", None), "interface", None)
        if interface is None:
            return
        try:
            await interface.call_close_notification(platform_id)
        except Exception as exc:  # noqa: BLE001 -- the spec's answer for a notification already closed
            log.debug("CloseNotification %s: %s", platform_id, type(exc).__name__)

    def withdraw_asking_now(self, timeout_s: float = 2.0) -> int:
        """Close every notification with buttons this object sent, blocking; for the app's quit.

        Why: once this process ends, nothing listens to those buttons any more (the daemon
        sends a button press to the process that sent the notification, and a later
        Relavium is another process), so a button left on screen would do nothing,
        silently.  Runs on a fresh D-Bus connection in a worker thread, because the quit
        path has no event loop left to run the notifier's; bounded by ``timeout_s``.
        Notifications without buttons (a run finished, say) stay: they only inform.
        Returns how many were asked to close (0 when the bus or daemon did not answer in
        time); never raises.
        """
        asking = [i for i, s in self._sent.items() if s.has_buttons]
        if not asking:
            return 0
        identity = self._identity
        asks = [open_asks.OpenAsk(identity, self._sent.pop(i).platform_id) for i in asking]
        self._save_open_asks()
        address = self._bus_address
        closed: list[int] = []
        worker = threading.Thread(
            target=lambda: closed.append(
                asyncio.run(open_asks.close_on_new_connection(address, asks, timeout_s))
            ),
            name="relavium-withdraw-notifications",
            daemon=True,
        )
        worker.start()
        worker.join(timeout_s + 0.5)
        return closed[0] if closed else 0
