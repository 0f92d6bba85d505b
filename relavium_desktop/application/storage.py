"""history.db's health, for every surface: is it usable, move a damaged one aside, salvage what is readable.

The window's storage banner and the CLI's error line both ask here, so a
damaged, locked, full or read-only history.db (or a full disk under any data
file) is named the same way -- which file, why -- wherever it shows.  The
surfaces import this module only when they need it: it loads the store and
sqlite3, which the window keeps off its first paint.
"""

from __future__ import annotations

import errno
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.host.history_recovery import Recovery, RecoveryFailed
from relavium_desktop.host.history_recovery import recover as _recover
from relavium_desktop.store.db import SchemaTooNewError, StorageError, disk_full, storage_error
from relavium_desktop.store.db import check_history as _check_history
from relavium_desktop.store.db import move_aside as _move_aside

__all__ = [
    "Recovery",
    "RecoveryFailed",
    "SchemaTooNewError",
    "StorageError",
    "check_history",
    "describe_storage_failure",
    "disk_full",
    "move_history_aside",
    "salvage_history",
    "start_spill_sweep",
    "storage_error",
]

_FULL = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))
_READ_ONLY = (errno.EACCES, errno.EPERM, errno.EROFS)


def check_history(paths: AppPaths) -> StorageError | None:
    """Open, read and write history.db once: its problem, or None when it is usable."""
    return _check_history(paths.history_db)


def move_history_aside(paths: AppPaths) -> Path:
    """Rename a damaged history.db (kept, under a timestamped name) so the next open starts empty; the new path."""
    return _move_aside(paths.history_db)


def salvage_history(damaged: Path, paths: AppPaths) -> Recovery:
    """Recover what is readable from ``damaged`` into a new history.db; ``RecoveryFailed`` when nothing is."""
    return _recover(damaged, paths.history_db)


def start_spill_sweep(paths: AppPaths, older_than_seconds: float) -> threading.Thread:
    """Delete spilled tool output under ``paths`` older than ``older_than_seconds``, in a daemon thread."""
    from relavium_desktop.host.output_store import start_sweep

    return start_sweep(paths.home, older_than_seconds)


def describe_storage_failure(exc: BaseException, paths_of: Callable[[], AppPaths]) -> str | None:
    """The one-line description of ``exc`` when it is a storage failure (file and cause), else None.

    Follows the exception's causes, so a failure wrapped by a command is still
    recognised.  ``paths_of`` is called only when a SQLite error needs
    history.db's path, so a surface that fails before choosing its data folder
    does not choose one just to describe an unrelated error.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        found = _describe(current, paths_of)
        if found is not None:
            return found
        current = current.__cause__ or current.__context__
    return None


def _describe(exc: BaseException, paths_of: Callable[[], AppPaths]) -> str | None:
    if isinstance(exc, StorageError):
        return exc.describe()
    if isinstance(exc, SchemaTooNewError):  # already names history.db and what to do
        return str(exc)
    if isinstance(exc, sqlite3.Error):
        problem = storage_error(exc, paths_of().history_db)
        return problem.describe() if problem is not None else None
    if isinstance(exc, OSError) and exc.errno is not None:
        target = Path(exc.filename) if exc.filename else None
        name = target.name if target is not None else "a file"
        if exc.errno in _FULL or (exc.errno == errno.EIO and target is not None and disk_full(target.parent)):
            where = target.parent if target is not None else "the data folder"
            return f"cannot write {name}: the disk holding {where} is full"
        if exc.errno in _READ_ONLY and target is not None:
            return f"cannot use {name}: permission denied or a read-only file system ({target})"
    return None
