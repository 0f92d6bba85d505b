"""The ``checkpoints`` table: one row per kept file write, so the write can be taken back.

The bytes live in the media store; a row names them by handle
(``before_handle``, a ``media://sha256-…`` string), which is what the media
store's gc looks for in history.db: a blob stays while a row refers to it and
is reclaimed once the row is gone.  A row belongs to a chat (``scope`` chat,
the session id), a workflow run, or one ``relavium tool call``; it is removed
with its chat (a trigger on ``chat_sessions`` where that table exists, and
:meth:`CheckpointStore.prune` for a chat or run deleted otherwise) and by the
retention bound (age, then total kept bytes, oldest first).

The store only stores: the host reads and writes files, the application
decides what a restore does.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from relavium_desktop.store.db import connection_lock, history_db_path, migrate, open_db, write_tx

MIGRATIONS = [
    """
    CREATE TABLE checkpoints (
        id TEXT PRIMARY KEY,
        scope TEXT NOT NULL CHECK (scope IN ('chat', 'run', 'tool')),
        scope_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('write', 'undo')),
        message_index INTEGER,
        node_id TEXT,
        tool_call_id TEXT,
        path TEXT NOT NULL,
        project TEXT,
        before_sha256 TEXT,
        before_handle TEXT,
        after_sha256 TEXT,
        bytes INTEGER NOT NULL,
        lines_added INTEGER NOT NULL,
        lines_removed INTEGER NOT NULL,
        undoes TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL
    );
    CREATE INDEX checkpoints_by_scope ON checkpoints (scope, scope_id, created_at);
    CREATE INDEX checkpoints_by_time ON checkpoints (created_at);
    CREATE INDEX checkpoints_by_call ON checkpoints (tool_call_id)
    """,
]

_CHAT_TRIGGER = """
    CREATE TRIGGER IF NOT EXISTS checkpoints_leave_with_chat AFTER DELETE ON chat_sessions
    BEGIN
        DELETE FROM checkpoints WHERE scope = 'chat' AND scope_id = OLD.id;
    END
"""
_RUN_TRIGGER = """
    CREATE TRIGGER IF NOT EXISTS checkpoints_leave_with_run AFTER DELETE ON runs
    BEGIN
        DELETE FROM checkpoints WHERE scope = 'run' AND scope_id = OLD.id;
    END
