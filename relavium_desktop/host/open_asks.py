"""Notifications with buttons a Relavium process left on screen, and closing them from another connection.

Why: the notification daemon sends a button press only to the process that sent
the notification (dunst addresses ActionInvoked to the sender's connection), so
once that process ends -- a quit, a crash, a kill -- its buttons do nothing,
silently, and a later Relavium never hears of the press.  The only honest fix
is to take those notifications off the screen: at a normal quit
(``DesktopOs.withdraw_asking_now``) and, for a crash, at the next start from a
small file the earlier process kept (``DesktopOs.withdraw_left_over``).

A notification id is only meaningful to the daemon instance that issued it
(dunst numbers from 1 again after a restart), so each recorded id carries the
bus's id and the daemon's unique bus name; an id is closed only when both still
match, so a later login's or a restarted daemon's notification of another
program with the same number is never touched.  The file holds ids and those
two names only: no title, no body.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

NOTIFICATIONS_NAME = "org.freedesktop.Notifications"
NOTIFICATIONS_PATH = "/org/freedesktop/Notifications"
DBUS_NAME = "org.freedesktop.DBus"
DBUS_PATH = "/org/freedesktop/DBus"


@dataclass(frozen=True, slots=True)
class DaemonIdentity:
    """Which daemon issued an id: the session bus (its GetId) and the daemon's unique name on it."""

    bus_id: str
    daemon: str


@dataclass(frozen=True, slots=True)
class OpenAsk:
    """One notification with buttons still (as far as its sender knows) on screen.

    ``identity`` None: the sender could not ask who the daemon is; such an ask is only
    closed by the process that sent it (never saved for a later one).
    """

    identity: DaemonIdentity | None
    platform_id: int


def save(path: Path, asks: list[OpenAsk]) -> None:
    """Record this process's open asks (replacing the file; removing it when there are none)."""
    try:
        if not asks:
            path.unlink(missing_ok=True)
            return
        rows = [
            {"bus": a.identity.bus_id, "daemon": a.identity.daemon, "id": a.platform_id}
            for a in asks
            if a.identity is not None
        ]
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(rows), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:  # a read-only home: the quit path still withdraws; only a crash leaves them
        log.warning("could not record open notifications: %s", type(exc).__name__)


def take(path: Path) -> list[OpenAsk]:
    """Read and remove what an earlier process recorded; a missing or damaged file is nothing left over."""
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raw = []
    path.unlink(missing_ok=True)
    asks: list[OpenAsk] = []
    for row in raw if isinstance(raw, list) else []:
        if (
            isinstance(row, dict)
            and isinstance(row.get("bus"), str)
            and isinstance(row.get("daemon"), str)
            and isinstance(row.get("id"), int)
        ):
            asks.append(OpenAsk(DaemonIdentity(row["bus"], row["daemon"]), row["id"]))
    return asks


async def daemon_identity(bus: Any) -> DaemonIdentity:
    """The identity of the daemon now serving notifications on ``bus`` (a connected dbus-fast MessageBus)."""
    from dbus_fast import Message, MessageType

    bus_id = await bus.call(
        Message(destination=DBUS_NAME, path=DBUS_PATH, interface=DBUS_NAME, member="GetId")
    )
    owner = await bus.call(
        Message(
            destination=DBUS_NAME,
            path=DBUS_PATH,
            interface=DBUS_NAME,
            member="GetNameOwner",
            signature="s",
            body=[NOTIFICATIONS_NAME],
        )
    )
    if MessageType.ERROR in (bus_id.message_type, owner.message_type):
        raise LookupError("no notification daemon owns its name on this bus")
    return DaemonIdentity(str(bus_id.body[0]), str(owner.body[0]))


async def close_on_new_connection(address: str | None, asks: list[OpenAsk], timeout_s: float) -> int:
    """CloseNotification for each ask the daemon now on the bus issued; returns how many were asked to close.

    A connection of our own: the quit path has no event loop left to run the
    notifier's, and a new process has none of the earlier one's.  Any client
    may close a notification by id (the spec ties no id to a sender).  Never raises.
    """
    from dbus_fast import Message
    from dbus_fast.aio import MessageBus

    if not asks:
        return 0
    try:
        bus = await asyncio.wait_for(MessageBus(bus_address=address).connect(), timeout_s)
    except Exception:  # noqa: BLE001 -- no bus any more: nothing is on a screen we can reach
        log.warning("could not withdraw notifications: the session bus is unreachable")
        return 0
    closed = 0
    try:
        now = await asyncio.wait_for(daemon_identity(bus), timeout_s)
        for ask in asks:
            if ask.identity is not None and ask.identity != now:
                continue  # another daemon's numbering: that id may be someone else's notification
            reply = bus.call(
                Message(
                    destination=NOTIFICATIONS_NAME,
                    path=NOTIFICATIONS_PATH,
                    interface=NOTIFICATIONS_NAME,
                    member="CloseNotification",
                    signature="u",
                    body=[ask.platform_id],
                )
            )
            await asyncio.wait_for(reply, timeout_s)
            closed += 1
    except Exception:  # noqa: BLE001 -- no daemon, or one that does not answer: leave the rest
        log.warning("could not withdraw notifications: the notification service did not answer")
    finally:
        bus.disconnect()
    return closed
