"""Where a run is recorded: its events, its checkpoints, its final status.

The engine writes through this protocol only (the SQLite implementation is
``relavium_desktop.store.runs``); :class:`MemoryJournal` serves tests, the
bench and a surface that does not persist.  A checkpoint is plain JSON taken
at node boundaries, so a run paused at a human gate can be resumed by a new
process after a restart.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Protocol

from relavium_desktop.engine.jsontypes import JsonDict


@dataclass(frozen=True, slots=True)
class RunInfo:
    run_id: str
    workflow_id: str
    workflow_name: str | None
    source: str  # the workflow file's name as the user gave it (display only)
    started_at: float


class RunJournal(Protocol):
    def run_started(self, info: RunInfo) -> None: ...

    def record(self, event: JsonDict) -> None:
        """One stamped event; may be buffered until the next checkpoint/finish."""
        ...

    def checkpoint(self, run_id: str, state: JsonDict, status: str) -> None:
        """Durably store the state (and every event recorded so far)."""
        ...

    def load_checkpoint(self, run_id: str) -> JsonDict | None: ...

    def claim_interrupted(self, run_id: str) -> JsonDict | None:
        """The last mid-run checkpoint of a run whose process died, now owned by this process.

        None when the run is not interrupted or its last checkpoint is not a
        mid-run one (a run stopped on purpose ended with a final checkpoint).
        Events recorded after that checkpoint are dropped: the resumed run
        numbers on from the checkpoint's ``nextSeq``.
        """
        ...

    def finished(self, run_id: str, status: str, summary: JsonDict) -> None: ...

    def child_started(self, run_id: str, node_id: str, pid: int, started: float) -> None:
        """A step of the run started an OS process (its pid and start time); recorded at once."""
        ...

    def live_children(self, run_id: str) -> list[tuple[str, int]]:
        """(step, pid) of every process an earlier attempt of the run started that still runs."""
        ...


@dataclass
class MemoryJournal:
    events: dict[str, list[JsonDict]] = field(default_factory=dict)
    checkpoints: dict[str, JsonDict] = field(default_factory=dict)
    status: dict[str, str] = field(default_factory=dict)
    summaries: dict[str, JsonDict] = field(default_factory=dict)
    children: dict[str, list[tuple[str, int, float]]] = field(default_factory=dict)

    def run_started(self, info: RunInfo) -> None:
        self.events.setdefault(info.run_id, [])
        self.status[info.run_id] = "running"

    def record(self, event: JsonDict) -> None:
        self.events.setdefault(str(event.get("runId")), []).append(event)

    def checkpoint(self, run_id: str, state: JsonDict, status: str) -> None:
        # Keep a reference (cheap at every node boundary); a resume gets a copy.
        self.checkpoints[run_id] = state
        self.status[run_id] = status

    def load_checkpoint(self, run_id: str) -> JsonDict | None:
        state = self.checkpoints.get(run_id)
        if state is None or self.status.get(run_id) != "paused":
            return None
        return copy.deepcopy(state)

    def claim_interrupted(self, run_id: str) -> JsonDict | None:
        state = self.checkpoints.get(run_id)
        if state is None or self.status.get(run_id) != "interrupted":
            return None
        next_seq = state["nextSeq"]
        self.events[run_id] = [e for e in self.events.get(run_id, []) if e["sequenceNumber"] < next_seq]
        self.status[run_id] = "running"
        return copy.deepcopy(state)

    def finished(self, run_id: str, status: str, summary: JsonDict) -> None:
        self.status[run_id] = status
        self.summaries[run_id] = summary

    def child_started(self, run_id: str, node_id: str, pid: int, started: float) -> None:
        self.children.setdefault(run_id, []).append((node_id, pid, started))

    def live_children(self, run_id: str) -> list[tuple[str, int]]:
        return []  # an in-memory run dies with its process, children included
