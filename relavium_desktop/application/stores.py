"""The stores in ``history.db``: chat sessions, the workflow run journal and the project grants.

Opened here so a surface never names a database path or a store class; the
process's :class:`~relavium_desktop.application.app.Application` opens each
once and shares it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.store.grants import FolderGrant, Grant, GrantStore

# The grant store's type and its plain records, for the surfaces' annotations and lists.
__all__ = ["FolderGrant", "Grant", "GrantStore", "grant_store", "run_store", "session_store"]

if TYPE_CHECKING:
    from relavium_desktop.store.runs import RunStore
    from relavium_desktop.store.sessions import SqliteSessionStore


def session_store(home: Path) -> SqliteSessionStore:
    """The chat sessions in ``history.db`` under ``home`` (the Application's data folder)."""
    from relavium_desktop.store.db import history_db_path, open_db
    from relavium_desktop.store.sessions import SqliteSessionStore

    return SqliteSessionStore(open_db(history_db_path(home)))


def run_store(home: Path) -> RunStore:
    """The workflow run journal in ``history.db``; opening marks runs whose process died as interrupted."""
    from relavium_desktop.store.runs import RunStore

    return RunStore.open(home)


def grant_store(home: Path) -> GrantStore:
    """The per-project permission grants in ``history.db``; the host answers their path questions."""
    from relavium_desktop.host.fs.preview import HOST_GRANT_PATHS

    return GrantStore.open(home, HOST_GRANT_PATHS)
