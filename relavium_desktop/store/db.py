"""history.db: one SQLite file (WAL), migrated per component.

Each component (sessions, runs, grants, …) owns an ordered list of migration
scripts and its own row in ``schema_versions``, so components evolve
independently and a newer database is refused instead of being misread.

Every write that spans more than one statement goes through :func:`write_tx`
(``BEGIN IMMEDIATE`` … ``COMMIT``, ``ROLLBACK`` on any exception).  A
connection is shared between threads (the event loop and ``to_thread``
workers) and between stores (one connection per process), so every use of it
holds the connection's one lock (:func:`connection_lock`): the transaction is
per connection, so a second thread's statement would otherwise land inside
(or break) the first thread's transaction, whichever store issued it.

A database that cannot be opened or written -- damaged, locked by another
program, on a full disk, read-only -- raises :class:`StorageError`, which
names the file and the cause in one line (``describe()``) so every surface can
say so instead of "disk I/O error".  :func:`move_aside` keeps a damaged file
under a timestamped name so the app can start fresh without losing it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from relavium_desktop.store import masked_writes

SCHEMA_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL)"
)


class SchemaTooNewError(RuntimeError):
    pass


StorageKind = Literal["corrupt", "locked", "full", "readonly", "too_new", "io"]

# SQLite's primary result codes (the low byte of an extended code) that say the file, not the query, failed.
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CORRUPT = 5, 6, 8, 10, 11
_SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_PERM, _SQLITE_NOTADB = 13, 14, 3, 26
_STORAGE_CODES = frozenset(
    {
        _SQLITE_BUSY,
        _SQLITE_LOCKED,
        _SQLITE_READONLY,
        _SQLITE_IOERR,
        _SQLITE_CORRUPT,
        _SQLITE_FULL,
        _SQLITE_CANTOPEN,
        _SQLITE_PERM,
        _SQLITE_NOTADB,
    }
)
# Less free space than this on the folder's file system counts as a full disk (SQLite then says "disk I/O error").
_FULL_BELOW_BYTES = 64 * 1024


class StorageError(sqlite3.DatabaseError):
    """A data file cannot be opened or written; ``describe()`` names the file and the cause in one line.

    A subclass of ``sqlite3.DatabaseError`` so code that already tolerates a
    database error keeps doing so.  ``kind`` decides what a surface offers:
    only a ``corrupt`` file is worth moving aside or recovering.
    """

    def __init__(self, path: Path, kind: StorageKind, detail: str = "") -> None:
        self.path = path
        self.kind: StorageKind = kind
        self.detail = detail
        super().__init__(self.describe())

    def describe(self) -> str:
        name, where = self.path.name, str(self.path)
        if self.kind == "corrupt":
            return f"{name} is not a database or is damaged ({where})"
        if self.kind == "full":
            return f"cannot write {name}: the disk holding {self.path.parent} is full"
        if self.kind == "locked":
            return f"{name} is locked by another program ({where})"
        if self.kind == "readonly":
            return f"cannot write {name}: the file or its folder is read-only ({where})"
        if self.kind == "too_new":
            return self.detail or f"{name} was written by a newer Relavium Desktop ({where})"
        return f"cannot read or write {name} ({where})" + (f": {self.detail}" if self.detail else "")


def disk_full(folder: Path) -> bool:
    """Whether the file system holding ``folder`` has (next to) no space left for this user."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        st = os.statvfs(probe)
    except OSError:
        return False
    free = st.f_bfree if os.geteuid() == 0 else st.f_bavail
    return free * st.f_frsize < _FULL_BELOW_BYTES


