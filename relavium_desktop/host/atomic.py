"""Replace a small settings file so a crash or a full disk never leaves half of it.

Every file a user may have edited by hand (providers.yaml, mcp.yaml,
plugins.yaml) and the caches next to them go through this one path: write a
sibling temp file, fsync it, rename it over the old one, then fsync the folder
so the rename itself survives a power cut.  A failed write removes its temp
file and leaves the old file exactly as it was.

Before the old file is replaced, it is kept as ``NAME.bak`` (one copy, the
last version that was on disk -- the stores refuse to edit a file that does
not parse, so that copy is a good one).  A broken file can be put right from
it by hand, and the loaders point to it.  A failure names the file the user
knows (``providers.yaml``), not the temp file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

OWNER_ONLY = 0o600
BACKUP_SUFFIX = ".bak"


def backup_path(path: Path) -> Path:
    """Where the last good version of ``path`` is kept."""
    return path.with_name(path.name + BACKUP_SUFFIX)


def write_text_atomic(path: Path, text: str, *, mode: int = OWNER_ONLY, keep_backup: bool = True) -> None:
    """Put ``text`` at ``path`` in one step (OSError naming ``path`` when it cannot be written; the old file stays).

    With ``keep_backup`` the file being replaced is first copied to
    ``NAME.bak`` (atomically too); no backup is made of a file that was not there.
    """
    data = text.encode("utf-8")  # before any file is touched: unencodable text changes nothing
    try:
        if keep_backup:
            try:
                old = path.read_bytes()
            except FileNotFoundError:
                old = None
            if old is not None:
                _replace_bytes(backup_path(path), old, OWNER_ONLY)
        _replace_bytes(path, data, mode)
    except OSError as exc:
        if exc.filename == str(path):
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc


def _replace_bytes(path: Path, data: bytes, mode: int) -> None:
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # the rename's durability, where the OS allows a folder fsync
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def backup_note(path: Path) -> str:
    """``"; the last good version is in NAME.bak"`` when one exists, else ``""`` (for error messages)."""
    bak = backup_path(path)
    return f"; the last good version is kept in {bak.name}" if bak.is_file() else ""
