"""Publication temporaries and the sweep that reclaims them after a crash.

A producer writes ``media-v1.<PID>.<UUID4>.tmp`` in the store root before
renaming it into place, so a crash (SIGKILL, power loss) can leave one
behind.  The sweep deletes one only when it is old enough AND its producer
PID is proven gone: a live PID, a PID we may not signal, a timestamp from
the future or a name we do not recognise are all kept, each with its fixed
reason word, because deleting a live writer's file would corrupt its
publication and nothing forces a hurry.
"""

from __future__ import annotations

import os
import re
import stat
import time
import uuid
from dataclasses import dataclass, field

TEMP_PREFIX = "media-v1."
_TEMP_RE = re.compile(
    r"media-v1\.([1-9][0-9]{0,9})\."
    r"([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.tmp"
)
DEFAULT_MIN_AGE_S = 24 * 3600
_CLOCK_SKEW_S = 60.0  # an mtime this far ahead of now is a future timestamp, not jitter

REASONS = ("too_young", "future_timestamp", "owner_live", "owner_unknown", "malformed", "unsafe_entry", "io")


def new_temp_name() -> str:
    return f"{TEMP_PREFIX}{os.getpid()}.{uuid.uuid4()}.tmp"


def is_temp_candidate(name: str) -> bool:
    """Anything under the ``media-`` prefix is the store's business (retained if unrecognised)."""
    return name.startswith("media-")


def temp_pid(name: str) -> int | None:
    match = _TEMP_RE.fullmatch(name)
    return int(match.group(1)) if match else None


@dataclass
class SweepReport:
    removed: list[str] = field(default_factory=list)
    retained: list[str] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)  # retained name -> reason word

    def keep(self, name: str, reason: str) -> None:
        self.retained.append(name)
        self.reasons[name] = reason

    def to_json(self) -> dict[str, object]:
        return {"removed": sorted(self.removed), "retained": sorted(self.retained), "reasons": self.reasons}


def producer_state(pid: int) -> str:
    """``dead`` only when the kernel says no such process; anything else keeps the temp."""
    if pid == os.getpid():
        return "owner_live"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return "dead"
    except PermissionError:
        return "owner_unknown"  # exists under another user: alive for all we know
    except OSError:
        return "owner_unknown"
    return "owner_live"


def sweep_root(root_fd: int, *, now: float | None, min_age_s: float) -> SweepReport:
    """Sweep the temporaries directly in the root whose descriptor is ``root_fd``."""
    report = SweepReport()
    now = time.time() if now is None else now
    for name in sorted(os.listdir(root_fd)):
        if is_temp_candidate(name):
            _sweep_one(root_fd, name, now, min_age_s, report)
    return report


def _sweep_one(root_fd: int, name: str, now: float, min_age_s: float, report: SweepReport) -> None:
    pid = temp_pid(name)
    if pid is None:
        report.keep(name, "malformed")
        return
    try:
        before = os.stat(name, dir_fd=root_fd, follow_symlinks=False)
    except FileNotFoundError:
        return  # its producer finished (renamed it) while we looked
    except OSError:
        report.keep(name, "io")
        return
    if not stat.S_ISREG(before.st_mode) or before.st_nlink != 1:
        report.keep(name, "unsafe_entry")
        return
    if before.st_mtime > now + _CLOCK_SKEW_S:
        report.keep(name, "future_timestamp")
        return
    if now - before.st_mtime < min_age_s:
        report.keep(name, "too_young")
        return
    state = producer_state(pid)
    if state != "dead":
        report.keep(name, state)
        return
    try:
        # The same file we judged, not one swapped in since: else keep it.
        again = os.stat(name, dir_fd=root_fd, follow_symlinks=False)
        if (again.st_dev, again.st_ino, again.st_nlink) != (before.st_dev, before.st_ino, 1):
            report.keep(name, "unsafe_entry")
            return
        os.unlink(name, dir_fd=root_fd)
    except FileNotFoundError:
        return
    except OSError:
        report.keep(name, "io")
        return
    report.removed.append(name)