def storage_error(exc: BaseException, path: Path) -> StorageError | None:
    """``exc`` as a :class:`StorageError` about ``path``, or None when it is not a storage failure.

    A constraint or SQL error is the caller's business and stays itself; a
    damaged, locked, full or read-only file becomes a StorageError.  SQLite
    reports a full disk while opening (no room for the WAL index) as a plain
    I/O error, so the free space decides that case.
    """
    if isinstance(exc, StorageError):
        return exc
    if isinstance(exc, SchemaTooNewError):
        return StorageError(path, "too_new", str(exc))
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        primary = code & 0xFF if isinstance(code, int) else None
        if primary is None:
            text = str(exc).lower()
            if "malformed" in text or "not a database" in text:
                primary = _SQLITE_CORRUPT
            elif "disk is full" in text:
                primary = _SQLITE_FULL
            elif "locked" in text:
                primary = _SQLITE_BUSY
            elif "disk i/o error" in text or "unable to open" in text:
                primary = _SQLITE_IOERR
            elif "readonly" in text:
                primary = _SQLITE_READONLY
        if primary not in _STORAGE_CODES:
            return None
        if primary in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
            return StorageError(path, "corrupt", str(exc))
        if primary == _SQLITE_FULL or (
            primary in (_SQLITE_IOERR, _SQLITE_CANTOPEN) and disk_full(path.parent)
        ):
            return StorageError(path, "full", str(exc))
        if primary in (_SQLITE_BUSY, _SQLITE_LOCKED):
            return StorageError(path, "locked", str(exc))
        if primary in (_SQLITE_READONLY, _SQLITE_PERM) or (
            primary == _SQLITE_CANTOPEN and not _writable(path)
        ):
            return StorageError(path, "readonly", str(exc))
        return StorageError(path, "io", str(exc))
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
            return StorageError(path, "full", exc.strerror or "")
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return StorageError(path, "readonly", exc.strerror or "")
        return StorageError(path, "io", exc.strerror or str(exc))
    return None


def _writable(path: Path) -> bool:
    target = path if path.exists() else path.parent
    return os.access(target, os.W_OK)


class HistoryConnection(sqlite3.Connection):
    """A connection that knows its file, so a failure deep in a store can name it.

    Every text it writes is masked (``masked_writes``): no credential reaches
    history.db, whichever store wrote it.
    """

    path: Path = Path("history.db")
    # The one lock every store using this connection holds around each use of it (set by open_db).
    lock: threading.RLock

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        if parameters and masked_writes.writes(sql):
            parameters = masked_writes.masked_params(parameters)
        return super().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> sqlite3.Cursor:
        if masked_writes.writes(sql):
            parameters = masked_writes.masked_rows(parameters)
        return super().executemany(sql, parameters)


def connection_path(conn: sqlite3.Connection) -> Path:
    return getattr(conn, "path", Path("history.db"))


def connection_lock(conn: sqlite3.Connection) -> threading.RLock:
    """The lock every store sharing ``conn`` holds around each use of it.

    One per connection, so stores sharing a connection also share its lock: a
    statement of one store can never land inside another store's transaction.
    Reentrant, so a store method that calls another under the lock waits for
    nobody.  A connection :func:`open_db` did not make gets a lock of its own
    here (attached to it when the connection type allows, else per store: such
    a connection must then not be shared between stores).
    """
    lock: threading.RLock | None = getattr(conn, "lock", None)
    if lock is None:
        lock = threading.RLock()
        with contextlib.suppress(AttributeError):  # a plain sqlite3.Connection takes no attributes
            conn.lock = lock  # type: ignore[attr-defined]
    return lock


def open_db(path: Path) -> sqlite3.Connection:
    """Open (creating owner-only) history.db with WAL and foreign keys on.

    Raises :class:`StorageError` when the file cannot be used: it is read
    once here (a damaged header shows at once, not on the first chat), and
    a folder or disk that cannot take it says so.
    """
    conn: sqlite3.Connection | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not path.exists():
            path.touch(mode=0o600)
        conn = sqlite3.connect(
            path, timeout=10, isolation_level=None, check_same_thread=False, factory=HistoryConnection
        )
        conn.path = path
        conn.lock = threading.RLock()
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout=10000")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        conn.execute(SCHEMA_TABLE)
        return conn
    except (sqlite3.Error, OSError) as exc:
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
        problem = storage_error(exc, path)
        if problem is None:
            raise
        raise problem from exc


def check_writable(conn: sqlite3.Connection) -> None:
    """Write one page and roll nothing back: a full disk or a read-only file shows now, not mid-chat.

    Raises :class:`StorageError`.  The row written is the schema table's own
    bookkeeping, rewritten with the value it has, so nothing changes.
    """
    try:
        with write_tx(conn):
            conn.execute("INSERT OR REPLACE INTO schema_versions(component, version) VALUES('_probe', 0)")
            conn.execute("DELETE FROM schema_versions WHERE component = '_probe'")
    except StorageError:
        raise
    except (sqlite3.Error, OSError) as exc:
        problem = storage_error(exc, connection_path(conn))
        if problem is None:
            raise
        raise problem from exc


