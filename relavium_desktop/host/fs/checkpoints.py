"""Checkpoints: what a file held before the agent wrote it, kept so the write can be taken back.

Before a write the file host reads the file's current bytes through the
parent descriptor it is about to write through (so what is kept is exactly
what is replaced) and publishes them to the content-addressed media store;
only after the write succeeded is a :class:`CheckpointRecord` handed to the
sink (history.db, owned by the application layer).  A write that fails
leaves no record, and the blob it published is one nobody references, which
the media store's gc reclaims.

A restore is a write too: :func:`restore_path` opens the path through the
same :class:`PathPolicy` (roots, tiers, read and write floors), checks the
file still holds what the agent wrote (else :class:`ConflictError`), keeps
what it holds now (so the undo can itself be undone) and then replaces it
atomically with :func:`writer.replace_at` -- or unlinks it, undoing a creation.

Line counts are from a line diff of the bytes (common head and tail trimmed,
then :mod:`difflib` on what is left), so they are exact for the diff a card
shows, binary files included.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import hashlib
import logging
import os
import stat
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.engine.tools.call_origin import CallOrigin
from relavium_desktop.host.fs.policy import PathPolicy, Purpose
from relavium_desktop.host.fs.roots import join
from relavium_desktop.host.fs.walk import NOFOLLOW, WalkHook, open_path
from relavium_desktop.host.media.errors import MediaError
from relavium_desktop.host.media.store import MEDIA_OBJECT_CEILING, MediaStore

log = logging.getLogger(__name__)

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1024 * 1024
# Before-content larger than this is not kept (the media store's ceiling); the write still happens.
KEEP_LIMIT = MEDIA_OBJECT_CEILING
# Above this many lines on each side the middle of a diff is counted, not aligned (difflib is quadratic).
_ALIGN_LIMIT = 20_000

CHAT_PREFIX = "chat-"
TOOL_PREFIX = "tool-"


@dataclass(frozen=True, slots=True)
class CheckpointRecord:
    """One kept write, as the sink stores it (paths absolute and canonical, times epoch seconds)."""

    id: str
    scope: str  # "chat" | "run" | "tool": whose write it was
    scope_id: str  # the chat session id, the workflow run id, or the one-off tool call's run id
    kind: str  # "write" (a tool's write) | "undo" (the content a restore replaced)
    node_id: str | None
    tool_call_id: str | None
    path: str
    project: str | None
    before_sha256: str | None  # None: the file did not exist
    before_kept: bool  # False when the before-content was too large to keep
    after_sha256: str | None  # None: the change left no file (an undone creation)
    size: int  # bytes of the kept before-content
    lines_added: int
    lines_removed: int
    created_at: float
    undoes: tuple[str, ...] = ()  # for kind "undo": the checkpoints that restore took back


class CheckpointSink(Protocol):
    """Where records go once their write succeeded (history.db's ``checkpoints`` table)."""

    def record(self, record: CheckpointRecord) -> None: ...


def scope_of(run_id: str) -> tuple[str, str]:
    """("chat", session) for a chat's ``chat-<session>``, ("tool", run id) for a one-off call, else ("run", id)."""
    if run_id.startswith(CHAT_PREFIX):
        return "chat", run_id[len(CHAT_PREFIX) :]
    if run_id.startswith(TOOL_PREFIX):
        return "tool", run_id
    return "run", run_id


@dataclass(frozen=True, slots=True)
class Before:
    """What a path held before a change: nothing, or bytes (``data`` None when too large to keep)."""

    exists: bool
    sha256: str | None = None
    data: bytes | None = None
    size: int = 0
    lines: int = 0  # counted while reading, for contents too large to diff
    hasher: hashlib._Hash | None = None  # the running hash of the bytes (to hash an append's result)


MISSING = Before(exists=False)


class ConflictError(ToolFailedError):
    """The file no longer holds what the agent wrote: someone changed it since."""


def read_before(dir_fd: int, name: str) -> Before:
    """Read ``name`` in ``dir_fd`` without following a symlink; MISSING when it does not exist.

    A name that is not a regular file reads as existing with no data: the
    write refuses it anyway.
    """
    try:
        fd = os.open(name, os.O_RDONLY | NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, dir_fd=dir_fd)
    except FileNotFoundError:
        return MISSING
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.EACCES):
            return Before(exists=True)
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return Before(exists=True)
        hasher = hashlib.sha256()
        parts: list[bytes] = []
        size = lines = 0
        keep = st.st_size <= KEEP_LIMIT
        last = b""
        while chunk := os.read(fd, _CHUNK):
            size += len(chunk)
            hasher.update(chunk)
            lines += chunk.count(b"\n")
            last = chunk[-1:]
            if keep:
                parts.append(chunk)
                if size > KEEP_LIMIT:
                    keep, parts = False, []
        if last and last != b"\n":
            lines += 1
        data = b"".join(parts) if keep else None
        return Before(True, hasher.hexdigest(), data, size, lines, hasher)
    finally:
        os.close(fd)


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def line_counts(before: Before, new: bytes, *, append: bool) -> tuple[int, int]:
    """(lines added, lines removed) by a line diff of the old content and ``new`` (the whole new content).

    For an append ``new`` is only the appended bytes: the old lines stay,
    save a last line without its newline, which the append changes.
    """
    if append:
        if not new:
            return 0, 0
        joined = (
            before.exists and before.size > 0 and before.data is not None and not before.data.endswith(b"\n")
        )
        if before.data is None and before.exists and before.size:
            joined = False  # unknown tail of a file too large to keep: counted as a clean append
        added = len(_lines(new))
        return (added, 1) if joined else (added, 0)
    if not before.exists:
        return len(_lines(new)), 0
    if before.data is None:
        return len(_lines(new)), before.lines
    return diff_counts(before.data, new)


