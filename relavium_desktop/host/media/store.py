"""The media CAS: ``<data dir>/media/objects/<2 hex>/<sha256>``, one object per digest.

Publication streams chunks through sha256 into an owner-private exclusive
temp in the root, fsyncs it, and renames it into place: a crash at any
point leaves either no object or a complete one (plus a temp for
:meth:`MediaStore.sweep_temporaries`).  Reads re-hash what they read, so a
bit flip on disk is refused instead of being handed to a model as if it
were the published bytes.  The 25 MiB ceiling bounds every publish and
every read before and while bytes move.

:meth:`MediaStore.verify` re-hashes every object and moves the ones that no
longer match their digest (garbled, truncated) to ``media/quarantine/``:
kept for inspection, out of the store, so nothing hands them out and a
re-publish of the same bytes lays down a good copy.  ``stats`` counts them
apart from intact objects, and ``gc`` verifies before it collects.
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import hashlib
import os
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from relavium_desktop.host.media import fsfloor
from relavium_desktop.host.media.errors import (
    MediaCorruptError,
    MediaNotFoundError,
    MediaTooLargeError,
    MediaUnsafeError,
)
from relavium_desktop.host.media.handles import check_sha, format_handle
from relavium_desktop.host.media.imagesize import ImageSizeSniffer
from relavium_desktop.host.media.temps import (
    DEFAULT_MIN_AGE_S,
    SweepReport,
    is_temp_candidate,
    new_temp_name,
    sweep_root,
)

MEDIA_OBJECT_CEILING = 25 * 1024 * 1024
READ_CHUNK = 1024 * 1024
FILE_CHUNK = 256 * 1024  # publish_file's read size: keeps peak RSS growth well under 2 MiB
GC_MIN_AGE_S = 3600.0  # an object published this recently may not be referenced *yet*
QUARANTINE = "quarantine"  # under the root: corrupt objects moved out of the store, kept for inspection


@dataclass(frozen=True, slots=True)
class MediaRef:
    sha256: str
    size: int
    mime: str
    width: int | None = None
    height: int | None = None

    @property
    def handle(self) -> str:
        return format_handle(self.sha256)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"handle": self.handle, "sha256": self.sha256, "size": self.size, "mime": self.mime}
        if self.width is not None:
            out["width"], out["height"] = self.width, self.height
        return out


# What this process published (digest -> ref, the newest few thousand): the
# MediaCapability admits into a scope only handles a producer in this process
# published -- read_file, an MCP result, a paste -- never a digest a model or
# a tool merely named.  The ref also keeps the mime type and dimensions the
# CAS (bytes only) does not.
_RECENT_MAX = 4096
_recent: OrderedDict[str, MediaRef] = OrderedDict()
_recent_lock = threading.Lock()


def _remember(ref: MediaRef) -> None:
    with _recent_lock:
        _recent[ref.sha256] = ref
        _recent.move_to_end(ref.sha256)
        while len(_recent) > _RECENT_MAX:
            _recent.popitem(last=False)


@dataclass
class VerifyReport:
    """What :meth:`MediaStore.verify` found: intact digests, corrupt ones (with why) and where they went."""

    intact: list[str] = field(default_factory=list)
    corrupt: dict[str, str] = field(default_factory=dict)
    moved: dict[str, str] = field(default_factory=dict)  # digest -> path under the media root

    def to_json(self) -> dict[str, object]:
        return {
            "intact": len(self.intact),
            "corrupt": [{"sha256": sha, "reason": why, "quarantined_to": self.moved.get(sha)}
                        for sha, why in sorted(self.corrupt.items())],
        }


def published_here(sha256: str) -> MediaRef | None:
    """The ref of an object this process published recently, else None."""
    with _recent_lock:
        return _recent.get(sha256)


def _too_large(size: int) -> MediaTooLargeError:
    return MediaTooLargeError(f"media object of {size} bytes or more exceeds the {MEDIA_OBJECT_CEILING}-byte limit")


class MediaStore:
    """One store root.  Reads, stats and GC never create it; the first publish does."""

    def __init__(self, root: Path, *, ceiling: int = MEDIA_OBJECT_CEILING) -> None:
        # The caller names the root (AppPaths.media, <home>/media): the host reads no environment.
        self.root = root
        self.ceiling = ceiling

    # -- publication -------------------------------------------------------

    def publish_stream(self, chunks: Iterable[bytes], mime: str) -> MediaRef:
        """Hash-and-write ``chunks`` to a temp, then make it the object named by its hash.

        A full disk leaves nothing behind (the temp is removed) and says so in
        words, not as ``[Errno 28]``.
        """
        try:
            return self._publish_stream(chunks, mime)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
                raise
            from relavium_desktop.engine.errors import ToolFailedError

            raise ToolFailedError("cannot keep the file in the media store: the disk is full (nothing was kept)") from None

    def _publish_stream(self, chunks: Iterable[bytes], mime: str) -> MediaRef:
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        with fsfloor.dir_fd(self.root) as root_fd:
            temp = new_temp_name()
            fd = os.open(
                temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=root_fd
            )
            try:
                try:
                    digest, size, dims = _write_hashed(fd, chunks, self.ceiling)
                    self._place(root_fd, temp, digest, fd)
                finally:
                    os.close(fd)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temp, dir_fd=root_fd)
        width, height = dims if dims else (None, None)
        ref = MediaRef(digest, size, mime, width, height)
        _remember(ref)
        return ref

    def publish_bytes(self, data: bytes, mime: str = "application/octet-stream") -> MediaRef:
        view = memoryview(data)
        return self.publish_stream((bytes(view[i : i + READ_CHUNK]) for i in range(0, len(view), READ_CHUNK)), mime)

    def publish_file(self, path: Path, mime: str = "application/octet-stream") -> MediaRef:
        """Publish a file's bytes without reading it whole; its size is checked before a byte moves."""
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > self.ceiling:
                raise _too_large(size)
            return self.publish_stream(iter(lambda: fh.read(FILE_CHUNK), b""), mime)

    def _place(self, root_fd: int, temp: str, digest: str, temp_fd: int) -> None:
        """Rename the temp into place unless an intact copy is already there.

        The temp is fsynced only when it is about to become the object, so an
        idempotent re-publish pays for no disk flush.
        """
        objects = _ensure_dir("objects", root_fd)
        try:
            shard = _ensure_dir(digest[:2], objects)
            try:
                if self._existing_is_valid(shard, digest):
                    return  # idempotent: the same bytes are already published
                os.fsync(temp_fd)
                os.rename(temp, digest, src_dir_fd=root_fd, dst_dir_fd=shard)
                fsfloor.fsync_dir(shard)
            finally:
                os.close(shard)
        finally:
            os.close(objects)

    def _existing_is_valid(self, shard_fd: int, digest: str) -> bool:
        """True for an intact winner; a corrupt one is replaced, an unsafe one refused."""
        try:
            _read_verified_at(shard_fd, digest, self.ceiling, sink=None)
        except MediaNotFoundError:
            return False
        except MediaCorruptError:
            return False  # our verified temp replaces it atomically: a repair
        return True

    # -- reads -------------------------------------------------------------

    def open_verified(self, sha256: str) -> bytes:
        """The object's bytes, re-hashed on the way: corruption and unsafe entries refuse."""
        parts: list[bytes] = []
        with self._shard(sha256) as shard:
            _read_verified_at(shard, sha256, self.ceiling, sink=parts.append)
        return b"".join(parts)

    def stat(self, sha256: str) -> int:
        """The object's size (no hash check); MediaNotFoundError when absent."""
        with self._shard(sha256) as shard:
            try:
                st = os.stat(sha256, dir_fd=shard, follow_symlinks=False)
            except FileNotFoundError:
                raise MediaNotFoundError("no media object with that digest") from None
        fsfloor.check_regular_single(st, allow_detached=True)
        return st.st_size

    def exists(self, sha256: str) -> bool:
        try:
            self.stat(sha256)
        except MediaNotFoundError:
            return False
        return True

    def delete(self, sha256: str) -> bool:
        """Remove one object; already gone is success (False), unsafe entries refuse."""
        try:
            with self._shard(sha256) as shard:
                st = os.stat(sha256, dir_fd=shard, follow_symlinks=False)
                fsfloor.check_regular_single(st, allow_detached=False)
                os.unlink(sha256, dir_fd=shard)
                fsfloor.fsync_dir(shard)
        except (MediaNotFoundError, FileNotFoundError):
            return False
        return True

    def list(self) -> list[str]:
        """Every published digest (entries that are not digests are ignored)."""
        return [sha for sha, _ in self._walk()]

    # -- maintenance -------------------------------------------------------

    def stats(self) -> dict[str, int]:
        """Intact objects and their bytes; objects that fail their digest are counted as ``corrupt``.

        Re-hashes every object (a garbled object's size looks normal);
        nothing is moved: ``verify`` does that.
        """
        objects = total = corrupt = 0
        for sha, st in self._walk():
            if self._check(sha) is None:
                objects += 1
                total += st.st_size
            else:
                corrupt += 1
        temps = quarantined = 0
        with contextlib.suppress(MediaNotFoundError), fsfloor.dir_fd(self.root) as root_fd:
            temps = sum(1 for name in os.listdir(root_fd) if is_temp_candidate(name))
        with contextlib.suppress(OSError):
            quarantined = sum(1 for _ in (self.root / QUARANTINE).iterdir())
        return {"objects": objects, "bytes": total, "temps": temps, "corrupt": corrupt, "quarantined": quarantined}

    def verify(self, *, quarantine: bool = True) -> VerifyReport:
        """Re-hash every object; move each one that fails to ``quarantine/`` (unless ``quarantine`` is False)."""
        report = VerifyReport()
        for sha, _st in self._walk():
            problem = self._check(sha)
            if problem is None:
                report.intact.append(sha)
                continue
            report.corrupt[sha] = problem
            if quarantine:
                report.moved[sha] = self._quarantine(sha)
        return report

    def _check(self, sha256: str) -> str | None:
        """None for an intact object, else why not (in words)."""
        try:
            with self._shard(sha256) as shard:
                _read_verified_at(shard, sha256, self.ceiling, sink=None)
        except MediaCorruptError:
            return "its bytes do not match its digest (garbled or truncated)"
        except MediaTooLargeError:
            return f"it is larger than the {self.ceiling}-byte limit"
        except (MediaNotFoundError, MediaUnsafeError):
            return None  # gone meanwhile, or not an object entry: not ours to judge here
        return None

    def _quarantine(self, sha256: str) -> str:
        """Move one object to ``quarantine/<digest>-<UTC time>``; the new path, relative to the root."""
        folder = self.root / QUARANTINE
        folder.mkdir(mode=0o700, exist_ok=True)
        name = f"{sha256}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
        with self._shard(sha256) as shard, fsfloor.dir_fd(folder) as target:
            os.rename(sha256, name, src_dir_fd=shard, dst_dir_fd=target)
            fsfloor.fsync_dir(target)
            fsfloor.fsync_dir(shard)
        return f"{QUARANTINE}/{name}"

    def sweep_temporaries(self, now: float | None = None, min_age_s: float = DEFAULT_MIN_AGE_S) -> SweepReport:
        try:
            with fsfloor.dir_fd(self.root) as root_fd:
                return sweep_root(root_fd, now=now, min_age_s=min_age_s)
        except MediaNotFoundError:
            return SweepReport()

    def gc(
        self,
        referenced: set[str],
        *,
        min_age_s: float = GC_MIN_AGE_S,
        now: float | None = None,
        dry_run: bool = False,
    ) -> dict[str, builtins.list[str]]:
        """Delete objects nobody references and that are older than ``min_age_s``; quarantine corrupt ones.

        The grace period covers a producer that has published but not yet
        stored its reference; the caller supplies ``referenced`` (digests).
        ``dry_run`` lists under "removed" what would go, deleting nothing.
        """
        now = time.time() if now is None else now
        removed: list[str] = []
        kept: list[str] = []
        # A corrupt object is never kept as if it were good, referenced or not: out it goes, to quarantine.
        damaged = self.verify(quarantine=not dry_run)
        for sha, st in self._walk():
            if sha in damaged.corrupt:
                continue
            if sha in referenced or now - st.st_mtime < min_age_s:
                kept.append(sha)
            elif dry_run or self.delete(sha):
                removed.append(sha)
        return {"removed": removed, "kept": kept, "quarantined": sorted(damaged.corrupt)}

    # -- internals ---------------------------------------------------------

    @contextlib.contextmanager
    def _shard(self, sha256: str) -> Iterator[int]:
        check_sha(sha256)
        with (
            fsfloor.dir_fd(self.root) as root_fd,
            fsfloor.dir_fd("objects", parent=root_fd) as objects,
            fsfloor.dir_fd(sha256[:2], parent=objects) as shard,
        ):
            yield shard

    def _walk(self) -> Iterator[tuple[str, os.stat_result]]:
        """(digest, lstat) of every regular single-link object, without following symlinks."""
        try:
            with fsfloor.dir_fd(self.root) as root_fd, fsfloor.dir_fd("objects", parent=root_fd) as objects:
                for shard_name in sorted(os.listdir(objects)):
                    try:
                        with fsfloor.dir_fd(shard_name, parent=objects) as shard:
                            for name in sorted(os.listdir(shard)):
                                if len(name) != 64 or not name.startswith(shard_name):
                                    continue
                                st = os.stat(name, dir_fd=shard, follow_symlinks=False)
                                if stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
                                    yield name, st
                    except (MediaNotFoundError, MediaUnsafeError):
                        continue
        except MediaNotFoundError:
            return


