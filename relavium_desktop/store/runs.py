"""Workflow runs in history.db: the run list, every run event, the latest checkpoint.

Implements the engine's ``RunJournal``.  Events are buffered in memory and
written in one transaction with each checkpoint (the engine checkpoints at
every node boundary) or at the end, so a long run costs one commit per node
rather than one per token; a run paused at a human gate is fully on disk
before the process exits, which is what lets ``relavium run --resume`` pick
it up in a new process.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from relavium_desktop.engine.workflow.journal import RunInfo
from relavium_desktop.store.db import history_db_path, migrate, open_db

JsonDict = dict[str, Any]

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
]

FLUSH_EVERY = 256


class RunStore:
    """One connection's view of runs; safe to share between the loop and worker threads."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self._buffer: list[JsonDict] = []
        migrate(conn, "runs", MIGRATIONS)

    @classmethod
    def open(cls, home: Path) -> RunStore:
        return cls(open_db(history_db_path(home)))

    def close(self) -> None:
        self.flush()
        self._conn.close()

    # -- RunJournal ---------------------------------------------------------

    def run_started(self, info: RunInfo) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO runs(id, workflow_id, workflow_name, source, status, started_at) "
                "VALUES(?, ?, ?, ?, 'running', ?)",
                (info.run_id, info.workflow_id, info.workflow_name, info.source, info.started_at),
            )

    def record(self, event: JsonDict) -> None:
        self._buffer.append(event)
        if len(self._buffer) >= FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if not self._buffer:
            return
        rows = [(e["runId"], e["sequenceNumber"], e["type"], json.dumps(e, ensure_ascii=False, default=str))
                for e in self._buffer]
        self._buffer.clear()
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            self._conn.executemany(
                "INSERT OR REPLACE INTO run_events(run_id, seq, type, event) VALUES(?, ?, ?, ?)", rows
            )
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise

    def checkpoint(self, run_id: str, state: JsonDict, status: str) -> None:
        with self._lock:
            rows = [(e["runId"], e["sequenceNumber"], e["type"], json.dumps(e, ensure_ascii=False, default=str))
                    for e in self._buffer]
            self._buffer.clear()
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany(
                    "INSERT OR REPLACE INTO run_events(run_id, seq, type, event) VALUES(?, ?, ?, ?)", rows
                )
                self._conn.execute(
                    "INSERT INTO run_checkpoints(run_id, status, state) VALUES(?, ?, ?) "
                    "ON CONFLICT(run_id) DO UPDATE SET status = excluded.status, state = excluded.state",
                    (run_id, status, json.dumps(state, ensure_ascii=False, default=str)),
                )
                self._conn.execute("UPDATE runs SET status = ? WHERE id = ?", (status, run_id))
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def load_checkpoint(self, run_id: str) -> JsonDict | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT state FROM run_checkpoints WHERE run_id = ? AND status = 'paused'", (run_id,)
            ).fetchone()
        return json.loads(row[0]) if row else None

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
        with self._lock:
            self._flush_locked()
            self._conn.execute(
                "UPDATE runs SET status = ?, ended_at = started_at + ? / 1000.0, duration_ms = ?, "
                "input_tokens = ?, output_tokens = ?, cost_microcents = ?, error = ? WHERE id = ?",
                (status, summary.get("durationMs", 0), summary.get("durationMs", 0), tokens.get("input", 0),
                 tokens.get("output", 0), summary.get("totalCostMicrocents", 0),
                 json.dumps(error) if error else None, run_id),
            )

    # -- reading (CLI, Runs/History view) -------------------------------------

    def list_runs(self, *, source: str | None = None, limit: int = 100) -> list[JsonDict]:
        sql = "SELECT * FROM runs"
        args: tuple[Any, ...] = ()
        if source is not None:
            sql += " WHERE source = ?"
            args = (source,)
        sql += " ORDER BY started_at DESC LIMIT ?"
        with self._lock:
            rows = self._conn.execute(sql, (*args, limit)).fetchall()
        out = []
        for r in rows:
            item = dict(r)
            item["error"] = json.loads(item["error"]) if item["error"] else None
            out.append(item)
        return out

    def get_run(self, run_id: str) -> JsonDict | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            return None
        item = dict(row)
        item["error"] = json.loads(item["error"]) if item["error"] else None
        return item

    def events(self, run_id: str) -> list[JsonDict]:
        self.flush()
        with self._lock:
            rows = self._conn.execute(
                "SELECT event FROM run_events WHERE run_id = ? ORDER BY seq", (run_id,)
            ).fetchall()
        return [json.loads(r[0]) for r in rows]