# Up to this size check_history reads every page (SQLite's quick_check: well under a second);
# a larger file is checked by opening and writing it, and deeper damage shows when it is read.
QUICK_CHECK_MAX_BYTES = 64 * 1024 * 1024
CHECK_BUSY_TIMEOUT_MS = 2000


def check_history(path: Path) -> StorageError | None:
    """Open ``path``, read it and write to it once; the problem, or None when it is usable.

    What the window and ``--headless-check`` ask before they touch history.db.
    """
    try:
        conn = open_db(path)
    except StorageError as exc:
        return exc
    try:
        if path.stat().st_size <= QUICK_CHECK_MAX_BYTES:  # damage deep inside shows now, not mid-chat
            verdict = conn.execute("PRAGMA quick_check(1)").fetchone()
            if verdict is not None and verdict[0] != "ok":
                return StorageError(path, "corrupt", str(verdict[0]))
        # Another process's write lasts milliseconds; a lock held for seconds is another program's, and
        # the window (which asks this on its thread) says so rather than freezing for the full busy timeout.
        conn.execute(f"PRAGMA busy_timeout={CHECK_BUSY_TIMEOUT_MS}")
        check_writable(conn)
    except (sqlite3.Error, OSError) as exc:
        return storage_error(exc, path) or StorageError(path, "io", str(exc))
    finally:
        with contextlib.suppress(sqlite3.Error):
            conn.close()
    return None


def move_aside(path: Path, *, now: float | None = None) -> Path:
    """Rename a damaged ``path`` (and its -wal / -shm files) to ``NAME.corrupt-YYYYMMDD-HHMMSS``; the new name.

    Nothing is deleted: the file stays on disk for the user (or a recovery)
    and the next open starts an empty database.
    """
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if now is None else now))
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            os.replace(side, target.with_name(target.name + suffix))
    os.replace(path, target)
    return target


@contextmanager
def write_tx(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: ``BEGIN IMMEDIATE``, then ``COMMIT``, or ``ROLLBACK`` on any exception.

    IMMEDIATE takes the write lock up front (waiting up to the busy timeout
    for another process), so a read-then-write inside the block is not
    undercut by a concurrent writer.  A failed ``COMMIT`` is rolled
    back too, and a transaction SQLite already abandoned is not rolled back
    twice, so the original error is what propagates.  A damaged, locked, full
    or read-only file propagates as :class:`StorageError` (naming the file);
    a constraint or SQL error stays itself.  The connection's lock
    (:func:`connection_lock`, reentrant) is held for the whole transaction, so
    no other thread's statement on this connection can land inside it.
    """
    with connection_lock(conn):
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            _raise_storage(conn, exc)
            raise
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):  # the original error is the one worth reporting
                    conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                _raise_storage(conn, exc)
            raise


def _raise_storage(conn: sqlite3.Connection, exc: sqlite3.Error) -> None:
    """Raise ``exc`` as a StorageError when it is one (a file failure); return when it is the caller's."""
    problem = storage_error(exc, connection_path(conn))
    if problem is not None and problem is not exc:
        raise problem from exc


def _version(conn: sqlite3.Connection, component: str) -> int:
    row = conn.execute("SELECT version FROM schema_versions WHERE component = ?", (component,)).fetchone()
    return int(row[0]) if row else 0


def migrate(conn: sqlite3.Connection, component: str, migrations: Sequence[str]) -> int:
    """Apply ``migrations[current:]`` for ``component`` atomically; returns the version.

    The version is read again inside the write transaction, so two processes
    opening an older history.db at once apply each script exactly once.  The
    connection's lock is held throughout: a store opened while another store
    on the same connection is mid-transaction on another thread waits for it.
    """
    with connection_lock(conn):
        return _migrate_locked(conn, component, migrations)


def _migrate_locked(conn: sqlite3.Connection, component: str, migrations: Sequence[str]) -> int:
    def check(current: int) -> None:
        if current > len(migrations):
            raise SchemaTooNewError(
                f"history.db's {component} schema is version {current}, newer than this app "
                f"understands ({len(migrations)}); update Relavium Desktop"
            )

    try:
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
    except SchemaTooNewError:
        raise
    except (sqlite3.Error, OSError) as exc:
        problem = storage_error(exc, connection_path(conn))
        if problem is None or problem is exc:
            raise
        raise problem from exc
    return len(migrations)


def history_db_path(home: Path) -> Path:
    return home / "history.db"