def _ensure_dir(name: str, parent_fd: int) -> int:
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o700, dir_fd=parent_fd)
        fsfloor.fsync_dir(parent_fd)
    return fsfloor.open_dir(name, dir_fd=parent_fd)


def _write_hashed(fd: int, chunks: Iterable[bytes], ceiling: int) -> tuple[str, int, tuple[int, int] | None]:
    hasher = hashlib.sha256()
    sniffer = ImageSizeSniffer()
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if size > ceiling:
            raise _too_large(size)
        hasher.update(chunk)
        sniffer.feed(chunk)
        view = memoryview(chunk)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    return hasher.hexdigest(), size, sniffer.finish()


def _read_verified_at(shard_fd: int, sha256: str, ceiling: int, sink: Callable[[bytes], object] | None) -> None:
    """Read one object through one descriptor, bounded and hashed; ``sink`` gets each chunk."""
    fd = fsfloor.open_object(sha256, shard_fd)
    try:
        st = os.fstat(fd)
        fsfloor.check_regular_single(st, allow_detached=True)
        if st.st_size > ceiling:
            raise _too_large(st.st_size)
        hasher = hashlib.sha256()
        total = 0
        while chunk := os.read(fd, READ_CHUNK):
            total += len(chunk)
            if total > ceiling:  # grew since fstat
                raise _too_large(total)
            hasher.update(chunk)
            if sink is not None:
                sink(chunk)
    finally:
        os.close(fd)
    if hasher.hexdigest() != sha256:
        raise MediaCorruptError(f"media object sha256-{sha256[:12]}… does not match its digest; refusing it")
