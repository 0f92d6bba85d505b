"""list_directory: a scandir walk over directory descriptors that prunes before descent.

A floor-denied directory is neither listed nor opened; every subdirectory is
opened ``O_NOFOLLOW`` relative to its parent's descriptor; symlinks are
reported as links and never followed; names are relative to the requested
folder; the glob filter is one regex compiled once.

Speed: a recursive listing must make one ``fstatat`` per entry (Linux
``getdents`` carries the type, not the size or time), and that stat is most
of the cost (``bench/fs_list.py`` prints it as the floor).  Everything else
is kept off the per-entry path: the read floor is checked for a whole
directory at once (:func:`readable_folded`), the stats and the entry dicts
are built in comprehensions without path joins, the type name is a list
index and the timestamp text memoised (:class:`MtimeText`),
and with a glob only the entries that match are stat'ed at all.  A thread
pool for the stats was measured and does not help (the GIL is handed over
on every stat).

The walk is depth-first and opens a subdirectory only when it is its turn,
so at most one descriptor per level of depth is open (holding every pending
sibling open would hit the open-file limit in a ``node_modules`` with a few
thousand packages and silently drop whole subtrees).
"""

from __future__ import annotations

import errno
import math
import operator
import os
import stat
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.engine.tools.fs_floors import FloorContext, fold_component, is_dotenv, read_denied_names
from relavium_desktop.host.fs.globbing import path_regex
from relavium_desktop.host.fs.policy import PathPolicy
from relavium_desktop.host.fs.reader import floor_context
from relavium_desktop.host.fs.walk import SUBDIR_FLAGS, WalkHook, open_path

LIST_MAX_ENTRIES = 200_000

# Type names by file-type bits (st_mode >> 12): one list index per entry.
_KIND_BY_TYPE = [
    {stat.S_IFREG: "file", stat.S_IFDIR: "directory", stat.S_IFLNK: "symlink"}.get(bits << 12, "other")
    for bits in range(16)
]
_DIR_TYPE = stat.S_IFDIR >> 12
_by_name = operator.itemgetter("name")
# A subdirectory that cannot be opened because it vanished, became a link or a
# file, or is not ours to read is left out; anything else (the open-file limit)
# fails the listing rather than silently returning part of the tree.
_SKIP_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EACCES, errno.EPERM})


class MtimeText:
    """``text(t)`` is ``iso_mtime(t)`` (``fromtimestamp(t, UTC).isoformat()`` + ``Z``), memoised.

    The listing loop calls ``known(t) or fill(t)``: a hit is one dict
    lookup; a miss (in a real tree nearly every entry has its own
    nanosecond mtime) formats the date-and-seconds part once per distinct
    second and derives the microseconds from the float exactly as
    ``fromtimestamp`` does (``modf``, round half to even, carry), so the
    text is identical to :func:`relavium_desktop.host.fs.text.iso_mtime`
    (tested).  No ``datetime`` per entry and no format spec: both cost more
    than the stat.
    """

    __slots__ = ("_exact", "_seconds", "known")

    def __init__(self) -> None:
        self._exact: dict[float, str] = {}
        self._seconds: dict[float, str] = {}
        self.known = self._exact.get

    def fill(self, mtime: float) -> str:
        frac, whole = math.modf(mtime)
        micros = round(frac * 1e6)
        if micros >= 1_000_000:
            micros -= 1_000_000
            whole += 1.0
        elif micros < 0:
            micros += 1_000_000
            whole -= 1.0
        head = self._seconds.get(whole)
        if head is None:
            # A whole second has no fraction, so isoformat() ends in "+00:00" right after it.
            head = self._seconds[whole] = datetime.fromtimestamp(whole, UTC).isoformat()[:-6]
        # str(micros + 10**6)[1:] is micros zero-padded to six digits.
        text = self._exact[mtime] = f"{head}.{str(micros + 1_000_000)[1:]}Z" if micros else f"{head}Z"
        return text

    def text(self, mtime: float) -> str:
        return self.known(mtime) or self.fill(mtime)


def readable_folded(names: list[str], ctx: FloorContext) -> list[str | None]:
    """Each of a directory's ``names`` folded, or None where the read floor denies it.

    The same answer as ``read_rule(ctx, fold_component(name))`` per name
    (tested), computed for the whole directory at once in the common case:
    when the names joined are plain ASCII with no ``:`` and no trailing dot
    or space, folding is ``lower()``, and one set-disjointness test and one
    substring test clear them all.  Anything else goes name by name.
    """
    if not names:
        return []
    denied = read_denied_names(ctx)
    blob = "/".join(names)  # "/" cannot occur in a name, so it marks the boundaries
    if blob.isascii() and ":" not in blob and "./" not in blob and " /" not in blob and blob[-1] not in ". ":
        low = blob.lower()
        if not low.startswith(".env") and "/.env" not in low:
            folded: list[str | None] = list(low.split("/"))
            if denied.isdisjoint(folded):
                return folded
    out: list[str | None] = []
    for name in names:
        one = fold_component(name)
        out.append(None if one in denied or is_dotenv(one) else one)
    return out


