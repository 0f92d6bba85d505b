"""One line for a data file the command could not use: which file, and why.

A damaged ``history.db``, a full disk or a read-only data folder is not an
internal error: the user can act on it, so every command says it the same
way -- ``relavium: history.db is not a database or is damaged (/path)`` or
``relavium: cannot write providers.yaml: the disk holding /path is full`` --
instead of SQLite's "disk I/O error" or Python's ``[Errno 28]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from relavium_desktop.application.paths import AppPaths


def storage_fault(exc: BaseException, paths: AppPaths | None = None) -> str | None:
    """The one-line description of ``exc`` when it is a storage failure, else None.

    Follows the exception's causes, so a failure wrapped by a command is
    still recognised (``application.storage`` says it, as the window does).
    ``paths`` are the command's Application's; without them (the failure came
    before the command had one) history.db is looked for where the
    environment puts the data folder, and only when an SQLite error needs it.
    """
    from relavium_desktop.application.paths import AppPaths
    from relavium_desktop.application.storage import describe_storage_failure

    if paths is not None:
        known = paths
        return describe_storage_failure(exc, lambda: known)
    return describe_storage_failure(exc, AppPaths.from_environment)


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

