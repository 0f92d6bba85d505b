"""list_directory: a scandir walk over directory descriptors that prunes before descent.

Floor rules are folded and compiled once per directory (:mod:`fs_floors`),
the glob filter is one regex, and each directory carries its floor context
down, so the per-entry cost is a fold, a set lookup and one ``fstatat``.  A
floor-denied directory is neither listed nor opened; symlinks are reported
as links and never followed.

Speed matters because a recursive listing of a big tree is per-entry Python
work on top of one unavoidable ``fstatat`` (sizes and times are not in
``getdents``).  So the hot loop avoids path joins, function calls it can
inline and repeated formatting: timestamps are formatted once per second
(:func:`_MtimeFormatter`), type names once per ``st_mode``, and with a glob
only the entries that match are stat'ed at all.

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
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.engine.tools.fs_floors import FloorContext, fold_component, is_dotenv, read_denied_names
from relavium_desktop.host.fs.globbing import path_regex
from relavium_desktop.host.fs.policy import PathPolicy
from relavium_desktop.host.fs.reader import floor_context
from relavium_desktop.host.fs.walk import SUBDIR_FLAGS, WalkHook, open_path

LIST_MAX_ENTRIES = 200_000

_KINDS = {stat.S_IFREG: "file", stat.S_IFDIR: "directory", stat.S_IFLNK: "symlink"}
_by_name = operator.itemgetter("name")
# A subdirectory that cannot be opened because it vanished, became a link or a
# file, or is not ours to read is left out; anything else (the open-file limit)
# fails the listing rather than silently returning part of the tree.
_SKIP_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EACCES, errno.EPERM})


class _MtimeFormatter:
    """``iso_mtime`` (``datetime.fromtimestamp(t, UTC).isoformat()`` + ``Z``), memoised.

    The date-and-seconds part is formatted once per distinct second; the
    microseconds are derived from the float exactly as ``fromtimestamp``
    does (``modf``, round half to even, carry), so the text is identical to
    :func:`relavium_desktop.host.fs.text.iso_mtime` (tested).
    """

    __slots__ = ("_exact", "_seconds", "known")

    def __init__(self) -> None:
        self._exact: dict[float, str] = {}
        self._seconds: dict[float, str] = {}
        #: The already-formatted text of an mtime, or None (cheap to call in a loop).
        self.known = self._exact.get

    def __call__(self, mtime: float) -> str:
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
        text = self._exact[mtime] = f"{head}.{micros:06d}Z" if micros else f"{head}Z"
        return text


def list_directory(
    policy: PathPolicy,
    raw: str,
    *,
    recursive: bool,
    glob: str | None,
    hook: WalkHook | None = None,
) -> dict[str, Any]:
    opened = open_path(policy, raw or ".", "dir", hook=hook)
    match = path_regex(glob).fullmatch if glob else None
    entries: list[dict[str, Any]] = []
    append = entries.append
    room = LIST_MAX_ENTRIES
    truncated = False
    format_mtime = _MtimeFormatter()
    mtime_text = format_mtime.known  # a dict lookup in the loop; the formatter only on a miss
    kinds: dict[int, str] = {}
    lstat = os.stat
    # Directories whose scan is done but whose subdirectories are still to visit:
    # (fd, prefix, floor context, remaining (name, folded) subdirectories).
    pending: list[tuple[int, str, FloorContext, Iterator[tuple[str, str]]]] = []
    fd, prefix, ctx = opened.fd, "", floor_context(opened.canonical)
    try:
        while True:
            denied = read_denied_names(ctx)
            subdirs: list[tuple[str, str]] = []
            with os.scandir(fd) as it:
                for entry in it:
                    name = entry.name
                    # Inline fast path of fold_component for plain ASCII names.
                    if name.isascii() and ":" not in name and name[-1] not in ". ":
                        folded = name.lower()
                    else:
                        folded = fold_component(name)
                    if folded in denied or (folded[:4] == ".env" and is_dotenv(folded)):
                        continue
                    rel = prefix + name
                    if match is not None:
                        # Only matching entries need a stat; d_type says what to descend into.
                        if recursive and entry.is_dir(follow_symlinks=False):
                            subdirs.append((name, folded))
                        if match(rel) is None:
                            continue
                    try:
                        st = lstat(name, dir_fd=fd, follow_symlinks=False)
                    except OSError:
                        continue  # vanished since the scan
                    mode = st.st_mode
                    kind = kinds.get(mode)
                    if kind is None:
                        kind = kinds[mode] = _KINDS.get(stat.S_IFMT(mode), "other")
                    if match is None and recursive and kind == "directory":
                        subdirs.append((name, folded))
                    if not room:
                        truncated = True
                        break
                    room -= 1
                    mtime = st.st_mtime
                    append(
                        {
                            "name": rel,
                            "type": kind,
                            "sizeBytes": st.st_size,
                            "lastModified": mtime_text(mtime) or format_mtime(mtime),
                        }
                    )
            if truncated:
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
    entries.sort(key=_by_name)
    result: dict[str, Any] = {"entries": entries}
    if truncated:
        result["truncated"] = True
    return result
