"""Run-scoped spill files under ``runs/<run-id>/``.

Spills hold full tool output that was too large for the model.  One run
(one CLI call, one workflow run, one chat session) has one folder; the
host's file tools can read that folder and nothing else under ``runs/``
(:class:`~relavium_desktop.host.fs.policy.SpillScope`).  A folder lives
until the run's terminal event reclaims it (completed, failed, cancelled;
a run paused at a human gate keeps it), a chat session's until the session
is deleted, and whatever is left (a ``relavium tool call``'s spill, a crash)
until :func:`sweep_spills` finds it older than the retention period.

Writes go through a worker thread so a large spill never stalls the event
loop, and run ids are checked so no id can name a path outside ``runs/``.
Every spill is masked before it stays on disk: a text spill as it is
written, a streamed one when its file is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import re
import shutil
import stat
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from relavium_desktop.engine.host import SpillInfo
from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.host.fs.policy import SpillScope, live_spill_scopes

log = logging.getLogger(__name__)

_RUN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_LABEL_RE = re.compile(r"[^A-Za-z0-9._-]+")

# A chat session's tool calls spill under this run id (the engine's ChatSession uses it).
CHAT_RUN_PREFIX = "chat-"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def valid_run_id(run_id: str) -> bool:
    return bool(_RUN_ID_RE.match(run_id)) and run_id not in (".", "..")


def chat_spill_scope(session_id: str) -> str:
    """The run id a chat session's tool calls spill under."""
    return f"{CHAT_RUN_PREFIX}{session_id}"


class FileOutputStore:
    """Spill files under ``root`` (``$RELAVIUM_HOME/runs``).

    With a ``scope`` the store also tells the file tools which run folder
    they may read: the run bound at host build, or else the first run this
    store spills for; reclaiming that run unbinds it.
    """

    def __init__(self, root: Path, scope: SpillScope | None = None) -> None:
        self.root = root
        self.scope = scope

    def _folder(self, run_id: str) -> Path:
        if not valid_run_id(run_id):
            raise ValueError("invalid run id")
        path = self.root / run_id
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        return path

    def run_dir(self, run_id: str) -> Path:
        path = self._folder(run_id)
        if self.scope is not None:
            # A host built without a run id adopts the first run it spills for; a
            # bound host keeps its run (another run's spill is written, not readable).
            self.scope.bind(run_id, path, replace_bound=False)
        return path

    def bind(self, run_id: str) -> Path:
        """Create ``runs/<run_id>/`` and make it the one run folder the file tools may read."""
        path = self._folder(run_id)
        if self.scope is not None:
            self.scope.bind(run_id, path)
        return path

    def new_path(self, run_id: str, label: str, suffix: str = ".txt") -> Path:
        safe = _LABEL_RE.sub("_", label)[:40] or "output"
        return self.run_dir(run_id) / f"{safe}-{uuid.uuid4().hex[:12]}{suffix}"

    def open_stream(self, run_id: str, label: str) -> tuple[Path, BinaryIO]:
        """A file a host streams into as bytes arrive (stream-and-spill at the source).

        Masked when it is closed (:class:`MaskedSpillFile`): a credential
        split between two chunks is whole by then.
        """
        path = self.new_path(run_id, label, ".out")
        return path, MaskedSpillFile(path)

    async def spill(self, run_id: str, label: str, text: str) -> SpillInfo:
        return await asyncio.to_thread(self._spill_sync, run_id, label, text)

    def _spill_sync(self, run_id: str, label: str, text: str) -> SpillInfo:
        data = mask_text(text).encode("utf-8", "surrogatepass")
        path = self.new_path(run_id, label)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        return SpillInfo(str(path), len(data))

    async def reclaim(self, run_id: str) -> None:
        """Remove the run's folder (its terminal event); the file tools lose it too."""
        if self.scope is not None:
            self.scope.unbind(run_id)
        await asyncio.to_thread(remove_run_folder, self.root, run_id)


def _create_exclusive(path: str, flags: int) -> int:
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)


class MaskedSpillFile(io.FileIO):
    """A new spill file (never an existing one, never through a link) masked in place when closed.

    A host streams raw output into it in chunks of any size; masking the
    chunks would miss a credential cut in two, so the whole file is masked
    once it is complete (:func:`mask_spill_file`).
    """

    def __init__(self, path: Path) -> None:
        super().__init__(str(path), "wb", opener=_create_exclusive)
        self.path = path

    def close(self) -> None:
        if self.closed:
            return
        super().close()
        mask_spill_file(self.path)


# Masked a block at a time so a large spill never sits in memory whole; blocks
# end at a line break, so a credential is cut only if one line is longer.
_MASK_BLOCK = 4 * 1024 * 1024


def _blocks(fh: BinaryIO) -> Iterator[bytes]:
    rest = b""
    while chunk := fh.read(_MASK_BLOCK):
        data = rest + chunk
        cut = data.rfind(b"\n", 0, len(data) - 1) + 1  # keep the last line with the next block
        if cut <= 0 or len(data) < _MASK_BLOCK:
            rest = data
            continue
        yield data[:cut]
        rest = data[cut:]
    if rest:
        yield rest


