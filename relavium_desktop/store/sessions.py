"""Chat sessions in history.db: sessions, messages, usage.

Migrated as the ``sessions`` component of ``store.db``.  Messages are stored
as the engine's JSON (masked and bounded by ``storable_message``) so a
session resumed after a restart is sent to the provider exactly as stored.
Deleting a session deletes its rows (foreign keys cascade).  The connection
may be shared with other stores and threads: every use of it holds the
connection's lock (``store.db.connection_lock``).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
import uuid
from collections.abc import Callable
from typing import Any

from relavium_desktop.engine.agent.outcome import UsageRecord
from relavium_desktop.engine.agent.session import SessionInfo, storable_message
from relavium_desktop.engine.llm.messages import Message, TextPart
from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.store.db import connection_lock, migrate, write_tx
from relavium_desktop.store.runs import owner_alive, this_process

MIGRATIONS = [
    """
    CREATE TABLE chat_sessions (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        mode TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE TABLE chat_messages (
        session_id TEXT NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        parts_json TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (session_id, seq)
    );
    CREATE TABLE chat_tool_events (
        session_id TEXT NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        tool_id TEXT NOT NULL,
        payload_json TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (session_id, seq)
    );
    CREATE TABLE chat_usage (
        session_id TEXT NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cost_usd REAL,
        created_at REAL NOT NULL
    );
    CREATE INDEX chat_usage_session ON chat_usage(session_id)
    """,
    # chat_tool_events was written on every tool call and never read: a chat's
    # tool calls and results live in chat_messages, which is what a resume shows.
    """
    DROP TABLE chat_tool_events
    """,
    # The modes were renamed (issue 13).  ``accept-edits`` used to ask before
    # every edit -- what ``confirm`` ("Ask before acting") does now -- and now
    # approves edits inside the project unasked; a session stored under the
    # old meaning keeps the behaviour it had.  ``ask``/``plan`` were both
    # read-only and are stored under the one id that says so.
    """
    UPDATE chat_sessions SET mode = 'confirm' WHERE mode = 'accept-edits';
    UPDATE chat_sessions SET mode = 'read-only' WHERE mode IN ('ask', 'plan')
    """,
    # Search over what was said (issue 14), first as a column of chat_messages.
    # Unused since the next migration (see there); left NULL.
    """
    ALTER TABLE chat_messages ADD COLUMN search_text TEXT
    """,
    # A search scanned chat_messages, and reaching a row's last column means
    # walking parts_json's overflow pages (tool results run to 16 kB): the
    # words live in their own narrow table instead.  One row per message --
    # empty ``body`` for tool messages -- so a message without a row is one
    # stored before search existed, indexed by the store when it opens.  The
    # body is the message's readable text, masked like the stored parts and
    # case-folded in Python (SQLite's lower() folds ASCII only).  The foreign
    # key deletes a message's row with the message, whatever deletes it.
    """
    CREATE TABLE chat_search (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq),
        FOREIGN KEY (session_id, seq) REFERENCES chat_messages(session_id, seq) ON DELETE CASCADE
    );
    INSERT INTO chat_search(session_id, seq, body)
        SELECT session_id, seq, search_text FROM chat_messages WHERE search_text IS NOT NULL;
    UPDATE chat_messages SET search_text = NULL
    """,
    # Partial answers (issue 29).  ``cut_off`` marks an assistant message that
    # was cut off (the process was killed, the stream died, the user stopped
    # it).  ``chat_partials`` holds the one answer being streamed per session,
    # rewritten about once a second, with the process writing it: a draft whose
    # process is gone is kept as a cut-off message when the session is read.
    """
    ALTER TABLE chat_messages ADD COLUMN cut_off INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE chat_partials (
        session_id TEXT PRIMARY KEY REFERENCES chat_sessions(id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        owner_pid INTEGER NOT NULL,
        owner_started REAL NOT NULL,
        owner_host TEXT NOT NULL,
        updated_at REAL NOT NULL
    )
    """,
]

MAX_TITLE_CHARS = 200


def folded(text: str) -> str:
    """``text`` as search compares it: case-folded (Unicode, not just ASCII), whitespace collapsed."""
    return " ".join(text.casefold().split())


def searchable_text(message: Message) -> str:
    """What a search looks through in a stored (already masked) message.

    Only the words of the conversation (user and assistant text): tool
    arguments and results are file contents and command output, which would
    make nearly every search match every chat that read a file.
    """
    if message.role not in ("user", "assistant"):
        return ""
    return folded(message.text)


def _stored_text(role: str, parts_json: str) -> str:
    """:func:`searchable_text` of a stored row; a row this version cannot read is just not searchable."""
    try:
        return searchable_text(Message.from_json({"role": role, "parts": json.loads(parts_json)}))
    except (ValueError, TypeError, KeyError):  # json.JSONDecodeError is a ValueError
        return ""


class SqliteSessionStore:
    """The :class:`~relavium_desktop.engine.agent.session.SessionStore` over history.db."""

    def __init__(
        self, conn: sqlite3.Connection, *, clock: Callable[[], float] = time.time, owns_connection: bool = True
    ) -> None:
        self._conn = conn
        self._clock = clock
        self._owns_connection = owns_connection
        self._lock = connection_lock(conn)
        migrate(conn, "sessions", MIGRATIONS)
        self._index_unindexed()

    def close(self) -> None:
        """Close the connection when this store owns it; a shared one stays open for the other stores."""
        if self._owns_connection:
            with self._lock:
                self._conn.close()

    def _index_unindexed(self) -> None:
        """Index the messages stored before search existed (once per database: each gets a row)."""
        unindexed = ("FROM chat_messages m WHERE NOT EXISTS "
                     "(SELECT 1 FROM chat_search s WHERE s.session_id = m.session_id AND s.seq = m.seq)")
        with self._lock:
            if self._conn.execute("SELECT EXISTS (SELECT 1 " + unindexed + ")").fetchone()[0] == 0:
                return
            with write_tx(self._conn):  # read again under the write lock: another process may have done it
                rows = self._conn.execute("SELECT m.session_id, m.seq, m.role, m.parts_json " + unindexed)
                self._conn.executemany(
                    "INSERT INTO chat_search(session_id, seq, body) VALUES(?,?,?)",
                    [(r["session_id"], r["seq"], _stored_text(r["role"], r["parts_json"])) for r in rows.fetchall()])

    def create(self, *, title: str, agent_id: str, mode: str) -> SessionInfo:
        now = self._clock()
        sid = uuid.uuid4().hex[:16]
        with self._lock:
            self._conn.execute(
                "INSERT INTO chat_sessions(id, title, agent_id, mode, created_at, updated_at) VALUES(?,?,?,?,?,?)",
                (sid, title[:MAX_TITLE_CHARS], agent_id, mode, now, now),
            )
        return SessionInfo(sid, title[:MAX_TITLE_CHARS], agent_id, mode, now, now)

    def _info(self, row: sqlite3.Row) -> SessionInfo:
        return SessionInfo(row["id"], row["title"], row["agent_id"], row["mode"], row["created_at"],
                           row["updated_at"], row["n"])

    _SELECT = ("SELECT s.*, (SELECT COUNT(*) FROM chat_messages m WHERE m.session_id = s.id) AS n "
               "FROM chat_sessions s")

    def get(self, session_id: str) -> SessionInfo | None:
        with self._lock:
            row = self._conn.execute(self._SELECT + " WHERE s.id = ?", (session_id,)).fetchone()
        return self._info(row) if row else None

    def list_sessions(self) -> list[SessionInfo]:
        with self._lock:
            rows = self._conn.execute(self._SELECT + " ORDER BY s.updated_at DESC, s.id").fetchall()
        return [self._info(r) for r in rows]

    def search(self, query: str) -> list[SessionInfo]:
        """Sessions whose title or conversation contains ``query``, newest first like :meth:`list_sessions`.

        Case-insensitive substring match on the *stored* text, which is
        masked: a credential that was in a message cannot be found by typing
        it.  An empty query lists every session.
        """
        needle = folded(query)
        if not needle:
            return self.list_sessions()
        with self._lock:
            hits = {r[0] for r in self._conn.execute(
                "SELECT DISTINCT session_id FROM chat_search WHERE instr(body, ?) > 0", (needle,))}
        return [info for info in self.list_sessions()
                if info.id in hits or needle in folded(mask_text(info.title))]

    def rename(self, session_id: str, title: str) -> bool:
        with self._lock:
            cur = self._conn.execute("UPDATE chat_sessions SET title = ?, updated_at = ? WHERE id = ?",
                                     (title[:MAX_TITLE_CHARS], self._clock(), session_id))
        return cur.rowcount > 0

    def set_mode(self, session_id: str, mode: str) -> None:
        with self._lock:
            self._conn.execute("UPDATE chat_sessions SET mode = ? WHERE id = ?", (mode, session_id))

    def delete(self, session_id: str) -> bool:
        with self._lock:
            cur = self._conn.execute("DELETE FROM chat_sessions WHERE id = ?", (session_id,))
        return cur.rowcount > 0

    def _next_seq(self, table: str, session_id: str) -> int:
        row = self._conn.execute(f"SELECT COALESCE(MAX(seq), -1) + 1 FROM {table} WHERE session_id = ?",
                                 (session_id,)).fetchone()
        return int(row[0])

    def append_message(self, session_id: str, message: Message) -> None:
        """Store ``message``; it supersedes the session's streaming draft (dropped in the same write)."""
        with self._lock, write_tx(self._conn):
            self._append_locked(session_id, message, cut_off=False)

    def _append_locked(self, session_id: str, message: Message, *, cut_off: bool) -> None:
        stored = storable_message(message)
        now = self._clock()
        seq = self._next_seq("chat_messages", session_id)
        self._conn.execute(
            "INSERT INTO chat_messages(session_id, seq, role, parts_json, created_at, cut_off) VALUES(?,?,?,?,?,?)",
            (session_id, seq, stored.role, json.dumps(stored.to_json()["parts"]), now, int(cut_off)),
        )
        self._conn.execute("INSERT INTO chat_search(session_id, seq, body) VALUES(?,?,?)",
                           (session_id, seq, searchable_text(stored)))
        self._conn.execute("UPDATE chat_sessions SET updated_at = ? WHERE id = ?", (now, session_id))
        self._conn.execute("DELETE FROM chat_partials WHERE session_id = ?", (session_id,))

    # -- partial answers (PartialAnswerStore) ------------------------------------------

    def save_partial(self, session_id: str, text: str) -> None:
        """Overwrite the session's streaming draft (masked and bounded as a stored message is)."""
        owner = this_process()
        stored = storable_message(Message("assistant", (TextPart(text),))).text
        with self._lock:
            self._conn.execute(
                "INSERT INTO chat_partials(session_id, text, owner_pid, owner_started, owner_host, updated_at) "
                "VALUES(?,?,?,?,?,?) ON CONFLICT(session_id) DO UPDATE SET text = excluded.text, "
                "owner_pid = excluded.owner_pid, owner_started = excluded.owner_started, "
                "owner_host = excluded.owner_host, updated_at = excluded.updated_at",
                (session_id, stored, owner.pid, owner.started, owner.host, self._clock()),
            )

    def keep_cut_off(self, session_id: str, text: str) -> None:
        """End the draft: ``text`` (when not empty) is kept as an assistant message marked cut off."""
        with self._lock, write_tx(self._conn):
            if text:
                self._append_locked(session_id, Message("assistant", (TextPart(text),)), cut_off=True)
            else:
                self._conn.execute("DELETE FROM chat_partials WHERE session_id = ?", (session_id,))

    def _settle_dead_draft_locked(self, session_id: str) -> None:
        """A draft whose process is gone (killed mid-answer) becomes a cut-off message.

        A draft of a live process is an answer still streaming: left alone.
        One written on another host cannot be checked from here: left alone too.
        """
        row = self._conn.execute("SELECT * FROM chat_partials WHERE session_id = ?", (session_id,)).fetchone()
        if row is None or row["owner_host"] != this_process().host:
            return
        if owner_alive(int(row["owner_pid"]), float(row["owner_started"])):
            return
        # Opportunistic: a read must not fail because this write cannot happen now (disk full,
        # read-only, locked); the draft stays and is kept by a later read.
        with contextlib.suppress(sqlite3.DatabaseError):
            self._keep_dead_draft_locked(session_id, row)

    def _keep_dead_draft_locked(self, session_id: str, row: sqlite3.Row) -> None:
        with write_tx(self._conn):
            again = self._conn.execute(
                "SELECT text FROM chat_partials WHERE session_id = ? AND owner_pid = ? AND owner_started = ?",
                (session_id, row["owner_pid"], row["owner_started"]),
            ).fetchone()
            if again is None:  # another reader kept it meanwhile
                return
            if again["text"]:
                self._append_locked(session_id, Message("assistant", (TextPart(again["text"]),)), cut_off=True)
            else:
                self._conn.execute("DELETE FROM chat_partials WHERE session_id = ?", (session_id,))

    def partial(self, session_id: str) -> str | None:
        """The answer being streamed right now (by any live process), if any."""
        with self._lock:
            self._settle_dead_draft_locked(session_id)
            row = self._conn.execute("SELECT text FROM chat_partials WHERE session_id = ?", (session_id,)).fetchone()
        return str(row["text"]) if row is not None else None

    def cut_off_indexes(self, session_id: str) -> set[int]:
        """Positions (in :meth:`messages`) of the answers that were cut off."""
        with self._lock:
            self._settle_dead_draft_locked(session_id)
            rows = self._conn.execute(
                "SELECT cut_off FROM chat_messages WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
        return {i for i, r in enumerate(rows) if r["cut_off"]}

    def messages(self, session_id: str) -> list[Message]:
        with self._lock:
            self._settle_dead_draft_locked(session_id)
            rows = self._conn.execute(
                "SELECT role, parts_json FROM chat_messages WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
        return [Message.from_json({"role": r["role"], "parts": json.loads(r["parts_json"])}) for r in rows]

    def record_usage(self, session_id: str, usage: UsageRecord) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT INTO chat_usage(session_id, provider, model, input_tokens, output_tokens, cost_usd, "
                "created_at) VALUES(?,?,?,?,?,?,?)",
                (session_id, usage.provider, usage.model, usage.input_tokens, usage.output_tokens,
                 usage.cost_usd, self._clock()),
            )

    def usage_by_model(self, session_id: str) -> list[dict[str, Any]]:
        """Token totals per model; cost is null when any turn's price was unknown."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT provider, model, SUM(input_tokens) AS i, SUM(output_tokens) AS o, "
                "SUM(cost_usd) AS c, COUNT(*) - COUNT(cost_usd) AS unpriced "
                "FROM chat_usage WHERE session_id = ? GROUP BY provider, model ORDER BY provider, model",
                (session_id,),
            ).fetchall()
        return [{"provider": r["provider"], "model": r["model"], "inputTokens": r["i"], "outputTokens": r["o"],
                 "costUsd": None if r["unpriced"] else r["c"]} for r in rows]
