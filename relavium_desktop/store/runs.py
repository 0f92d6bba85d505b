"""Workflow runs in history.db: the run list, every run event, the latest checkpoint.

Implements the engine's ``RunJournal``.  Events are buffered in memory and
written in one transaction with each checkpoint (the engine checkpoints at
every node boundary) or at the end, so a long run costs one commit per node
rather than one per token; a run paused at a human gate is fully on disk
before the process exits, which is what lets ``relavium run --resume`` pick
it up in a new process.

A run records which process owns it (pid, that process's start time, host):
set when it starts and again at every checkpoint, so a run resumed by a
new process is owned by that process.  A run still ``running`` whose owner
no longer exists -- killed, crashed, power lost, or its pid reused by a
different process (the start time differs) -- is marked ``interrupted`` when
a store opens and whenever runs are listed (:meth:`RunStore.reap_dead_runs`);
its events and last checkpoint are kept.  A run owned by a live process
(the desktop runs workflows in its own process) is left alone.

One store may be shared by the event loop and worker threads: the event
buffer and the connection are only touched under the connection's lock
(shared with every other store on that connection), and every
multi-statement write is one :func:`~relavium_desktop.store.db.write_tx`.
A store made with ``owns_connection=False`` (the process's Application hands
one connection to every store) leaves the connection open when it closes.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.workflow.journal import RunInfo
from relavium_desktop.store.db import connection_lock, history_db_path, migrate, open_db, write_tx

INTERRUPTED = "interrupted"

MIGRATIONS = [
    """
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        workflow_id TEXT NOT NULL,
        workflow_name TEXT,
        source TEXT NOT NULL,
        status TEXT NOT NULL,
        started_at REAL NOT NULL,
        ended_at REAL,
        duration_ms INTEGER,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cost_microcents INTEGER NOT NULL DEFAULT 0,
        error TEXT
    );
    CREATE INDEX runs_by_start ON runs(started_at DESC);
    CREATE INDEX runs_by_source ON runs(source, started_at DESC);
    CREATE TABLE run_events (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    );
    CREATE TABLE run_checkpoints (
        run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        status TEXT NOT NULL,
        state TEXT NOT NULL
    )
    """,
    # 2: the owning process, so a run whose process died is found (and shown
    # as interrupted).  Runs an earlier version left 'running' have no owner
    # to check; that version is no longer running them.
    """
    ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
    ALTER TABLE runs ADD COLUMN owner_started REAL;
    ALTER TABLE runs ADD COLUMN owner_host TEXT;
    UPDATE runs SET status = 'interrupted',
        error = '{"code": "process_ended", "message": "the run was left running by an earlier version of Relavium"}'
        WHERE status = 'running';
    CREATE INDEX runs_by_status ON runs(status)
    """,
    # 3: the OS processes each step started (pid + start time + host), so a
    # resume can refuse to start a step again beside a surviving earlier attempt.
    """
    CREATE TABLE run_children (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        node_id TEXT NOT NULL,
        pid INTEGER NOT NULL,
        started REAL NOT NULL,
        host TEXT NOT NULL
    );
    CREATE INDEX run_children_by_run ON run_children(run_id)
    """,
]

FLUSH_EVERY = 256
# Start times of the same process read twice agree to well under this; a
# recycled pid belongs to a process started later.
START_TOLERANCE_S = 1.0


@dataclass(frozen=True, slots=True)
class ProcessOwner:
    pid: int
    started: float  # the process's start time (epoch seconds), as psutil reports it
    host: str


_this: dict[int, ProcessOwner] = {}


def this_process() -> ProcessOwner:
    """The current process's identity (recomputed after a fork)."""
    pid = os.getpid()
    owner = _this.get(pid)
    if owner is None:
        owner = ProcessOwner(pid, psutil.Process(pid).create_time(), socket.gethostname())
        _this.clear()
        _this[pid] = owner
    return owner


