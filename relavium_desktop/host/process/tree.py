"""Start a child in its own process group and kill the whole tree.

POSIX: the child starts a new session (``setsid``), so it leads a fresh
process group with no controlling terminal; one ``killpg`` reaches everything
it forked that stayed in the group.  Descendants that moved to a group of
their own (``setsid``, job-controlling shells) are found by walking the tree
with psutil *before* the leader dies, while they are still its descendants.
A daemon that double-forks and re-parents itself before we look is out of
reach: this is process hygiene, not a sandbox.

Windows: ``CREATE_NEW_PROCESS_GROUP`` plus psutil's tree walk.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from typing import Any

import psutil


def group_kwargs() -> dict[str, Any]:
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        found: list[psutil.Process] = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []
    return found


def kill_tree(pid: int) -> None:
    """SIGKILL the child, its process group and every descendant we can see."""
    descendants = _descendants(pid)
    if sys.platform != "win32":
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(psutil.Error):
        psutil.Process(pid).kill()
    for proc in descendants:
        # psutil checks the create time, so a recycled pid is never hit.
        with contextlib.suppress(psutil.Error):
            proc.kill()


def kill_leftovers(pid: int) -> None:
    """After the leader exited: end what it left running in its group.

    A background job that still holds the output pipe would otherwise keep the
    call open until the timeout, and would outlive the call it belonged to.
    """
    if sys.platform != "win32":
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
