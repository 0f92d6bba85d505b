"""Which media a scope (a chat session, a run) may read: one small append-only file per scope.

Knowing a sha256 is not authorisation (spec, read_media row): a handle is
readable only in the scope that produced or received it.  The store itself
is shared by every chat and run, so the grant lives beside it, under
``<media root>/scopes/<sha256 of the scope name>.jsonl`` -- one JSON line
per granted object, carrying what ``read_media`` describes (mime type,
size, dimensions), because the CAS keeps bytes only.

Why files and not history.db: the store layer may not import the host, the
grant must exist before the tool result that names the handle is stored,
and a line append (well under PIPE_BUF, ``O_APPEND``) is atomic without a
lock.  Why the scope name is hashed: it comes from session and run ids and
must never become a path by itself.  A deleted session leaves its small
file behind; it grants nothing to anyone else.  Garbage collection does
not read these files: an object only a scope file names is unreferenced.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from relavium_desktop.host.media.handles import check_sha

SCOPES_DIR = "scopes"
# A scope file larger than this is not read further: thousands of grants, far
# beyond a real chat; later grants in it are then refused, which fails closed.
MAX_SCOPE_FILE_BYTES = 4 * 1024 * 1024
_MAX_LINE = 512


def scope_file_name(scope: str) -> str:
    return hashlib.sha256(scope.encode("utf-8")).hexdigest()[:40] + ".jsonl"


class ScopeIndex:
    """Grants of media objects to scopes, under ``root/scopes``."""

    def __init__(self, root: Path) -> None:
        self.dir = root / SCOPES_DIR

    def grant(self, scope: str, entry: dict[str, Any]) -> None:
        """Record that ``scope`` may read the object ``entry["sha256"]`` (idempotent)."""
        check_sha(str(entry.get("sha256")))
        if self.lookup(scope, entry["sha256"]) is not None:
            return
        line = json.dumps(entry, separators=(",", ":"), sort_keys=True) + "\n"
        if len(line) > _MAX_LINE:
            raise ValueError("a media grant line is too long")
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = self.dir / scope_file_name(scope)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)

    def lookup(self, scope: str, sha256: str) -> dict[str, Any] | None:
        """The granted entry for ``sha256`` in ``scope``, or None (not granted here)."""
        check_sha(sha256)
        path = self.dir / scope_file_name(scope)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except (FileNotFoundError, OSError):
            return None  # no grants, or not a plain file: nothing is granted
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(MAX_SCOPE_FILE_BYTES)
        for raw in data.splitlines():
            if sha256.encode() not in raw:
                continue
            with contextlib.suppress(ValueError):
                entry = json.loads(raw)
                if isinstance(entry, dict) and entry.get("sha256") == sha256:
                    return entry
        return None