class _Listing:
    """The entries collected so far and the per-listing memo tables."""

    def __init__(self, match: Callable[[str], object] | None, recursive: bool) -> None:
        self.match = match
        self.recursive = recursive
        self.entries: list[dict[str, Any]] = []
        self.room = LIST_MAX_ENTRIES
        self.truncated = False
        self.mtime_text = MtimeText()

    def scan(self, fd: int, prefix: str, ctx: FloorContext) -> list[tuple[str, str]]:
        """List the directory ``fd`` into ``entries``; return the (name, folded) subdirs to enter."""
        with os.scandir(fd) as it:
            if self.match is None:
                names = [entry.name for entry in it]
                return self._all(fd, prefix, names, readable_folded(names, ctx))
            scanned = list(it)
        return self._matching(
            self.match, fd, prefix, scanned, readable_folded([e.name for e in scanned], ctx)
        )

    def _all(self, fd: int, prefix: str, names: list[str], folded: list[str | None]) -> list[tuple[str, str]]:
        """No glob: every readable entry is listed, so stat them all in one comprehension."""
        if None in folded:
            kept = [(name, one) for name, one in zip(names, folded, strict=True) if one is not None]
            names = [name for name, _ in kept]
            folded = [one for _, one in kept]
        lstat = os.stat
        try:
            stats = [lstat(name, dir_fd=fd, follow_symlinks=False) for name in names]
        except OSError:
            names, folded, stats = _stat_present(fd, names, folded)
        if len(names) > self.room:
            self.truncated = True
            del names[self.room :], folded[self.room :], stats[self.room :]
        self.room -= len(names)
        kind_by_type, known, fill = _KIND_BY_TYPE, self.mtime_text.known, self.mtime_text.fill
        self.entries += [
            {
                "name": prefix + name,
                "type": kind_by_type[st.st_mode >> 12],
                "sizeBytes": st.st_size,
                "lastModified": known(mtime := st.st_mtime) or fill(mtime),
            }
            for name, st in zip(names, stats, strict=True)
        ]
        if not self.recursive or self.truncated:
            return []
        return [
            (name, one)
            for name, one, st in zip(names, folded, stats, strict=True)
            if one is not None and st.st_mode >> 12 == _DIR_TYPE
        ]

    def _matching(
        self,
        match: Callable[[str], object],
        fd: int,
        prefix: str,
        scanned: list[os.DirEntry[str]],
        folded: list[str | None],
    ) -> list[tuple[str, str]]:
        """A glob: only matching entries are stat'ed; d_type says what to descend into."""
        subdirs: list[tuple[str, str]] = []
        for entry, one in zip(scanned, folded, strict=True):
            if one is None:
                continue
            name = entry.name
            if self.recursive and entry.is_dir(follow_symlinks=False):
                subdirs.append((name, one))
            rel = prefix + name
            if match(rel) is None:
                continue
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue  # vanished since the scan
            if not self.room:
                self.truncated = True
                return []
            self.room -= 1
            self.entries.append(
                {
                    "name": rel,
                    "type": _KIND_BY_TYPE[st.st_mode >> 12],
                    "sizeBytes": st.st_size,
                    "lastModified": self.mtime_text.text(st.st_mtime),
                }
            )
        return subdirs


def _stat_present(
    fd: int, names: list[str], folded: list[str | None]
) -> tuple[list[str], list[str | None], list[os.stat_result]]:
    """Stat one by one, leaving out entries that vanished since the scan."""
    kept_names: list[str] = []
    kept_folded: list[str | None] = []
    stats: list[os.stat_result] = []
    for name, one in zip(names, folded, strict=True):
        try:
            stats.append(os.stat(name, dir_fd=fd, follow_symlinks=False))
        except OSError:
            continue
        kept_names.append(name)
        kept_folded.append(one)
    return kept_names, kept_folded, stats


def list_directory(
    policy: PathPolicy,
    raw: str,
    *,
    recursive: bool,
    glob: str | None,
    hook: WalkHook | None = None,
) -> dict[str, Any]:
    opened = open_path(policy, raw or ".", "dir", hook=hook)
    listing = _Listing(path_regex(glob).fullmatch if glob else None, recursive)
    # Directories whose scan is done but whose subdirectories are still to visit:
    # (fd, prefix, floor context, remaining (name, folded) subdirectories).
    pending: list[tuple[int, str, FloorContext, Iterator[tuple[str, str]]]] = []
    fd, prefix, ctx = opened.fd, "", floor_context(opened.canonical)
    try:
        while True:
            subdirs = listing.scan(fd, prefix, ctx)
            if listing.truncated:
                break
            if subdirs:
                pending.append((fd, prefix, ctx, iter(subdirs)))
            else:
                os.close(fd)
            fd = -1
            # Depth first: open the next subdirectory only now, relative to its parent's fd.
            while pending:
                parent_fd, parent_prefix, parent_ctx, todo = pending[-1]
                step = next(todo, None)
                if step is None:
                    os.close(parent_fd)
                    pending.pop()
                    continue
                name, folded = step
                if policy.walk_fenced((*opened.canonical, *parent_prefix.split("/")[:-1], name)):
                    continue  # the run output store is never entered from above
                try:
                    fd = os.open(name, SUBDIR_FLAGS, dir_fd=parent_fd)
                except OSError as exc:
                    if exc.errno in _SKIP_ERRNOS:
                        continue  # swapped for a link or removed: not entered
                    raise
                prefix = f"{parent_prefix}{name}/"
                ctx = parent_ctx.child(folded)
                break
            if fd < 0:
                break
    except OSError as exc:
        if exc.errno in (errno.EMFILE, errno.ENFILE):
            raise ToolFailedError(
                "the folder tree could not be walked: the open-file limit was reached"
            ) from None
        raise
    finally:
        if fd >= 0:
            os.close(fd)
        for parent_fd, _, _, _ in pending:
            os.close(parent_fd)
    entries = listing.entries
    entries.sort(key=_by_name)
    result: dict[str, Any] = {"entries": entries}
    if listing.truncated:
        result["truncated"] = True
    return result
