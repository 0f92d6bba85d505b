"""history.db: one SQLite file (WAL), migrated per component.

Each component (sessions, runs, grants, …) owns an ordered list of migration
scripts and its own row in ``schema_versions``, so components evolve
independently and a newer database is refused instead of being misread.

Every write that spans more than one statement goes through :func:`write_tx`
(``BEGIN IMMEDIATE`` … ``COMMIT``, ``ROLLBACK`` on any exception).  A store
object that shares its connection between threads also holds its own lock
around every use of the connection: the transaction is per connection, so a
second thread's statement would otherwise land inside (or break) the first
thread's transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
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


@contextmanager
def write_tx(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: ``BEGIN IMMEDIATE``, then ``COMMIT``, or ``ROLLBACK`` on any exception.

    IMMEDIATE takes the write lock up front (waiting up to the busy timeout
    for another process), so a read-then-write inside the block is not
    undercut by a concurrent writer.  The caller holds its store's lock when
    the connection is shared between threads.  A failed ``COMMIT`` is rolled
    back too, and a transaction SQLite already abandoned is not rolled back
    twice, so the original error is what propagates.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _version(conn: sqlite3.Connection, component: str) -> int:
    row = conn.execute("SELECT version FROM schema_versions WHERE component = ?", (component,)).fetchone()
    return int(row[0]) if row else 0


def migrate(conn: sqlite3.Connection, component: str, migrations: Sequence[str]) -> int:
    """Apply ``migrations[current:]`` for ``component`` atomically; returns the version.

    The version is read again inside the write transaction, so two processes
    opening an older history.db at once apply each script exactly once.
    """

    def check(current: int) -> None:
        if current > len(migrations):
            raise SchemaTooNewError(
                f"history.db's {component} schema is version {current}, newer than this app "
                f"understands ({len(migrations)}); update Relavium Desktop"
            )

    current = _version(conn, component)
    check(current)
    if current == len(migrations):
        return current
    with write_tx(conn):
        current = _version(conn, component)
        check(current)
        for script in migrations[current:]:
            for statement in (s.strip() for s in script.split(";")):
                if statement:
                    conn.execute(statement)
        conn.execute(
            "INSERT INTO schema_versions(component, version) VALUES(?, ?) "
            "ON CONFLICT(component) DO UPDATE SET version = excluded.version",
            (component, len(migrations)),
        )
    return len(migrations)


def history_db_path(home: Path) -> Path:
    return home / "history.db"
