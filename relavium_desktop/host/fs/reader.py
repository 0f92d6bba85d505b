"""read_file and glob reads over the descriptor walk.

A glob's literal prefix (up to the first component with ``*``/``?``, or the
parent of a literal path) is admitted like any path: same roots, same
floors.  Below it the matcher walks directory descriptors, pruning
floor-denied directories before descent and never following a symlinked
directory; a symlinked *file* that matches is read only after a full
re-admission, and skipped if that is refused.

Hard links: a file with more than one hard link is refused on its opened
descriptor (see ``walk``).  ``read_file`` of one path fails with that
``tool_denied``; a glob read instead *skips* the match and says so - see
:func:`read_glob` for why.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import Any

from relavium_desktop.engine.errors import InvalidArgsError, ToolDeniedError, ToolFailedError
from relavium_desktop.engine.tools.fs_floors import (
    ROOT_CONTEXT,
    FloorContext,
    fold_component,
    is_unc,
    read_rule,
)
from relavium_desktop.host.fs.globbing import component_matcher, has_magic
from relavium_desktop.host.fs.policy import PathPolicy
from relavium_desktop.host.fs.roots import join
from relavium_desktop.host.fs.text import MediaPublisher, read_text_fd
from relavium_desktop.host.fs.walk import SUBDIR_FLAGS, HardLinkedError, WalkHook, open_file_at, open_path

GLOB_MAX_FILES = 1000
GLOB_MAX_TOTAL_BYTES = 32 * 1024 * 1024
# Binary matches are published, not returned; this bounds what one glob may publish.
GLOB_MAX_MEDIA_BYTES = 128 * 1024 * 1024


def floor_context(comps: tuple[str, ...]) -> FloorContext:
    ctx = ROOT_CONTEXT
    for comp in comps:
        ctx = ctx.child(fold_component(comp))
    return ctx


def read_file(
    policy: PathPolicy, raw: str, hook: WalkHook | None = None, publish: MediaPublisher | None = None
) -> dict[str, Any]:
    opened = open_path(policy, raw, "file", hook=hook)
    try:
        result = read_text_fd(opened.fd, opened.canonical[-1], publish)
    finally:
        opened.close()
    return {"path": policy.display(opened.canonical), **result}


def read_glob(
    policy: PathPolicy, pattern: str, hook: WalkHook | None = None, publish: MediaPublisher | None = None
) -> list[dict[str, Any]]:
    """Every file ``pattern`` matches, sorted by canonical path, each shaped as :func:`read_file`.

    A match with more than one hard link is not read: it appears as
    ``{"path": ..., "skipped": True, "error": {code, reason, message}}`` (no
    ``content``), with the same ``tool_denied``/``protected_path`` error and
    hint a single-path read gives, and the other matches are returned.  Why
    skip rather than refuse the whole glob: a glob is a search, and its other
    policy refusals (floor-denied names, links leaving the roots) already drop
    the match rather than fail; a hard-linked file says nothing about the
    other matches, and any ``tool_denied`` ends an agent's run, so one pnpm
    store file or ``cp -al`` backup under a ``**`` would otherwise make the
    whole pattern unusable - with a message that may not name the culprit.
    Why say so rather than skip silently: unlike a floor, a hard link is
    ordinary in a project, and a silent gap would read as "the file is not
    there".  The skipped entry carries no byte of the file.

    With ``publish`` (a host with a media store), a binary match is returned
    as a media handle and the text matches as text, so one PNG in a folder
    does not fail ``*``.
    """
    if is_unc(pattern, windows=os.name == "nt"):
        policy.lexical(pattern)  # raises unc_path
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    if not parts:
        raise InvalidArgsError("the glob pattern is empty")
    first = next((i for i, p in enumerate(parts) if has_magic(p)), len(parts) - 1)
    prefix = ("/" if pattern.startswith("/") else "") + "/".join(parts[:first])
    opened = open_path(policy, prefix or ".", "dir", hook=hook)
    matchers: list[Callable[[str], bool] | None] = [
        None if p == "**" else component_matcher(p) for p in parts[first:]
    ]
    glob = _GlobWalk(policy, hook, publish)
    try:
        glob.match(opened.fd, opened.canonical, floor_context(opened.canonical), matchers)
    finally:
        opened.close()
    return [glob.found[k] for k in sorted(glob.found)]


Matchers = list[Callable[[str], bool] | None]


class _GlobWalk:
    """One glob read's state: the policy, the files found and the byte budget left."""

    def __init__(self, policy: PathPolicy, hook: WalkHook | None = None, publish: MediaPublisher | None = None) -> None:
        self.policy = policy
        self.hook = hook
        self.publish = publish
        self.found: dict[tuple[str, ...], dict[str, Any]] = {}
        self.budget = GLOB_MAX_TOTAL_BYTES
        self.media_budget = GLOB_MAX_MEDIA_BYTES

    def match(self, fd: int, here: tuple[str, ...], ctx: FloorContext, matchers: Matchers) -> None:
        head, tail = matchers[0], matchers[1:]
        if head is None and tail:
            self.match(fd, here, ctx, tail)  # ** as zero folders
        with os.scandir(fd) as it:
            entries = list(it)
        for entry in entries:
            name = entry.name
            folded = fold_component(name)
            if read_rule(ctx, folded) is not None:
                continue  # floor-denied: never read, never entered
            is_dir = entry.is_dir(follow_symlinks=False)
            if head is None:
                if is_dir:
                    self.descend(fd, name, here, ctx.child(folded), matchers)
                elif not tail:
                    self.collect(fd, entry, here)
                continue
            if not head(name):
                continue
            if not tail:
                if not is_dir:
                    self.collect(fd, entry, here)
            elif is_dir:
                self.descend(fd, name, here, ctx.child(folded), tail)

    def descend(self, fd: int, name: str, here: tuple[str, ...], ctx: FloorContext, matchers: Matchers) -> None:
        if self.policy.walk_fenced((*here, name)):
            return  # the run output store is never entered from above
        try:
            child = os.open(name, SUBDIR_FLAGS, dir_fd=fd)
        except OSError:
            return  # vanished or swapped for a link since the scan: not followed
        try:
            self.match(child, (*here, name), ctx, matchers)
        finally:
            os.close(child)

    def collect(self, fd: int, entry: os.DirEntry[str], here: tuple[str, ...]) -> None:
        canonical = (*here, entry.name)
        self.policy.check_floor(canonical, "read")
        try:
            self._read(fd, entry, canonical)
        except HardLinkedError as exc:
            # Not read: reported by the name it matched under (the link's, for a symlink).
            if canonical not in self.found:
                self._count()
                self.found[canonical] = {
                    "path": self.policy.display(canonical), "skipped": True, "error": exc.to_json(),
                }

    def _read(self, fd: int, entry: os.DirEntry[str], canonical: tuple[str, ...]) -> None:
        policy = self.policy
        if entry.is_symlink():
            try:
                opened = open_path(policy, join(canonical), "file")
            except HardLinkedError:
                raise
            except (ToolDeniedError, ToolFailedError):
                return  # a link leaving the roots or onto a floor is not a match
            fd_file, canonical = opened.fd, opened.canonical
        else:
            if self.hook is not None:
                self.hook("file", entry.name)
            try:
                fd_file, _ = open_file_at(fd, entry.name, self.hook)
            except (OSError, ToolFailedError):
                return  # vanished, swapped for a link or replaced since the scan: not a match
        try:
            if not stat.S_ISREG(os.fstat(fd_file).st_mode) or canonical in self.found:
                return
            self._count()
            if self.publish is not None and os.fstat(fd_file).st_size > self.media_budget:
                raise InvalidArgsError(
                    f"the glob matches more than {GLOB_MAX_MEDIA_BYTES // (1024 * 1024)} MiB of binary files; "
                    "narrow the pattern"
                )
            result = read_text_fd(fd_file, canonical[-1], self.publish)
        finally:
            os.close(fd_file)
        if "media" in result:
            self.media_budget -= result["sizeBytes"]
        else:
            self.budget -= result["sizeBytes"]
        if self.budget < 0:
            raise InvalidArgsError(
                f"the glob matches more than {GLOB_MAX_TOTAL_BYTES // (1024 * 1024)} MiB of text; "
                "narrow the pattern"
            )
        self.found[canonical] = {"path": policy.display(canonical), **result}

    def _count(self) -> None:
        if len(self.found) >= GLOB_MAX_FILES:
            raise InvalidArgsError(f"the glob matches more than {GLOB_MAX_FILES} files; narrow the pattern")
