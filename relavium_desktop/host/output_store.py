"""Run-scoped spill files under ``runs/<run-id>/``.

Spills hold full tool output that was too large for the model; they live
until the run's terminal event reclaims the folder.  Writes go through a
worker thread so a large spill never stalls the event loop, and run ids are
checked so no id can name a path outside ``runs/``.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import uuid
from pathlib import Path
from typing import BinaryIO

from relavium_desktop.engine.host import SpillInfo

_RUN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_LABEL_RE = re.compile(r"[^A-Za-z0-9._-]+")


class FileOutputStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def run_dir(self, run_id: str) -> Path:
        if not _RUN_ID_RE.match(run_id) or run_id in (".", ".."):
            raise ValueError("invalid run id")
        path = self.root / run_id
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        return path

    def new_path(self, run_id: str, label: str, suffix: str = ".txt") -> Path:
        safe = _LABEL_RE.sub("_", label)[:40] or "output"
        return self.run_dir(run_id) / f"{safe}-{uuid.uuid4().hex[:12]}{suffix}"

    def open_stream(self, run_id: str, label: str) -> tuple[Path, BinaryIO]:
        """A file a host streams into as bytes arrive (stream-and-spill at the source)."""
        path = self.new_path(run_id, label, ".out")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        return path, os.fdopen(fd, "wb")

    async def spill(self, run_id: str, label: str, text: str) -> SpillInfo:
        return await asyncio.to_thread(self._spill_sync, run_id, label, text)

    def _spill_sync(self, run_id: str, label: str, text: str) -> SpillInfo:
        data = text.encode("utf-8", "surrogatepass")
        path = self.new_path(run_id, label)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        return SpillInfo(str(path), len(data))

    async def reclaim(self, run_id: str) -> None:
        if not _RUN_ID_RE.match(run_id):
            return
        await asyncio.to_thread(shutil.rmtree, self.root / run_id, True)
