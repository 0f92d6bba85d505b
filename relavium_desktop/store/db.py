"""history.db: one SQLite file (WAL), migrated per component.

Each component (sessions, runs, grants, …) owns an ordered list of migration
scripts and its own row in ``schema_versions``, so components evolve
independently and a newer database is refused instead of being misread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

SCHEMA_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL)"
)


class SchemaTooNewError(RuntimeError):
    pass


def open_db(path: Path) -> sqlite3.Connection:
    """Open (creating owner-only) history.db with WAL and foreign keys on."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path.exists():
        path.touch(mode=0o600)
    conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=10000")
    conn.execute(SCHEMA_TABLE)
    return conn


def migrate(conn: sqlite3.Connection, component: str, migrations: Sequence[str]) -> int:
    """Apply ``migrations[current:]`` for ``component`` atomically; returns the version."""
    row = conn.execute(
        "SELECT version FROM schema_versions WHERE component = ?", (component,)
    ).fetchone()
    current = int(row[0]) if row else 0
    if current > len(migrations):
        raise SchemaTooNewError(
            f"history.db's {component} schema is version {current}, newer than this app "
            f"understands ({len(migrations)}); update Relavium Desktop"
        )
    if current == len(migrations):
        return current
    conn.execute("BEGIN IMMEDIATE")
    try:
        for script in migrations[current:]:
            for statement in (s.strip() for s in script.split(";")):
                if statement:
                    conn.execute(statement)
        conn.execute(
            "INSERT INTO schema_versions(component, version) VALUES(?, ?) "
            "ON CONFLICT(component) DO UPDATE SET version = excluded.version",
            (component, len(migrations)),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(migrations)


def history_db_path(home: Path) -> Path:
    return home / "history.db"