def diff_counts(old: bytes, new: bytes) -> tuple[int, int]:
    a, b = _lines(old), _lines(new)
    head = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        head += 1
    tail = 0
    for x, y in zip(reversed(a[head:]), reversed(b[head:]), strict=False):
        if x != y:
            break
        tail += 1
    a_mid, b_mid = a[head : len(a) - tail], b[head : len(b) - tail]
    if not a_mid or not b_mid:
        return len(b_mid), len(a_mid)
    if len(a_mid) > _ALIGN_LIMIT or len(b_mid) > _ALIGN_LIMIT:
        return len(b_mid), len(a_mid)
    matched = sum(
        block.size
        for block in difflib.SequenceMatcher(None, a_mid, b_mid, autojunk=False).get_matching_blocks()
    )
    return len(b_mid) - matched, len(a_mid) - matched


@dataclass(frozen=True, slots=True)
class Kept:
    kept: bool  # the before-content is in the media store
    after_sha256: str  # what the file holds once the write is done


class Checkpointer:
    """Keeps before-content in the media store and hands records to the sink (one per file host)."""

    def __init__(self, media: MediaStore, sink: CheckpointSink, project: str | None) -> None:
        self.media = media
        self.sink = sink
        self.project = project
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def begin(self, before: Before, data: bytes, *, append: bool) -> Future[Kept]:
        """Start keeping ``before`` and hashing the written result, on a worker beside the write."""
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="relavium-checkpoint")
            pool = self._pool
        return pool.submit(self._keep, before, data, append)

    def _keep(self, before: Before, data: bytes, append: bool) -> Kept:
        if append and before.exists and before.hasher is not None:
            hasher = before.hasher.copy()
            hasher.update(data)
        else:
            hasher = hashlib.sha256(data)
        return Kept(self.keep(before), hasher.hexdigest())

    def keep(self, before: Before) -> bool:
        """Publish the before-content; False when it cannot be kept (absent, too large, the store failing).

        A store that cannot take it (a full disk, damage) costs the undo of
        this write, never the write: the record then says nothing was kept.
        """
        if not before.exists or before.data is None:
            return False
        try:
            self.media.publish_bytes(before.data)
        except (MediaError, ToolFailedError, OSError) as exc:
            log.warning("could not keep the file's content before writing it: %s", _why(exc))
            return False
        return True

    def record(
        self,
        origin: CallOrigin,
        path: str,
        before: Before,
        after_sha256: str | None,
        counts: tuple[int, int],
        *,
        kept: bool,
    ) -> str:
        scope, scope_id = scope_of(origin.run_id)
        checkpoint_id = new_checkpoint_id()
        self.sink.record(
            CheckpointRecord(
                id=checkpoint_id,
                scope=scope,
                scope_id=scope_id,
                kind="write",
                node_id=origin.node_id,
                tool_call_id=origin.tool_call_id,
                path=path,
                project=self.project,
                before_sha256=before.sha256 if before.exists else None,
                before_kept=kept,
                after_sha256=after_sha256,
                size=before.size if kept else 0,
                lines_added=counts[0],
                lines_removed=counts[1],
                created_at=time.time(),
            )
        )
        return checkpoint_id


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return str(exc)


def new_checkpoint_id() -> str:
    return "cp-" + uuid.uuid4().hex[:16]


# -- restoring ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Current:
    """What a path holds now, admitted for writing by its policy."""

    path: str  # canonical absolute
    exists: bool
    sha256: str | None


def inspect(policy: PathPolicy, path: str, hook: WalkHook | None = None) -> Current:
    """The path's current state, through the write policy (ToolDeniedError when it may not be written)."""
    canonical, before = _read(policy, path, "write", hook)
    return Current(canonical, before.exists, before.sha256)


def read_path(policy: PathPolicy, path: str, hook: WalkHook | None = None) -> Before:
    """What the path holds now, read through the read policy (for showing a diff)."""
    return _read(policy, path, "read", hook)[1]


def _read(policy: PathPolicy, path: str, purpose: Purpose, hook: WalkHook | None) -> tuple[str, Before]:
    opened = open_path(policy, path, "parent", purpose=purpose, create_parents=False, hook=hook)
    try:
        assert opened.name is not None
        return join(opened.canonical), read_before(opened.fd, opened.name)
    finally:
        opened.close()


def restore_path(
    policy: PathPolicy,
    path: str,
    data: bytes | None,
    *,
    expect: str | None,
    check: bool,
    keep: Callable[[Before, str], None],
    before_rename: Callable[[], None] | None = None,
    hook: WalkHook | None = None,
) -> Before:
    """Put ``data`` at ``path`` (None: remove it), atomically, through ``policy``'s write admission.

    With ``check`` the path must hold ``expect`` (a sha256, None for "no
    file"), else :class:`ConflictError`.  ``keep(current, canonical)`` runs
    before anything changes, with what the path holds now; it raises to stop
    the restore.  Returns what the path held.
    """
    from relavium_desktop.host.fs import writer

    opened = open_path(policy, path, "parent", purpose="write", create_parents=data is not None, hook=hook)
    try:
        assert opened.name is not None
        current = read_before(opened.fd, opened.name)
        if current.exists and current.sha256 is None:
            raise ToolFailedError("the path is no longer a regular file")
        if check and current.sha256 != expect:
            raise ConflictError("the file changed since the agent wrote it")
        keep(current, join(opened.canonical))
        if data is None:
            if current.exists:
                os.unlink(opened.name, dir_fd=opened.fd)
                with contextlib.suppress(OSError):
                    os.fsync(opened.fd)
        else:
            writer.replace_at(opened.fd, opened.name, data, before_rename=before_rename)
    finally:
        opened.close()
    return current
