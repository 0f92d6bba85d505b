"""Find a command's executable on a search path the host controls.

The app's own ``PATH`` is never consulted: it may hold relative entries
(``.``, ``node_modules/.bin``) or user-writable folders that would let a file
the model wrote inside the workspace shadow an allowlisted command.  The host
searches a fixed list of system folders instead, or the absolute folders named
in ``RELAVIUM_COMMAND_PATH`` when the user configured one, and hands the child
exactly that list as its ``PATH``.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from relavium_desktop.engine.errors import ToolFailedError

# The variable a user sets to replace the default search path (os.pathsep-separated).
COMMAND_PATH_VAR = "RELAVIUM_COMMAND_PATH"

_POSIX_DIRS = (
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
)
_MACOS_EXTRA = ("/opt/homebrew/bin", "/opt/homebrew/sbin")


def _windows_dirs() -> tuple[str, ...]:
    root = os.environ.get("SYSTEMROOT", r"C:\Windows")
    program_files = os.environ.get("PROGRAMFILES", r"C:\Program Files")
    return (
        rf"{root}\System32",
        root,
        rf"{root}\System32\Wbem",
        rf"{program_files}\Git\cmd",
    )


def default_search_path(configured: str | None = None) -> tuple[str, ...]:
    """The folders the host searches, in order; only absolute, existing folders.

    ``configured`` is the user's explicit ``RELAVIUM_COMMAND_PATH`` value (None
    means the platform default).  Relative entries are dropped: they would
    resolve against the child's working directory, which the model can write.
    """
    if configured:
        candidates: Sequence[str] = [p for p in configured.split(os.pathsep) if p]
    elif sys.platform == "win32":
        candidates = _windows_dirs()
    elif sys.platform == "darwin":
        candidates = (*_MACOS_EXTRA, *_POSIX_DIRS)
    else:
        candidates = _POSIX_DIRS
    seen: list[str] = []
    for raw in candidates:
        entry = os.path.normpath(raw)
        if os.path.isabs(entry) and os.path.isdir(entry) and entry not in seen:
            seen.append(entry)
    return tuple(seen)


def command_not_found(command: str) -> ToolFailedError:
    # Names the command only: the search path can reveal usernames and layout.
    return ToolFailedError(
        f"command {command!r} was not found on the host's command search path "
        f"(set {COMMAND_PATH_VAR} to add folders)"
    )


def resolve_executable(command: str, search_path: Sequence[str], cwd: str) -> str:
    """The absolute executable ``command`` names, or ``tool_failed`` not-found.

    A bare name is looked up only on ``search_path``.  A name with a path
    separator (``./build.sh``, ``/usr/bin/env``) is taken as a file, relative to
    the already-admitted working directory; the allowlist matched that exact
    spelling, so no lookup may swap it for something else.
    """
    if not command or "\x00" in command:
        raise command_not_found(command)
    has_sep = os.sep in command or (os.altsep is not None and os.altsep in command)
    if has_sep:
        candidate = Path(cwd, command) if not os.path.isabs(command) else Path(command)
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
        raise command_not_found(command)
    found = shutil.which(command, path=os.pathsep.join(search_path)) if search_path else None
    # On Windows, which() also tries the app's current folder first; only a hit
    # inside one of the host's own folders counts.
    if found is None or not os.path.isabs(found) or os.path.dirname(found) not in search_path:
        raise command_not_found(command)
    return found
