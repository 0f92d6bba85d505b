"""One Application per process: the paths, the stores over one history.db, and the flows.

A surface opens it once (the window at start-up, each ``relavium`` command
in its entry point) and closes it when it ends.  Stores are opened on first
use and shared: one history database connection per process, so each
component's migration check and the runs' liveness sweep ("runs whose
process died are marked interrupted") run once, not at every refresh.

Every store gets the same connection and, with it, the connection's one lock
(``store.db.connection_lock``): the stores are used from the qasync loop
thread and from ``asyncio.to_thread`` workers, and a statement of one store
must never land inside another store's write transaction.  The stores do not
own the connection (their ``close`` leaves it open); :meth:`Application.close`
closes it.  A history.db that cannot be used (damaged, locked, full,
read-only, newer) raises ``StorageError`` from the accessor that first opens
it, and the next call tries again -- after the window moved a damaged file
aside, say.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from relavium_desktop.application.paths import AppPaths

if TYPE_CHECKING:
    import sqlite3  # the window imports this module before its first paint; sqlite3 loads after it

    from relavium_desktop.application.undo import UndoService
    from relavium_desktop.store.grants import GrantStore
    from relavium_desktop.store.mcp_consents import McpConsentStore
    from relavium_desktop.store.runs import RunStore
    from relavium_desktop.store.sessions import SqliteSessionStore


class Application:
    """The process's paths and its long-lived stores, each opened on first use over one connection."""

    def __init__(self, paths: AppPaths) -> None:
        self.paths = paths
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._sessions: SqliteSessionStore | None = None
        self._runs: RunStore | None = None
        self._grants: GrantStore | None = None
        self._consents: McpConsentStore | None = None
        self._undo: UndoService | None = None

    @classmethod
    def from_environment(cls) -> Application:
        return cls(AppPaths.from_environment())

    def _history(self) -> sqlite3.Connection:
        """The process's one history.db connection, opened on first use (``self._lock`` held)."""
        if self._conn is None:
            from relavium_desktop.store.db import open_db

            self._conn = open_db(self.paths.history_db)
        return self._conn

    def sessions(self) -> SqliteSessionStore:
        """The chat sessions in history.db."""
        with self._lock:
            if self._sessions is None:
                from relavium_desktop.store.sessions import SqliteSessionStore

                self._sessions = SqliteSessionStore(self._history(), owns_connection=False)
            return self._sessions

    def runs(self) -> RunStore:
        """The workflow run journal in history.db (runs whose process died were marked interrupted when it opened)."""
        with self._lock:
            if self._runs is None:
                from relavium_desktop.store.runs import RunStore

                self._runs = RunStore(self._history(), owns_connection=False)
            return self._runs

    def grants(self) -> GrantStore:
        """The per-project permission grants ("Always allow in this project"), one store for every surface."""
        with self._lock:
            if self._grants is None:
                from relavium_desktop.host.fs.preview import HOST_GRANT_PATHS
                from relavium_desktop.store.grants import GrantStore

                self._grants = GrantStore(self._history(), HOST_GRANT_PATHS, owns_connection=False)
            return self._grants

    def consents(self) -> McpConsentStore:
        """The per-project consents to start a stdio MCP server."""
        with self._lock:
            if self._consents is None:
                from relavium_desktop.host.fs.preview import HOST_GRANT_PATHS
                from relavium_desktop.store.mcp_consents import McpConsentStore

                self._consents = McpConsentStore(
                    self._history(), HOST_GRANT_PATHS.canonical, owns_connection=False
                )
            return self._consents

    def undo(self) -> UndoService:
        """Checkpoints of the agents' file writes: list, plan, restore (retention applied when first opened)."""
        with self._lock:
            if self._undo is None:
                from relavium_desktop.application.undo import UndoService
                from relavium_desktop.host.media import MediaStore
                from relavium_desktop.store.checkpoints import CheckpointStore

                store = CheckpointStore(self._history(), owns_connection=False)
                self._undo = UndoService(
                    store,
                    MediaStore(self.paths.media),
                    granted_folders=lambda project: self.grants().folders.roots(str(project)),
                )
            return self._undo

    def close(self) -> None:
        """Close every store that was opened, then the shared connection (idempotent).

        The run journal writes its buffered events first.  A later accessor
        call opens history.db afresh.
        """
        with self._lock:
            stores = (self._sessions, self._runs, self._grants, self._consents)
            self._sessions = self._runs = self._grants = self._consents = None
            self._undo = None
            conn, self._conn = self._conn, None
            try:
                for store in stores:
                    if store is not None:
                        store.close()
            finally:
                if conn is not None:
                    # Under the connection's own lock: a statement still running on another thread
                    # (a view reading history in the background) finishes first.  Closing SQLite
                    # under a running statement crashed the process; a later use now raises instead.
                    from relavium_desktop.store.db import connection_lock

                    with connection_lock(conn):
                        conn.close()
