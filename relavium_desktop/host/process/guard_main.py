"""The orphan watcher: a tiny process that outlives its parent just long enough to end its children.

Started (once per Relavium process, on the first spawn) by
:mod:`relavium_desktop.host.process.guard` as ``python -I -S guard_main.py
TOKEN``; it uses the standard library only, so it starts in milliseconds and
never imports the application.

It reads its stdin, a pipe whose only writer is the parent.  The parent
writes ``+PGID`` when a child's process group starts and ``-PGID`` when it
is over.  When the pipe reaches end of file the parent is gone -- exited,
crashed or killed with SIGKILL, which nothing inside the parent can catch --
and the watcher SIGKILLs:

* every process group still registered, and
* every process whose environment carries ``RELAVIUM_CHILD_GUARD=TOKEN``:
  every child gets that variable, and its descendants inherit it, including
  one that called ``setsid`` to leave the group and was re-parented to PID 1.

It repeats until a sweep finds nothing (a child may fork while being
killed), then exits.  A descendant that scrubbed its environment *and* left
the group is out of reach: this is process hygiene, not a sandbox.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

ENV_VAR = "RELAVIUM_CHILD_GUARD"
MAX_SWEEPS = 50
SWEEP_PAUSE_S = 0.05


def _marked(token: str) -> list[int]:
    """Pids whose environment carries the token (other users' processes are unreadable and skipped)."""
    needle = f"{ENV_VAR}={token}".encode()
    found: list[int] = []
    own = os.getpid()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit() or int(entry) == own:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                environ = fh.read()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    """Running and not a zombie (a killed child awaiting its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] not in (b"Z", b"X")


def sweep(token: str, groups: set[int]) -> None:
    for _ in range(MAX_SWEEPS):
        hit = False
        for pgid in list(groups):
            try:
                os.killpg(pgid, signal.SIGKILL)
                hit = True
            except ProcessLookupError:
                groups.discard(pgid)
            except PermissionError:
                groups.discard(pgid)
        for pid in _marked(token):
            if not _alive(pid):
                continue
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                hit = True
        if not hit:
            return
        time.sleep(SWEEP_PAUSE_S)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[1]:
        return 2
    token = argv[1]
    # A terminal's ^C or hang-up is for the parent; the watcher must outlive it.
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    groups: set[int] = set()
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            break
        text = line.strip()
        if text[:1] in (b"+", b"-") and text[1:].isdigit():
            pgid = int(text[1:])
            if text[:1] == b"+":
                groups.add(pgid)
            else:
                groups.discard(pgid)
    sweep(token, groups)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
