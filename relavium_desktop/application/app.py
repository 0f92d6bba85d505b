"""One Application per process: the paths, the stores over one history.db, and the flows.

A surface opens it once (the window at start-up, each ``relavium`` command
in its entry point) and closes it when it ends.  Stores are opened on first
use and shared: one history database connection per process, so the
migration check and the liveness sweep run once, not at every refresh.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from relavium_desktop.application.paths import AppPaths

if TYPE_CHECKING:
    from relavium_desktop.store.grants import GrantStore
    from relavium_desktop.store.mcp_consents import McpConsentStore
    from relavium_desktop.store.runs import RunStore
    from relavium_desktop.store.sessions import SqliteSessionStore


class Application:
    """The process's paths and its long-lived stores, each opened on first use."""

    def __init__(self, paths: AppPaths) -> None:
        self.paths = paths
        self._lock = threading.Lock()
        self._sessions: SqliteSessionStore | None = None
        self._runs: RunStore | None = None
        self._grants: GrantStore | None = None
        self._consents: McpConsentStore | None = None

    @classmethod
    def from_environment(cls) -> Application:
        return cls(AppPaths.from_environment())

    def sessions(self) -> SqliteSessionStore:
        """The chat sessions in history.db."""
        with self._lock:
            if self._sessions is None:
                from relavium_desktop.services import session_store

                self._sessions = session_store(self.paths.home)
            return self._sessions

    def runs(self) -> RunStore:
        """The workflow run journal in history.db."""
        with self._lock:
            if self._runs is None:
                from relavium_desktop.services import run_store

                self._runs = run_store(self.paths.home)
            return self._runs

    def grants(self) -> GrantStore:
        """The per-project permission grants ("Always allow in this project"), one store for every surface."""
        with self._lock:
            if self._grants is None:
                from relavium_desktop.services import grant_store

                self._grants = grant_store(self.paths.home)
            return self._grants

    def consents(self) -> McpConsentStore:
        """The per-project consents to start a stdio MCP server."""
        with self._lock:
            if self._consents is None:
                from relavium_desktop.services import mcp_consents

                self._consents = mcp_consents(self.paths.home)
            return self._consents

    def close(self) -> None:
        """Close every store that was opened (idempotent)."""
        with self._lock:
            for store in (self._sessions, self._runs, self._grants, self._consents):
                if store is not None:
                    close = getattr(store, "close", None)
                    if close is not None:
                        close()
            self._sessions = self._runs = self._grants = self._consents = None
