"""Who wants to know when a tool starts an OS process: the workflow step it belongs to.

The workflow run sets :data:`SPAWN_OBSERVER` in the context of each step's
task; the host's process runner calls it with the child's pid and start time
right after the spawn.  The run journal keeps that record, so a resumed run
can refuse to start a step again while an earlier attempt's process is
still alive.  A context variable (not an argument threaded through every
tool) because the step is ambient: any tool the step calls, however deep,
spawns on its behalf.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

# (pid, the process's start time in epoch seconds) -> None; never raises into the spawn.
SpawnObserver = Callable[[int, float], None]

SPAWN_OBSERVER: ContextVar[SpawnObserver | None] = ContextVar("relavium_spawn_observer", default=None)
