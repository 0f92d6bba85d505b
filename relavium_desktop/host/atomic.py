"""Replace a small settings file so a crash or a full disk never leaves half of it.

Every file a user may have edited by hand (providers.yaml, mcp.yaml,
plugins.yaml) and the caches next to them go through this one path: write a
sibling temp file, fsync it, rename it over the old one, then fsync the folder
so the rename itself survives a power cut.  A failed write removes its temp
file and leaves the old file exactly as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

OWNER_ONLY = 0o600


def write_text_atomic(path: Path, text: str, *, mode: int = OWNER_ONLY) -> None:
    """Put ``text`` at ``path`` in one step (OSError when it cannot be written; the old file stays)."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
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
