"""Run times as a person reads them: local, relative to today, exact on hover.

History used to print UTC timestamps, which made "when did this run?" a sum.
The list shows "Today 14:03", "Yesterday 09:12" or "12 Nov 14:03" (with the
year when it is not this year) in the machine's time zone; the tooltip gives
the full local timestamp with the zone's name and offset, so nothing is lost.
Month and day names are spelled here, not taken from the C locale, so the
text is the same on every machine.
"""

from __future__ import annotations

import time
from datetime import datetime

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS_LONG = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December")


def short_local(epoch: float, now: float | None = None) -> str:
    """'Today 14:03', 'Yesterday 09:12', '12 Nov 14:03', or '12 Nov 2025 14:03' in another year."""
    when = time.localtime(epoch)
    today = time.localtime(time.time() if now is None else now)
    clock = f"{when.tm_hour:02d}:{when.tm_min:02d}"
    # Calendar-day difference in local time (DST-safe: compare dates, not seconds).
    days = (datetime(today.tm_year, today.tm_mon, today.tm_mday)
            - datetime(when.tm_year, when.tm_mon, when.tm_mday)).days
    if days == 0:
        return f"Today {clock}"
    if days == 1:
        return f"Yesterday {clock}"
    day = f"{when.tm_mday} {MONTHS[when.tm_mon - 1]}"
    if when.tm_year != today.tm_year:
        day += f" {when.tm_year}"
    return f"{day} {clock}"


def full_local(epoch: float) -> str:
    """'Tuesday 1 December 2026, 14:03:22 CET (UTC+01:00)': the whole local timestamp."""
    when = time.localtime(epoch)
    offset = when.tm_gmtoff or 0
    sign = "+" if offset >= 0 else "-"
    hours, minutes = divmod(abs(offset) // 60, 60)
    zone = f"{when.tm_zone} " if when.tm_zone else ""
    return (f"{DAYS[when.tm_wday]} {when.tm_mday} {MONTHS_LONG[when.tm_mon - 1]} {when.tm_year}, "
            f"{when.tm_hour:02d}:{when.tm_min:02d}:{when.tm_sec:02d} {zone}(UTC{sign}{hours:02d}:{minutes:02d})")


def clock_local(epoch: float) -> str:
    """'14:03:22' local: a timeline row's time within its run."""
    when = time.localtime(epoch)
    return f"{when.tm_hour:02d}:{when.tm_min:02d}:{when.tm_sec:02d}"


def parse_wire_time(stamp: object) -> float | None:
    """An event's RFC 3339 ``timestamp`` as epoch seconds (None when absent or unreadable)."""
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
