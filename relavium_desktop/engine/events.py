"""The run-event envelope: one vocabulary for chat, workflows, CLI and UI.

Producers emit ``{type, ...payload}``; the bus stamps the envelope
(``runId`` or ``sessionId``, ``timestamp``, a gap-free ``sequenceNumber``)
and fans out to subscribers.  The clock is injected so the engine stays pure
and tests stay deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

JsonDict = dict[str, Any]
Subscriber = Callable[[JsonDict], None]

TERMINAL_RUN_EVENTS = frozenset({"run:completed", "run:failed", "run:cancelled"})


def iso_timestamp(epoch_seconds: float) -> str:
    return (
        datetime.fromtimestamp(epoch_seconds, tz=UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


class EventBus:
    def __init__(
        self,
        *,
        clock: Callable[[], float],
        run_id: str | None = None,
        session_id: str | None = None,
    ) -> None:
        if (run_id is None) == (session_id is None):
            raise ValueError("an event stream belongs to exactly one run or one session")
        self._clock = clock
        self._scope: JsonDict = {"runId": run_id} if run_id else {"sessionId": session_id}
        self._seq = 0
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