def owner_alive(pid: int, started: float) -> bool:
    """Whether the process that started at ``started`` with ``pid`` still runs.

    A missing pid, a zombie (killed but not yet reaped by its parent) and a
    pid now held by a process with another start time all count as gone.  A
    process we may not inspect counts as alive: a run is never marked
    interrupted on a guess.
    """
    try:
        proc = psutil.Process(pid)
        if abs(proc.create_time() - started) > START_TOLERANCE_S:
            return False
        return bool(proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:  # ZombieProcess included
        return False
    except psutil.Error:
        return True


def _event_rows(events: list[JsonDict]) -> list[tuple[Any, ...]]:
    return [(e["runId"], e["sequenceNumber"], e["type"], json.dumps(e, ensure_ascii=False, default=str))
            for e in events]


def _row(row: sqlite3.Row) -> JsonDict:
    item = dict(row)
    item["error"] = json.loads(item["error"]) if item["error"] else None
    return item


class RunStore:
    """One connection's view of runs; safe to share between the loop and worker threads."""

    def __init__(self, conn: sqlite3.Connection, *, owns_connection: bool = True) -> None:
        self._conn = conn
        self._owns_connection = owns_connection
        self._lock = connection_lock(conn)
        self._buffer: list[JsonDict] = []
        migrate(conn, "runs", MIGRATIONS)
        self.reap_dead_runs()

    @classmethod
    def open(cls, home: Path) -> RunStore:
        return cls(open_db(history_db_path(home)))

    def close(self) -> None:
        """Write the buffered events; close the connection only when this store opened it."""
        with self._lock:
            try:
                self._flush_locked()
            finally:
                if self._owns_connection:
                    self._conn.close()

    # -- RunJournal ---------------------------------------------------------

    def run_started(self, info: RunInfo) -> None:
        owner = this_process()
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO runs(id, workflow_id, workflow_name, source, status, started_at, "
                "owner_pid, owner_started, owner_host) VALUES(?, ?, ?, ?, 'running', ?, ?, ?, ?)",
                (info.run_id, info.workflow_id, info.workflow_name, info.source, info.started_at,
                 owner.pid, owner.started, owner.host),
            )

    def record(self, event: JsonDict) -> None:
        with self._lock:
            self._buffer.append(event)
            if len(self._buffer) >= FLUSH_EVERY:
                self._flush_locked()

    def flush(self) -> None:
        with self._lock:
            self._flush_locked()

    @contextmanager
    def _events_tx(self) -> Iterator[None]:
        """One write transaction that starts by writing the buffered events (lock held).

        If the transaction fails the events go back to the buffer, so a later
        flush can still write them.
        """
        events, self._buffer = self._buffer, []
        try:
            with write_tx(self._conn):
                if events:
                    self._conn.executemany(
                        "INSERT OR REPLACE INTO run_events(run_id, seq, type, event) VALUES(?, ?, ?, ?)",
                        _event_rows(events),
                    )
                yield
        except BaseException:
            self._buffer[:0] = events
            raise

    def _flush_locked(self) -> None:
        if self._buffer:
            with self._events_tx():
                pass

    def checkpoint(self, run_id: str, state: JsonDict, status: str) -> None:
        owner = this_process()
        state_json = json.dumps(state, ensure_ascii=False, default=str)
        with self._lock, self._events_tx():
            self._conn.execute(
                "INSERT INTO run_checkpoints(run_id, status, state) VALUES(?, ?, ?) "
                "ON CONFLICT(run_id) DO UPDATE SET status = excluded.status, state = excluded.state",
                (run_id, status, state_json),
            )
            # The checkpointing process owns the run (a resume moves it to a new process).
            self._conn.execute(
                "UPDATE runs SET status = ?, owner_pid = ?, owner_started = ?, owner_host = ? WHERE id = ?",
                (status, owner.pid, owner.started, owner.host, run_id),
            )

    def claim_paused(self, run_id: str, state: JsonDict) -> bool:
        """Take a paused run for this process (recorded running, owned here); False when it is no longer paused.

        One write transaction that checks and changes the status together, so
        two answers to one gate -- two views, or the window and ``relavium
        gate`` in another process -- cannot both drive the run on: the second
        finds it running and is refused as already answered.
        """
        owner = this_process()
        state_json = json.dumps(state, ensure_ascii=False, default=str)
        with self._lock, self._events_tx():
            claimed = self._conn.execute(
                "UPDATE runs SET status = 'running', owner_pid = ?, owner_started = ?, owner_host = ? "
                "WHERE id = ? AND status = 'paused'",
                (owner.pid, owner.started, owner.host, run_id),
            ).rowcount
            if claimed:
                self._conn.execute(
                    "UPDATE run_checkpoints SET status = 'running', state = ? WHERE run_id = ?", (state_json, run_id)
                )
        return bool(claimed)

    def load_checkpoint(self, run_id: str) -> JsonDict | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT state FROM run_checkpoints WHERE run_id = ? AND status = 'paused'", (run_id,)
            ).fetchone()
        return json.loads(row[0]) if row else None

    # An interrupted run continues only from a mid-run checkpoint: its process died
    # between node boundaries (a run stopped on purpose ends with a final one).
    _CONTINUABLE_SQL = (
        "SELECT c.state FROM runs r JOIN run_checkpoints c ON c.run_id = r.id "
        f"WHERE r.id = ? AND r.status = '{INTERRUPTED}' AND c.status = 'running'"
    )

    def continuable_checkpoint(self, run_id: str) -> JsonDict | None:
        """The mid-run checkpoint an interrupted run would continue from (for its surface); None if it cannot."""
        with self._lock:
            row = self._conn.execute(self._CONTINUABLE_SQL, (run_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def claim_interrupted(self, run_id: str) -> JsonDict | None:
        """See :meth:`RunJournal.claim_interrupted`."""
        owner = this_process()
        with self._lock, write_tx(self._conn):
            row = self._conn.execute(self._CONTINUABLE_SQL, (run_id,)).fetchone()
            if row is None:
                return None
            state: JsonDict = json.loads(row[0])
            self._conn.execute("DELETE FROM run_events WHERE run_id = ? AND seq >= ?", (run_id, state["nextSeq"]))
            self._conn.execute(
                "UPDATE runs SET status = 'running', error = NULL, ended_at = NULL, duration_ms = NULL, "
                "owner_pid = ?, owner_started = ?, owner_host = ? WHERE id = ?",
                (owner.pid, owner.started, owner.host, run_id),
            )
        return state

    def paused_gates(self, run_id: str) -> tuple[list[JsonDict], JsonDict] | None:
        """A paused run's pending gates (node, gate id, kind, message, expiry) and its surface.

        What the Runs/History view needs to answer a gate left open by an
        earlier session or by ``relavium run``; None when the run is not paused.
        """
        state = self.load_checkpoint(run_id)
        if state is None:
            return None
        gates = [{"nodeId": node, **{k: v for k, v in gate.items() if k != "openedAtEpoch"}}
                 for node, gate in state.get("gates", {}).items()]
        return gates, dict(state.get("surface") or {})

    def finished(self, run_id: str, status: str, summary: JsonDict) -> None:
        tokens = summary.get("totalTokensUsed", {})
        error = summary.get("error")
        with self._lock, self._events_tx():
            self._conn.execute(
                "UPDATE runs SET status = ?, ended_at = started_at + ? / 1000.0, duration_ms = ?, "
                "input_tokens = ?, output_tokens = ?, cost_microcents = ?, error = ? WHERE id = ?",
                (status, summary.get("durationMs", 0), summary.get("durationMs", 0), tokens.get("input", 0),
                 tokens.get("output", 0), summary.get("totalCostMicrocents", 0),
                 json.dumps(error) if error else None, run_id),
            )
            # A finished run is never resumed: its step-process records have served their purpose.
            self._conn.execute("DELETE FROM run_children WHERE run_id = ?", (run_id,))

    # -- the processes a run's steps started -------------------------------------

    def child_started(self, run_id: str, node_id: str, pid: int, started: float) -> None:
        """Written at once (not buffered): a kill -9 a moment later must still leave the record."""
        with self._lock, write_tx(self._conn):
            self._conn.execute(
                "INSERT INTO run_children(run_id, node_id, pid, started, host) VALUES(?, ?, ?, ?, ?)",
                (run_id, node_id, pid, started, this_process().host),
            )

    def live_children(self, run_id: str) -> list[tuple[str, int]]:
        """See :meth:`RunJournal.live_children`; records of processes that ended are dropped.

        Only this host's processes can be checked; one recorded on another
        host is assumed gone (its run was reaped there or never will be).
        """
        host = this_process().host
        with self._lock:
            rows = self._conn.execute(
                "SELECT rowid, node_id, pid, started, host FROM run_children WHERE run_id = ?", (run_id,)
            ).fetchall()
            alive = [r for r in rows if r["host"] == host and owner_alive(int(r["pid"]), float(r["started"]))]
            gone = [(r["rowid"],) for r in rows if r not in alive]
            if gone:
                with write_tx(self._conn):
                    self._conn.executemany("DELETE FROM run_children WHERE rowid = ?", gone)
        return [(str(r["node_id"]), int(r["pid"])) for r in alive]

    # -- interrupted runs -------------------------------------------------------

    def mark_interrupted(self, run_id: str, code: str, message: str) -> None:
        """Record that ``run_id`` did not end normally (e.g. ``relavium run``'s stdout was closed).

        The run's events so far are written first; its checkpoint is kept.
        """
        error = json.dumps({"code": code, "message": message})
        with self._lock, self._events_tx():
            self._conn.execute("UPDATE runs SET status = ?, error = ? WHERE id = ?",
                               (INTERRUPTED, error, run_id))

    def reap_dead_runs(self) -> list[str]:
        """Mark every ``running`` run whose owning process is gone as ``interrupted``; their ids.

        Called when a store opens and before runs are listed; cheap (only
        ``running`` rows are checked).  The update is conditional on the
        owner read, so two processes reaping at once cannot clobber a run
        that a new owner has taken over meanwhile.
        """
        with self._lock:
            return self._reap_locked()

    def _reap_locked(self) -> list[str]:
        rows = self._conn.execute(
            "SELECT id, owner_pid, owner_started, owner_host FROM runs "
            "WHERE status = 'running' AND owner_pid IS NOT NULL AND owner_started IS NOT NULL"
        ).fetchall()
        dead = [r for r in rows if not owner_alive(int(r["owner_pid"]), float(r["owner_started"]))]
        if not dead:
            return []
        reaped: list[str] = []
        with write_tx(self._conn):
            for r in dead:
                where = f" on {r['owner_host']}" if r["owner_host"] else ""
                error = {"code": "process_ended",
                         "message": f"the process running it (pid {r['owner_pid']}{where}) ended before the run "
                                    "finished (killed, crashed or shut down)"}
                cur = self._conn.execute(
                    "UPDATE runs SET status = ?, error = ? WHERE id = ? AND status = 'running' "
                    "AND owner_pid = ? AND owner_started = ?",
                    (INTERRUPTED, json.dumps(error), r["id"], r["owner_pid"], r["owner_started"]),
                )
                if cur.rowcount:
                    reaped.append(str(r["id"]))
        return reaped

    # -- reading (CLI, Runs/History view) -------------------------------------

    @staticmethod
    def _where(source: str | None, status: str | None) -> tuple[str, tuple[Any, ...]]:
        clauses, args = [], []
        if source is not None:
            clauses.append("source = ?")
            args.append(source)
        if status is not None:
            clauses.append("status = ?")
            args.append(status)
        return (" WHERE " + " AND ".join(clauses) if clauses else ""), tuple(args)

    def list_runs(self, *, source: str | None = None, status: str | None = None, limit: int = 100,
                  offset: int = 0) -> list[JsonDict]:
        """Newest first; ``offset`` pages on (with :meth:`count_runs` a surface can say "showing N of M")."""
        where, args = self._where(source, status)
        sql = f"SELECT * FROM runs{where} ORDER BY started_at DESC, rowid DESC LIMIT ? OFFSET ?"
        with self._lock:
            self._reap_locked()
            rows = self._conn.execute(sql, (*args, limit, offset)).fetchall()
        return [_row(r) for r in rows]

    def count_runs(self, *, source: str | None = None, status: str | None = None) -> int:
        where, args = self._where(source, status)
        with self._lock:
            row = self._conn.execute(f"SELECT COUNT(*) FROM runs{where}", args).fetchone()
        return int(row[0])

    def get_run(self, run_id: str) -> JsonDict | None:
        with self._lock:
            self._reap_locked()
            row = self._conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        return _row(row) if row is not None else None

    def events(self, run_id: str) -> list[JsonDict]:
        with self._lock:
            self._flush_locked()
            rows = self._conn.execute(
                "SELECT event FROM run_events WHERE run_id = ? ORDER BY seq", (run_id,)
            ).fetchall()
        return [json.loads(r[0]) for r in rows]
