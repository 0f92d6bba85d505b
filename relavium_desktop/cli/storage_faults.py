"""One line for a data file the command could not use: which file, and why.

A damaged ``history.db``, a full disk or a read-only data folder is not an
internal error: the user can act on it, so every command says it the same
way -- ``relavium: history.db is not a database or is damaged (/path)`` or
``relavium: cannot write providers.yaml: the disk holding /path is full`` --
instead of SQLite's "disk I/O error" or Python's ``[Errno 28]``.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

_FULL = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))
_READ_ONLY = (errno.EACCES, errno.EPERM, errno.EROFS)


def storage_fault(exc: BaseException) -> str | None:
    """The one-line description of ``exc`` when it is a storage failure, else None.

    Follows the exception's causes, so a failure wrapped by a command is
    still recognised.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        found = _describe(current)
        if found is not None:
            return found
        current = current.__cause__ or current.__context__
    return None


def _describe(exc: BaseException) -> str | None:
    from relavium_desktop.store.db import SchemaTooNewError, StorageError, disk_full, storage_error

    if isinstance(exc, StorageError):
        return exc.describe()
    if isinstance(exc, SchemaTooNewError):  # already names history.db and what to do
        return str(exc)
    if isinstance(exc, sqlite3.Error):
        problem = storage_error(exc, _history_path())
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


def report(line: str, as_json: bool) -> int:
    """Say ``line`` on stderr (and as the ``--json`` error document, code ``storage``); exit status 1."""
    import contextlib
    import sys

    with contextlib.suppress(OSError, ValueError):
        print(f"relavium: {line}", file=sys.stderr, flush=True)
    if as_json:
        from relavium_desktop.cli.jsonargs import print_json

        with contextlib.suppress(OSError, ValueError):
            print_json({"ok": False, "error": {"code": "storage", "message": line}}, flush=True)
    return 1


def _history_path() -> Path:
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.store.db import history_db_path

    return history_db_path(data_dir())
