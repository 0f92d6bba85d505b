"""The window's one list of pending human gates, whoever opened or answered them.

A gate can be answered in four places: the Workflows view, the gate
notification's button, Runs / History, and ``relavium gate approve`` in
another process.  Each of them used to know only its own answers, so after an
answer elsewhere a dialog stayed open, a notification stayed on screen with a
button that did nothing, and the tray kept counting.  The board is the one
place that knows: it folds every run event this window's runners emit
through the one reducer (:mod:`relavium_desktop.engine.workflow.run_state`),
and while any gate is pending it re-reads history.db every ``poll_ms`` (runs
paused or answered by another process show up there, as events).  Whatever
changes, it says so once: ``gate_opened`` / ``gate_answered`` and
``changed``; the dialog, the notifications, the tray and the views follow.

Reading history.db runs in a worker thread (the shared run store is safe to
use from one); the board itself lives on the GUI thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.workflow.run_state import PendingGate, RunState, fold, reduce
from relavium_desktop.ui.qt import QObject, QTimer, Signal
from relavium_desktop.ui.tasks import spawn

if TYPE_CHECKING:
    from relavium_desktop.ui.workflows.runner import WorkflowRunner

log = logging.getLogger(__name__)

POLL_MS = 1_000  # how soon an answer given in another process reaches this window
PAUSED_LIMIT = 500  # paused runs read per poll; more than this waiting at once is not a real desktop


def _gate_ids(state: RunState | None) -> frozenset[str]:
    return frozenset(g.gate_id for g in state.gates) if state is not None else frozenset()


def read_changes(store: Any, known: Mapping[str, RunState]) -> dict[str, RunState]:
    """What history.db says now about paused runs and the runs ``known`` thinks are pending.

    Runs blocking (the caller runs it in a thread).  A paused run whose
    checkpoint lists the same gates as ``known`` is left out (nothing
    changed); any other is folded again from its stored events, so an answer
    given by another process arrives as the same ``human_gate:resumed`` event a
    live run emits.
    """
    out: dict[str, RunState] = {}
    paused = {str(r["id"]): r for r in store.list_runs(status="paused", limit=PAUSED_LIMIT)}
    for run_id, row in paused.items():
        found = store.paused_gates(run_id)
        gate_ids = frozenset(str(g.get("gateId")) for g in found[0]) if found else frozenset()
        if gate_ids and gate_ids == _gate_ids(known.get(run_id)) and known[run_id].paused:
            continue
        state = fold(store.events(run_id), RunState.initial(run_id, str(row.get("workflow_name") or "")))
        out[run_id] = state.with_recorded_status("paused")
    for run_id, state in known.items():
        if run_id in paused or not state.gates:
            continue
        row = store.get_run(run_id)
        if row is None:
            out[run_id] = RunState.initial(run_id, state.workflow_name, status="cancelled")  # deleted
            continue
        if row.get("status") in ("running", "pending"):
            # Being resumed: its events reach the store at the next checkpoint, its answer with them.
            events = store.events(run_id)
            folded = fold(events, RunState.initial(run_id, state.workflow_name))
            if _gate_ids(folded) != _gate_ids(state):
                out[run_id] = folded
            continue
        error = row.get("error")
        folded = fold(store.events(run_id), RunState.initial(run_id, state.workflow_name))
        out[run_id] = folded.with_recorded_status(str(row.get("status")), error if isinstance(error, dict) else None)
    return out


class GateBoard(QObject):
    """Pending gates of every run this window knows, kept current from events and history.db."""

    changed = Signal()  # the set of pending gates changed
    gate_opened = Signal(str, object)  # run id, PendingGate
    gate_answered = Signal(str, str)  # run id, gate id: answered anywhere, or its run ended
    run_changed = Signal(str, object)  # run id, its new RunState (also a finished one, which the board then drops)

    def __init__(self, store: Callable[[], Any], parent: QObject | None = None, *, poll_ms: int = POLL_MS) -> None:
        super().__init__(parent)
        self._store = store
        self.runs: dict[str, RunState] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(poll_ms)
        self._timer.timeout.connect(self.sync)
        self._syncing = False
        self._watched: set[int] = set()

    def set_poll_ms(self, ms: int) -> None:
        """How often history.db is re-read while a gate waits (a slower poll for a battery, a test's pause)."""
        self._timer.setInterval(ms)
        if self._timer.isActive():
            self._timer.start()

    # -- what it knows -----------------------------------------------------------

    def state_of(self, run_id: str) -> RunState | None:
        return self.runs.get(run_id)

    def pending(self) -> list[tuple[str, PendingGate]]:
        return [(run_id, g) for run_id, s in self.runs.items() for g in s.gates]

    @property
    def pending_count(self) -> int:
        return sum(len(s.gates) for s in self.runs.values())

    def is_pending(self, run_id: str, gate_id: str) -> bool:
        state = self.runs.get(run_id)
        return state is not None and state.gate(gate_id) is not None

    # -- what it is told -----------------------------------------------------------

    def watch_runner(self, runner: WorkflowRunner) -> None:
        """Follow every event a runner emits (a run started, resumed or cancelled in this window)."""
        if id(runner) not in self._watched:
            self._watched.add(id(runner))
            runner.run_event.connect(self.feed)

    def feed(self, event: Mapping[str, Any]) -> None:
        run_id = event.get("runId")
        if not isinstance(run_id, str) or not run_id:
            return
        before = self.runs.get(run_id) or RunState.initial(run_id)
        after = reduce(before, event)
        if after is not before:
            self._replace(run_id, after)

    def sync(self) -> None:
        """Re-read history.db in the background (the poll; also callable to look now)."""
        if not self._syncing:
            spawn(self.sync_now())

    async def sync_now(self) -> None:
        if self._syncing:
            return
        self._syncing = True
        try:
            known = dict(self.runs)
            changes = await asyncio.to_thread(lambda: read_changes(self._store(), known))
        except Exception:  # a locked or missing history.db: the next poll tries again
            log.warning("gate board: history.db could not be read", exc_info=True)
            changes = {}
        finally:
            self._syncing = False
        for run_id, state in changes.items():
            current = self.runs.get(run_id)
            if current is not None and current.last_sequence > state.last_sequence:
                continue  # live events overtook the stored ones meanwhile
            self._replace(run_id, state)
        self._poll_while_pending()

    # -- telling ------------------------------------------------------------------

    def _replace(self, run_id: str, state: RunState) -> None:
        before = _gate_ids(self.runs.get(run_id))
        old = self.runs.get(run_id)
        self.runs[run_id] = state
        if state.finished and not state.gates:
            self.runs.pop(run_id, None)  # nothing to answer in a finished run; history.db has the rest
        after = _gate_ids(state)
        for gate_id in sorted(before - after):
            self.gate_answered.emit(run_id, gate_id)
        for gate in state.gates:
            if gate.gate_id not in before:
                self.gate_opened.emit(run_id, gate)
        if state != old:
            self.run_changed.emit(run_id, state)
        if before != after:
            self.changed.emit()
        self._poll_while_pending()

    def _poll_while_pending(self) -> None:
        if self.pending_count and not self._timer.isActive():
            self._timer.start()
        elif not self.pending_count and self._timer.isActive():
            self._timer.stop()

    def start(self) -> None:
        """Look once now (runs left paused by an earlier session or the CLI), then poll while any gate waits."""
        self.sync()