def mask_spill_file(path: Path) -> None:
    """Rewrite the spill at ``path`` with every credential masked (untouched when there is none).

    Bytes that are not UTF-8 are carried through unchanged (surrogate escapes).
    """
    tmp = path.with_name(path.name + ".masking")
    changed = False
    try:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()  # left by a crash mid-mask
        with open(path, "rb") as src, open(_create_exclusive(str(tmp), 0), "wb") as dst:
            for block in _blocks(src):
                text = block.decode("utf-8", "surrogateescape")
                masked = mask_text(text)
                changed = changed or masked != text
                dst.write(masked.encode("utf-8", "surrogateescape"))
        if changed:
            os.replace(tmp, path)
    except OSError as exc:
        log.warning("could not mask the spill file %s: %s", path.name, exc.strerror or exc)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def remove_run_folder(runs: Path, run_id: str) -> bool:
    """Remove ``runs/<run_id>/`` without following a symlink; False when there was none."""
    if not valid_run_id(run_id):
        return False
    try:
        runs_fd = os.open(runs, _DIR_FLAGS)
    except OSError:
        return False  # no runs folder (or it is a link): nothing of ours to remove
    try:
        try:
            st = os.stat(run_id, dir_fd=runs_fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        if not stat.S_ISDIR(st.st_mode):
            return False
        shutil.rmtree(run_id, dir_fd=runs_fd)
        return True
    except OSError as exc:
        log.warning("could not remove the spill folder %s: %s", run_id, exc.strerror or exc)
        return False
    finally:
        os.close(runs_fd)


def remove_spills(home: Path, run_id: str) -> bool:
    """Remove one run's spill folder under ``home/runs`` (a surface's delete hook)."""
    return remove_run_folder(home / "runs", run_id)


def remove_chat_spills(home: Path, session_id: str) -> bool:
    """Remove a chat session's spill folder: called when the session is deleted."""
    return remove_spills(home, chat_spill_scope(session_id))


def _newest_mtime(runs_fd: int, name: str) -> float | None:
    """The newest mtime in ``runs/<name>`` (the folder and everything in it), links not followed."""
    newest: float | None = None
    try:
        newest = os.stat(name, dir_fd=runs_fd, follow_symlinks=False).st_mtime
        for _dirpath, dirnames, filenames, dir_fd in os.fwalk(name, dir_fd=runs_fd, follow_symlinks=False):
            for entry in (*dirnames, *filenames):
                try:
                    mtime = os.stat(entry, dir_fd=dir_fd, follow_symlinks=False).st_mtime
                except FileNotFoundError:
                    continue
                newest = max(newest, mtime)
    except OSError:
        return None  # vanished or unreadable: left alone
    return newest


def sweep_spills(home: Path, older_than_seconds: float, *, now: float | None = None) -> list[str]:
    """Remove the run folders under ``home/runs`` whose newest mtime is older than the retention.

    Returns the removed run ids.  Only real folders directly in ``runs/``
    named like a run id are considered; a symlink is never followed (not
    ``runs`` itself, not an entry, not anything inside a folder), so nothing
    outside ``runs/`` is touched.  A folder modified within the retention is
    kept, and so is one a host of this process is bound to.  A non-positive
    retention sweeps nothing.  Blocking: call it from a worker thread.
    """
    if older_than_seconds <= 0:
        return []
    cutoff = (time.time() if now is None else now) - older_than_seconds
    try:
        runs_fd = os.open(home / "runs", _DIR_FLAGS)
    except OSError:
        return []  # no runs folder yet, or it is a symlink: nothing we own to sweep
    removed: list[str] = []
    try:
        in_use = live_spill_scopes()
        with os.scandir(runs_fd) as it:
            entries = list(it)
        for entry in entries:
            name = entry.name
            if not valid_run_id(name) or name in in_use or not entry.is_dir(follow_symlinks=False):
                continue
            newest = _newest_mtime(runs_fd, name)
            if newest is None or newest >= cutoff:
                continue
            try:
                shutil.rmtree(name, dir_fd=runs_fd)
            except OSError as exc:
                log.warning("could not sweep the spill folder %s: %s", name, exc.strerror or exc)
                continue
            removed.append(name)
    finally:
        os.close(runs_fd)
    if removed:
        log.info("swept %d spill folder(s) older than the retention", len(removed))
    return removed


def start_sweep(home: Path, older_than_seconds: float) -> threading.Thread:
    """Run :func:`sweep_spills` in a daemon thread (never on the caller's thread) and return it."""

    def sweep() -> None:
        try:
            sweep_spills(home, older_than_seconds)
        except Exception:
            log.exception("the spill sweep failed")

    thread = threading.Thread(target=sweep, name="relavium-spill-sweep", daemon=True)
    thread.start()
    return thread
