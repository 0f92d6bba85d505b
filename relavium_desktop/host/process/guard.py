"""No orphans: a child of Relavium dies with the Relavium process that started it, even on SIGKILL.

Two mechanisms, because neither covers everything alone:

* **Parent-death signal** (Linux ``PR_SET_PDEATHSIG``): each direct child
  asks the kernel for SIGKILL when its parent goes.  The kernel sends it when
  the *thread* that forked the child ends; children are spawned from the
  event-loop thread, and :func:`~relavium_desktop.host.process.runner.run_process`
  never returns while its child runs, so that thread outlives the child.
  It reaches only the direct child, though.
* **A watcher process** (:mod:`~relavium_desktop.host.process.guard_main`),
  one per Relavium process, started on the first spawn.  It holds the read
  end of a pipe only this process writes; when the pipe closes (this process
  is gone, however it ended) it kills every child process group still
  registered and every process carrying this process's marker in its
  environment -- which catches a grandchild that called ``setsid`` to leave
  the group.

Elsewhere than Linux both are skipped and the group kill on timeout or
cancellation is what remains.
"""

from __future__ import annotations

import ctypes
import os
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from relavium_desktop.host.process.helper_programs import helper_argv

ENV_VAR = "RELAVIUM_CHILD_GUARD"
_PR_SET_PDEATHSIG = 1
_WATCHER = Path(__file__).with_name("guard_main.py")


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl: Callable[..., int] = libc.prctl
    except (OSError, AttributeError):
        return None
    return prctl


_prctl = _load_prctl()


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking for SIGKILL when the spawning thread's process ends (None if unsupported).

    Resolved in the parent, so the forked child only makes one libc call.
    If the parent already died between fork and the call, the child exits
    at once rather than run unwatched.
    """
    prctl = _prctl
    if prctl is None:
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(137)

    return preexec


class ChildGuard:
    """This process's watcher: started once, told about each child group, ends them if this process dies."""

    def __init__(self) -> None:
        self.token = secrets.token_hex(16)
        self._lock = threading.Lock()
        self._watcher: subprocess.Popen[bytes] | None = None
        self._failed = False

    def env(self) -> dict[str, str]:
        """The marker every child carries (its descendants inherit it)."""
        return {ENV_VAR: self.token}

    def _ensure(self) -> subprocess.Popen[bytes] | None:
        if self._failed or not sys.platform.startswith("linux"):
            return None
        if self._watcher is not None and self._watcher.poll() is None:
            return self._watcher
        env = {k: v for k, v in os.environ.items() if k != ENV_VAR}
        try:
            self._watcher = subprocess.Popen(
                helper_argv("guard-watcher", _WATCHER, self.token),
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                close_fds=True,
                start_new_session=True,
                env=env,
            )
        except OSError:
            self._failed = True  # the parent-death signal still covers direct children
            return None
        return self._watcher

    def _send(self, line: str) -> None:
        with self._lock:
            watcher = self._ensure()
            if watcher is None or watcher.stdin is None:
                return
            try:
                watcher.stdin.write(line.encode() + b"\n")
                watcher.stdin.flush()
            except (OSError, ValueError):
                self._watcher = None  # it died: the next spawn starts a new one

    def start(self) -> None:
        """Make sure the watcher runs before a child that relies on it is spawned."""
        with self._lock:
            self._ensure()

    def track(self, pgid: int) -> None:
        self._send(f"+{pgid}")

    def untrack(self, pgid: int) -> None:
        self._send(f"-{pgid}")


_guards: dict[int, ChildGuard] = {}
_guards_lock = threading.Lock()


def process_guard() -> ChildGuard:
    """The guard of *this* process (one per process by nature: its watcher waits for this process's end).

    Keyed by pid so a forked child never writes to its parent's watcher.
    """
    pid = os.getpid()
    with _guards_lock:
        guard = _guards.get(pid)
        if guard is None:
            _guards.clear()
            guard = _guards[pid] = ChildGuard()
        return guard
