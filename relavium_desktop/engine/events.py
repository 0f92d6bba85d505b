"""The run-event envelope: one vocabulary for chat, workflows, CLI and UI.

Producers emit ``{type, ...payload}``; the bus stamps the envelope
(``runId`` or ``sessionId``, ``timestamp``, a gap-free ``sequenceNumber``)
and fans out to subscribers.  The clock is injected so the engine stays pure
and tests stay deterministic.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any

JsonDict = dict[str, Any]
Subscriber = Callable[[JsonDict], None]

TERMINAL_RUN_EVENTS = frozenset({"run:completed", "run:failed", "run:cancelled"})


@lru_cache(maxsize=8)
def _second_prefix(whole: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))


def iso_timestamp(epoch_seconds: float) -> str:
    """RFC 3339 UTC with milliseconds, e.g. ``2026-11-29T18:54:08.123Z``."""
    whole = int(epoch_seconds)
    millis = round((epoch_seconds - whole) * 1000)
    if millis == 1000:
        whole, millis = whole + 1, 0
    return f"{_second_prefix(whole)}.{millis:03d}Z"


class EventBus:
    def __init__(
        self,
        *,
        clock: Callable[[], float],
        run_id: str | None = None,
        session_id: str | None = None,
        start_sequence: int = 0,
    ) -> None:
        if (run_id is None) == (session_id is None):
            raise ValueError("an event stream belongs to exactly one run or one session")
        self._clock = clock
        self._scope: JsonDict = {"runId": run_id} if run_id else {"sessionId": session_id}
        # A resumed run continues its gap-free sequence where the checkpoint left it.
        self._seq = start_sequence
        self._subscribers: list[Subscriber] = []
        self.history: list[JsonDict] = []

    def subscribe(self, fn: Subscriber) -> None:
        self._subscribers.append(fn)

    def emit(self, event: JsonDict) -> JsonDict:
        stamped: JsonDict = {
            "type": event["type"],
            **self._scope,
            "timestamp": iso_timestamp(self._clock()),
            "sequenceNumber": self._seq,
        }
        stamped.update({k: v for k, v in event.items() if k != "type"})
        self._seq += 1
        self.history.append(stamped)
        for fn in list(self._subscribers):
            fn(stamped)
        return stamped
