"""list_directory: a scandir walk over directory descriptors that prunes before descent.

Floor rules are folded and compiled once (:mod:`fs_floors`), the glob filter
is one regex, and each directory carries its floor context down, so the
per-entry cost is a fold, a set lookup and one ``fstatat``.  A floor-denied
directory is neither listed nor opened; symlinks are reported as links and
never followed.
"""

from __future__ import annotations

import operator
import os
import stat
from typing import Any

from relavium_desktop.engine.tools.fs_floors import FloorContext, fold_component, is_dotenv, read_denied_names
from relavium_desktop.host.fs.globbing import path_regex
from relavium_desktop.host.fs.policy import PathPolicy
from relavium_desktop.host.fs.reader import floor_context
from relavium_desktop.host.fs.text import iso_mtime
from relavium_desktop.host.fs.walk import SUBDIR_FLAGS, WalkHook, open_path

LIST_MAX_ENTRIES = 200_000


_KINDS = {stat.S_IFREG: "file", stat.S_IFDIR: "directory", stat.S_IFLNK: "symlink"}
_S_IFMT = stat.S_IFMT
_by_name = operator.itemgetter("name")


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
    stack: list[tuple[int, str, FloorContext]] = [(opened.fd, "", floor_context(opened.canonical))]
    truncated = False
    mtimes: dict[float, str] = {}
    try:
        while stack:
            fd, prefix, ctx = stack.pop()
            try:
                denied = read_denied_names(ctx)
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
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError:
                            continue  # vanished since the scan
                        rel = prefix + name
                        kind = _KINDS.get(_S_IFMT(st.st_mode), "other")
                        if match is None or match(rel):
                            if len(entries) >= LIST_MAX_ENTRIES:
                                truncated = True
                                break
                            mtime = mtimes.get(st.st_mtime)
                            if mtime is None:
                                mtime = mtimes[st.st_mtime] = iso_mtime(st.st_mtime)
                            entries.append(
                                {"name": rel, "type": kind, "sizeBytes": st.st_size, "lastModified": mtime}
                            )
                        if recursive and kind == "directory":
                            try:
                                child = os.open(name, SUBDIR_FLAGS, dir_fd=fd)
                            except OSError:
                                continue  # swapped for a link or removed: not entered
                            stack.append((child, rel + "/", ctx.child(folded)))
            finally:
                os.close(fd)
            if truncated:
                break
    finally:
        for fd, _, _ in stack:
            os.close(fd)
    entries.sort(key=_by_name)
    result: dict[str, Any] = {"entries": entries}
    if truncated:
        result["truncated"] = True
    return result
