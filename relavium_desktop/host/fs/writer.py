"""write_file: atomic replace or O_APPEND, inside the write floor.

A write goes to a fresh temporary file in the same directory (opened
``O_EXCL|O_NOFOLLOW`` relative to the parent's descriptor), is fsynced and
then renamed over the target, and the directory is fsynced: a crash or
SIGKILL at any point leaves the old file or the new one, never a torn or
empty one.  The existing file's permission bits (and owner, where allowed)
carry over.  An append is one ``O_APPEND`` write so concurrent appenders do
not lose lines.  A regular file with more than one hard link is refused, by
the same check reads use (``walk.refuse_hard_link``): the other name may sit
outside the roots or on a floor.  An append checks the descriptor it writes
through (``walk.admit_descriptor``: ``fstat`` after the open, then the name
must still be that inode).  A replace checks the name with ``fstatat``: it
never writes through the old inode - the rename swaps the directory entry,
so a hard link planted after the check is unlinked from here, not written -
and the check only keeps the refusal uniform and stops the new file taking
its mode and owner from a file elsewhere.  An append that fails part way
(a full disk) is truncated back to the length it started from, so it, too,
is whole or not at all.

With a :class:`~relavium_desktop.host.fs.checkpoints.Checkpointer` the bytes
about to be replaced (read through the same parent descriptor) are kept in
the media store first, and the record is handed over only once the write
succeeded, so every successful write can be taken back.  The result counts
the lines the write added and removed (a line diff of old and new).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.errors import InvalidArgsError, ToolFailedError
from relavium_desktop.host.fs import checkpoints as cp
from relavium_desktop.host.fs.policy import PathPolicy
from relavium_desktop.host.fs.roots import join
from relavium_desktop.host.fs.walk import (
    NOFOLLOW,
    WalkHook,
    admit_descriptor,
    changed_while_opening,
    open_path,
    refuse_hard_link,
)

if TYPE_CHECKING:
    from relavium_desktop.engine.tools.call_origin import CallOrigin

log = logging.getLogger(__name__)

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DISK_FULL = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def write_file(
    policy: PathPolicy,
    raw: str,
    content: str,
    *,
    append: bool,
    create_parents: bool,
    hook: WalkHook | None = None,
    checkpoints: cp.Checkpointer | None = None,
    origin: CallOrigin | None = None,
) -> dict[str, Any]:
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgsError("content is not valid Unicode text (lone surrogate)") from None
    opened = open_path(policy, raw, "parent", purpose="write", create_parents=create_parents, hook=hook)
    assert opened.name is not None
    keeper = checkpoints if origin is not None else None
    checkpoint_id: str | None = None
    try:
        before = _before(opened.fd, opened.name, whole=keeper is not None or not append)
        counts = cp.line_counts(before, data, append=append)
        # The before-content is kept (and the result hashed) beside the write, not ahead of it:
        # both end in an fsync, and the record waits for both.
        job = keeper.begin(before, data, append=append) if keeper is not None else None
        try:
            if append:
                _append(opened.fd, opened.name, data, hook)
            else:
                _replace(opened.fd, opened.name, data)
        finally:
            kept = job.result() if job is not None else None
        if keeper is not None and origin is not None and kept is not None:
            checkpoint_id = _record(keeper, origin, join(opened.canonical), before, kept, counts=counts)
    except OSError as exc:
        if exc.errno in _DISK_FULL:
            where = policy.display(opened.canonical)
            raise ToolFailedError(f"cannot write {where}: the disk is full (nothing was written)") from None
        raise
    finally:
        opened.close()
    result: dict[str, Any] = {
        "path": policy.display(opened.canonical),
        "bytesWritten": len(data),
        "linesAdded": counts[0],
        "linesRemoved": counts[1],
    }
    if checkpoint_id is not None:
        result["checkpointId"] = checkpoint_id
    return result


def _before(dir_fd: int, name: str, *, whole: bool) -> cp.Before:
    """The content about to change; for an uncheckpointed append only whether it ends a line."""
    if whole:
        return cp.read_before(dir_fd, name)
    try:
        fd = os.open(name, os.O_RDONLY | NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return cp.MISSING
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
            return cp.Before(exists=True, size=0, data=b"")
        last = os.pread(fd, 1, st.st_size - 1)
        return cp.Before(exists=True, size=st.st_size, data=last)
    finally:
        os.close(fd)


def _record(
    keeper: cp.Checkpointer,
    origin: CallOrigin,
    path: str,
    before: cp.Before,
    kept: cp.Kept,
    *,
    counts: tuple[int, int],
) -> str | None:
    """Hand the record of a write that succeeded to the sink; a sink failure costs the undo, not the write."""
    try:
        return keeper.record(origin, path, before, kept.after_sha256, counts, kept=kept.kept)
    except Exception as exc:  # noqa: BLE001 -- the sink is history.db (any storage fault); the write stands
        log.warning("the write succeeded but its checkpoint could not be recorded: %s", type(exc).__name__)
        return None


def _append(dir_fd: int, name: str, data: bytes, hook: WalkHook | None = None) -> None:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
    try:
        fd = os.open(name, flags, 0o666, dir_fd=dir_fd)
    except IsADirectoryError:
        raise ToolFailedError("the path names a folder, not a file") from None
    except OSError as exc:
        if exc.errno in (getattr(os, "ELOOP", 40),):
            raise changed_while_opening() from None
        raise
    try:
        if hook is not None:
            hook("opened", name)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ToolFailedError("the path is not a regular file")
        admit_descriptor(fd, dir_fd, name)
        _append_whole(fd, data)
    finally:
        os.close(fd)


def _append_whole(fd: int, data: bytes) -> None:
    """Append ``data`` entirely or not at all: a failed write (a full disk) is cut off again.

    With ``O_APPEND`` each write lands at the end; after a short write the
    next one raises (``ENOSPC``).  Then the file is truncated back to where
    this append began -- but only while it still ends where this append's
    bytes end, so a concurrent appender's line written after ours is never cut.
    """
    start = os.fstat(fd).st_size
    done = 0
    view = memoryview(data)
    try:
        while view:
            written = os.write(fd, view)
            done += written
            view = view[written:]
        os.fsync(fd)
    except BaseException:
        if done:
            with contextlib.suppress(OSError):
                end = os.lseek(fd, 0, os.SEEK_CUR)  # where our last write ended
                if os.fstat(fd).st_size == end and end - done >= start:
                    os.ftruncate(fd, end - done)
        raise


def replace_at(
    dir_fd: int, name: str, data: bytes, *, before_rename: Callable[[], None] | None = None
) -> None:
    """Atomically make ``name`` in ``dir_fd`` hold ``data`` (a restore uses it; see :func:`_replace`)."""
    _replace(dir_fd, name, data, before_rename)


def _replace(dir_fd: int, name: str, data: bytes, before_rename: Callable[[], None] | None = None) -> None:
    try:
        old: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        old = None
    if old is not None:
        if stat.S_ISDIR(old.st_mode):
            raise ToolFailedError("the path names a folder, not a file")
        if not stat.S_ISREG(old.st_mode):
            raise ToolFailedError("the path is not a regular file")
        refuse_hard_link(old)
    tmp = f".{name[:80]}.{uuid.uuid4().hex[:12]}.relavium-tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | _CLOEXEC
    fd = os.open(tmp, flags, 0o600 if old is not None else 0o666, dir_fd=dir_fd)
    try:
        try:
            _write_all(fd, data)
            if old is not None:
                with contextlib.suppress(OSError):
                    os.fchown(fd, old.st_uid, old.st_gid)
                os.fchmod(fd, stat.S_IMODE(old.st_mode))
            os.fsync(fd)
        finally:
            os.close(fd)
        if before_rename is not None:
            before_rename()  # a test seam: the temp is whole and synced, the target still the old file
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)
