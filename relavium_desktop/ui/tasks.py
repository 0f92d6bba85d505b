"""Fire-and-forget coroutines from Qt slots, without losing them or their errors.

A slot cannot await, so it schedules the coroutine on the qasync loop; the
task is kept referenced until done (asyncio only holds weak references) and
an unexpected exception is logged instead of vanishing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)
_RUNNING: set[asyncio.Task[Any]] = set()


def spawn(coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
    task = asyncio.ensure_future(coro)
    _RUNNING.add(task)
    task.add_done_callback(_finished)
    return task


def _finished(task: asyncio.Task[Any]) -> None:
    _RUNNING.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error("background UI task failed", exc_info=task.exception())