"""

_ORPHAN_GRACE_S = 3600.0

_COLUMNS = (
    "id, scope, scope_id, kind, message_index, node_id, tool_call_id, path, project, before_sha256, "
    "before_handle, after_sha256, bytes, lines_added, lines_removed, undoes, created_at"
)


@dataclass(frozen=True, slots=True)
class CheckpointRow:
    id: str
    scope: str
    scope_id: str
    kind: str  # "write" | "undo"
    message_index: int | None
    node_id: str | None
    tool_call_id: str | None
    path: str
    project: str | None
    before_sha256: str | None  # None: the file did not exist
    before_handle: str | None  # the kept bytes (media://sha256-…); None when not kept
    after_sha256: str | None  # None: the change left no file
    bytes: int
    lines_added: int
    lines_removed: int
    undoes: tuple[str, ...]
    created_at: float

    @classmethod
    def of(cls, row: sqlite3.Row) -> CheckpointRow:
        undoes = str(row["undoes"] or "")
        return cls(
            id=row["id"],
            scope=row["scope"],
            scope_id=row["scope_id"],
            kind=row["kind"],
            message_index=row["message_index"],
            node_id=row["node_id"],
            tool_call_id=row["tool_call_id"],
            path=row["path"],
            project=row["project"],
            before_sha256=row["before_sha256"],
            before_handle=row["before_handle"],
            after_sha256=row["after_sha256"],
            bytes=int(row["bytes"]),
            lines_added=int(row["lines_added"]),
            lines_removed=int(row["lines_removed"]),
            undoes=tuple(u for u in undoes.split(",") if u),
            created_at=float(row["created_at"]),
        )


class CheckpointStore:
    """The checkpoint rows in history.db (shares the process's connection and its lock)."""

    def __init__(self, conn: sqlite3.Connection, *, owns_connection: bool = True) -> None:
        self._conn = conn
        self._owns_connection = owns_connection
        self._lock = connection_lock(conn)
        migrate(conn, "checkpoints", MIGRATIONS)
        self._link_owners()

    @classmethod
    def open(cls, home: Path, *, durable_commits: bool = True) -> CheckpointStore:
        """A store over its own connection; ``durable_commits=False``: no fsync per commit (WAL, NORMAL)."""
        conn = open_db(history_db_path(home))
        if not durable_commits:
            conn.execute("PRAGMA synchronous=NORMAL")
        return cls(conn)

    def _tables(self) -> set[str]:
        rows = self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        return {str(r[0]) for r in rows}

    def _link_owners(self) -> None:
        """Rows leave with their chat or run: a trigger on each owner table that exists by now."""
        with self._lock:
            tables = self._tables()
            if "chat_sessions" in tables:
                self._conn.execute(_CHAT_TRIGGER)
            if "runs" in tables:
                self._conn.execute(_RUN_TRIGGER)

    def close(self) -> None:
        if self._owns_connection:
            with self._lock:
                self._conn.close()

    # -- writing ------------------------------------------------------------

    def add(self, row: CheckpointRow) -> CheckpointRow:
        """Store ``row``; a chat write without a message index gets the newest stored message's seq."""
        with self._lock, write_tx(self._conn):
            message_index = row.message_index
            if message_index is None and row.scope == "chat" and row.kind == "write" and self._has_messages():
                found = self._conn.execute(
                    "SELECT MAX(seq) FROM chat_messages WHERE session_id = ?", (row.scope_id,)
                ).fetchone()
                message_index = None if found is None or found[0] is None else int(found[0])
            self._conn.execute(
                f"INSERT INTO checkpoints ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row.id,
                    row.scope,
                    row.scope_id,
                    row.kind,
                    message_index,
                    row.node_id,
                    row.tool_call_id,
                    row.path,
                    row.project,
                    row.before_sha256,
                    row.before_handle,
                    row.after_sha256,
                    row.bytes,
                    row.lines_added,
                    row.lines_removed,
                    ",".join(row.undoes),
                    row.created_at,
                ),
            )
        return row if message_index == row.message_index else _with_index(row, message_index)

    def _has_messages(self) -> bool:
        found = self._conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chat_messages'"
        ).fetchone()
        return found is not None

    def delete(self, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        with self._lock, write_tx(self._conn):
            marks = ",".join("?" for _ in ids)
            cur = self._conn.execute(f"DELETE FROM checkpoints WHERE id IN ({marks})", tuple(ids))
        return cur.rowcount

    def prune(self, *, max_age_s: float, max_bytes: int, now: float) -> list[str]:
        """Remove rows past retention: older than ``max_age_s``, of a chat that is gone, then the
        oldest until the kept bytes fit ``max_bytes``.  The ids removed, oldest first.

        A run's rows leave with its ``runs`` row (the trigger); runs that have
        no row there (``relavium agent``, ``relavium tool call``) keep theirs
        until age or size removes them.
        """
        removed: list[str] = []
        with self._lock, write_tx(self._conn):
            doomed = [
                r[0]
                for r in self._conn.execute(
                    "SELECT id FROM checkpoints WHERE created_at < ? ORDER BY created_at, rowid",
                    (now - max_age_s,),
                )
            ]
            if "chat_sessions" in self._tables():
                # A chat deleted where the trigger did not exist yet.  Only rows older than a grace
                # period: a chat's first write may race the commit of its session row elsewhere.
                doomed += [
                    r[0]
                    for r in self._conn.execute(
                        "SELECT id FROM checkpoints WHERE scope = 'chat' AND created_at < ? "
                        "AND scope_id NOT IN (SELECT id FROM chat_sessions)",
                        (now - _ORPHAN_GRACE_S,),
                    )
                ]
            for checkpoint_id in dict.fromkeys(doomed):
                self._conn.execute("DELETE FROM checkpoints WHERE id = ?", (checkpoint_id,))
                removed.append(checkpoint_id)
            total = int(self._conn.execute("SELECT COALESCE(SUM(bytes), 0) FROM checkpoints").fetchone()[0])
            if total > max_bytes:
                for row in self._conn.execute(
                    "SELECT id, bytes FROM checkpoints ORDER BY created_at, rowid"
                ).fetchall():
                    if total <= max_bytes:
                        break
                    self._conn.execute("DELETE FROM checkpoints WHERE id = ?", (row[0],))
                    total -= int(row[1])
                    removed.append(str(row[0]))
        return removed

    # -- reading ------------------------------------------------------------

    def get(self, checkpoint_id: str) -> CheckpointRow | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_COLUMNS} FROM checkpoints WHERE id = ?", (checkpoint_id,)
            ).fetchone()
        return CheckpointRow.of(row) if row is not None else None

    def find(
        self,
        *,
        scope: str | None = None,
        scope_id: str | None = None,
        since_message: int | None = None,
        tool_call_id: str | None = None,
        kinds: Sequence[str] = ("write",),
    ) -> list[CheckpointRow]:
        """Rows matching every filter given, oldest first."""
        where = [f"kind IN ({','.join('?' for _ in kinds)})"]
        params: list[object] = list(kinds)
        if scope is not None:
            where.append("scope = ?")
            params.append(scope)
        if scope_id is not None:
            where.append("scope_id = ?")
            params.append(scope_id)
        if since_message is not None:
            where.append("message_index >= ?")
            params.append(since_message)
        if tool_call_id is not None:
            where.append("tool_call_id = ?")
            params.append(tool_call_id)
        sql = f"SELECT {_COLUMNS} FROM checkpoints WHERE {' AND '.join(where)} ORDER BY created_at, rowid"
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        return [CheckpointRow.of(r) for r in rows]

    def later_with_before(self, path: str, sha256: str, after: float) -> CheckpointRow | None:
        """A later row of ``path`` whose kept before-content is ``sha256`` (to show an older write's result)."""
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_COLUMNS} FROM checkpoints WHERE path = ? AND before_sha256 = ? AND created_at >= ? "
                "AND before_handle IS NOT NULL ORDER BY created_at LIMIT 1",
                (path, sha256, after),
            ).fetchone()
        return CheckpointRow.of(row) if row is not None else None

    def handles(self) -> set[str]:
        """Every media handle a row still refers to (what gc must keep)."""
        with self._lock:
            rows = self._conn.execute("SELECT before_handle FROM checkpoints WHERE before_handle IS NOT NULL")
            return {str(r[0]) for r in rows}


def _with_index(row: CheckpointRow, message_index: int | None) -> CheckpointRow:
    from dataclasses import replace

    return replace(row, message_index=message_index)
