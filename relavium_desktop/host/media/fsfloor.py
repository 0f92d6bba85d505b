"""Descriptor-relative opens under the pinned store root: never through a symlink.

Every step from the root to an object is opened with ``O_NOFOLLOW`` relative
to its parent's descriptor, so a symlinked shard or object is refused rather
than followed, and a check on one descriptor cannot be swapped for another
path afterwards.  This is a cooperating-storage floor (spec: not a jail
against a hostile same-user process).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from relavium_desktop.host.media.errors import MediaNotFoundError, MediaUnsafeError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_dir(name: str | Path, *, dir_fd: int | None = None) -> int:
    """Open a directory without following a symlink; missing → MediaNotFoundError."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        raise MediaNotFoundError("the media store has no such entry") from None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise MediaUnsafeError("a media store directory is a symlink or not a directory") from None
        raise


@contextlib.contextmanager
def dir_fd(name: str | Path, *, parent: int | None = None) -> Iterator[int]:
    fd = open_dir(name, dir_fd=parent)
    try:
        yield fd
    finally:
        os.close(fd)


def open_object(name: str, shard_fd: int) -> int:
    """Open one object read-only; a symlink in its place is refused, not followed."""
    try:
        return os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=shard_fd)
    except FileNotFoundError:
        raise MediaNotFoundError("no media object with that digest") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise MediaUnsafeError("a media object is a symlink") from None
        raise


def check_regular_single(st: os.stat_result, *, allow_detached: bool) -> None:
    """A regular file with one link (zero too for a reader racing a republish)."""
    if not stat.S_ISREG(st.st_mode):
        raise MediaUnsafeError("a media object is not a regular file")
    if st.st_nlink > 1 or (st.st_nlink == 0 and not allow_detached):
        raise MediaUnsafeError("a media object has extra hard links")


def fsync_dir(fd: int) -> None:
    """Make a directory entry change durable; filesystems that cannot are not an error."""
    with contextlib.suppress(OSError):
        os.fsync(fd)
