"""Per-project consent to start a workflow's (or agent file's) own stdio MCP server, in history.db.

A stdio server declared in a file someone else may have written is a program
that file chooses; it starts only after the user agreed to exactly that
launch in this project.  Consent is keyed by ``(project, server)`` and holds
the launch's fingerprint (the host's ``stdio_fingerprint``: command, args,
env *names*, cwd): a changed fingerprint is not granted, so an edited file
asks again, and granting the new one replaces the old record.

The store only stores: the project key is made canonical by the function
the opener hands in (the host's path answer), and the fingerprint is
computed by the host.  What is kept beside it (command, args, env names,
cwd) is for Settings to show what was allowed -- environment values are never
stored (they may be secrets).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from relavium_desktop.store.db import connection_lock, history_db_path, migrate, open_db, write_tx

COMPONENT = "mcp_consents"
MAX_META_CHARS = 4_096  # each stored display field; a longer one is cut (it is not the identity)

MIGRATIONS = [
    """
    CREATE TABLE mcp_consents (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project TEXT NOT NULL,
        server TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        command TEXT NOT NULL,
        args TEXT NOT NULL,
        env_names TEXT NOT NULL,
        cwd TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (project, server)
    );
    CREATE INDEX mcp_consents_by_project ON mcp_consents (project)
    """,
]


@dataclass(frozen=True, slots=True)
class McpConsent:
    id: int
    project: str
    server: str
    fingerprint: str
    command: str
    args: tuple[str, ...]
    env_names: tuple[str, ...]
    cwd: str
    created_at: str

    def describe(self) -> str:
        """One line for Settings: what this consent lets start."""
        argv = " ".join([self.command, *self.args]).strip()
        env = f"; env: {', '.join(self.env_names)}" if self.env_names else ""
        where = f" in {self.cwd}" if self.cwd else ""
        return f"{self.server}: {argv}{where}{env}"


def _clip(text: str) -> str:
    return text if len(text) <= MAX_META_CHARS else text[: MAX_META_CHARS - 3] + "..."


class McpConsentStore:
    """The ``mcp_consents`` component of history.db; safe to share between threads."""

    def __init__(
        self, conn: sqlite3.Connection, canonical: Callable[[str], str] | None = None, *, owns_connection: bool = True
    ) -> None:
        self._conn = conn
        self._canonical = canonical or str
        self._owns_connection = owns_connection
        self._lock = connection_lock(conn)  # shared with every store on this connection
        migrate(conn, COMPONENT, MIGRATIONS)

    @classmethod
    def open(cls, home: Path, canonical: Callable[[str], str] | None = None) -> McpConsentStore:
        return cls(open_db(history_db_path(home)), canonical)

    def close(self) -> None:
        """Close the connection when this store owns it; a shared one stays open for the other stores."""
        if self._owns_connection:
            with self._lock:
                self._conn.close()

    def _project(self, project: str | Path) -> str:
        return self._canonical(str(project))

    def grant(
        self,
        project: str | Path,
        server: str,
        fingerprint: str,
        *,
        command: str = "",
        args: Sequence[str] = (),
        env_names: Sequence[str] = (),
        cwd: str = "",
    ) -> McpConsent:
        """Record consent to ``fingerprint`` for ``server`` in ``project`` (replacing an older one)."""
        if not server or not fingerprint:
            raise ValueError("a consent needs a server name and a fingerprint")
        key = self._project(project)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        meta = (_clip(command), _clip(json.dumps(list(args))), _clip(json.dumps(sorted(env_names))), _clip(cwd))
        with self._lock, write_tx(self._conn):
            self._conn.execute(
                "INSERT INTO mcp_consents(project, server, fingerprint, command, args, env_names, cwd, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(project, server) DO UPDATE SET "
                "fingerprint = excluded.fingerprint, command = excluded.command, args = excluded.args, "
                "env_names = excluded.env_names, cwd = excluded.cwd, created_at = excluded.created_at",
                (key, server, fingerprint, *meta, now),
            )
            row = self._conn.execute(
                "SELECT * FROM mcp_consents WHERE project = ? AND server = ?", (key, server)
            ).fetchone()
        return self._row(row)

    def is_granted(self, project: str | Path, server: str, fingerprint: str) -> bool:
        """Whether the user consented to exactly this launch of ``server`` in ``project``."""
        with self._lock:
            row = self._conn.execute(
                "SELECT fingerprint FROM mcp_consents WHERE project = ? AND server = ?",
                (self._project(project), server),
            ).fetchone()
        return row is not None and row["fingerprint"] == fingerprint

    def list(self, project: str | Path | None = None) -> list[McpConsent]:
        with self._lock:
            if project is None:
                rows = self._conn.execute("SELECT * FROM mcp_consents ORDER BY project, server").fetchall()
            else:
                rows = self._conn.execute(
                    "SELECT * FROM mcp_consents WHERE project = ? ORDER BY server", (self._project(project),)
                ).fetchall()
        return [self._row(r) for r in rows]

    def revoke(self, project: str | Path, server: str) -> bool:
        """Forget the consent; the server asks again before its next start.  False if there was none."""
        with self._lock:
            cur = self._conn.execute(
                "DELETE FROM mcp_consents WHERE project = ? AND server = ?", (self._project(project), server)
            )
        return cur.rowcount > 0

    @staticmethod
    def _row(row: Any) -> McpConsent:
        return McpConsent(
            id=int(row["id"]), project=row["project"], server=row["server"], fingerprint=row["fingerprint"],
            command=row["command"], args=tuple(json.loads(row["args"])),
            env_names=tuple(json.loads(row["env_names"])), cwd=row["cwd"], created_at=row["created_at"],
        )
