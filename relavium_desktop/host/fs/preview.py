"""Read-only looks at the project for the desktop's permission questions.

The permission dialog shows what a write would change, and a grant is keyed
by a canonical folder.  Both touch the file system, so they live here, in
the host, with the same care as the file tools: the previewed file is opened
``O_NOFOLLOW`` relative to its (contained) parent folder, a file with more
than one hard link is not read (its contents may belong to a file outside
the project), and the read is bounded whatever the file claims its size is.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from typing import Literal

PreviewState = Literal["text", "missing", "outside", "symlink", "not_file", "hard_links", "too_large", "unreadable"]


@dataclass(frozen=True, slots=True)
class CurrentText:
    """The current contents of a write's target, or why they are not shown.

    ``rel`` is the project-relative POSIX path (None when the target leaves
    the project); ``text`` is set only when ``state`` is ``"text"``.
    """

    state: PreviewState
    rel: str | None = None
    text: str | None = None


def canonical_folder(path: str | os.PathLike[str]) -> str:
    """The key a folder (a project, a granted folder) is known by: its resolved absolute path."""
    return os.path.realpath(os.fspath(path))


def relative_in(root: str, target: str) -> str | None:
    """``target`` as a normalised POSIX path relative to ``root`` (canonical), or None if it leaves it.

    Symlinks are resolved, so a link pointing out of ``root`` is judged by
    where it leads, not by its name.
    """
    if not target or "\0" in target:
        return None
    raw = target.replace("\\", "/")
    resolved = os.path.realpath(raw if os.path.isabs(raw) else os.path.join(root, raw))
    try:
        if os.path.commonpath([resolved, root]) != root:
            return None
    except ValueError:
        return None
    rel = os.path.relpath(resolved, root).replace(os.sep, "/")
    return "" if rel == "." else rel


def check_extra_folder(project: str, folder: str) -> str:
    """``folder`` canonical, or ValueError saying why it cannot be granted to ``project``."""
    project = canonical_folder(project)
    if not folder or "\0" in folder:
        raise ValueError("no folder was chosen")
    resolved = canonical_folder(folder)
    if not os.path.isdir(resolved):
        raise ValueError("the chosen folder does not exist (or is not a folder)")
    if resolved == os.path.dirname(resolved):
        raise ValueError("the whole file system cannot be granted; choose a specific folder")
    if os.path.commonpath([resolved, project]) == project:
        raise ValueError("that folder is inside the project already; nothing to grant")
    return resolved


def preview_current_text(workspace: str | os.PathLike[str], path: str, limit: int) -> CurrentText:
    """What ``path`` (relative to ``workspace`` or absolute) holds now, read at most ``limit`` bytes.

    The parent folder is resolved and must lie inside the workspace; the
    file itself is never followed if it is a symlink.
    """
    root = canonical_folder(workspace)
    if not path or "\0" in path:
        return CurrentText("outside")
    raw = path.replace("\\", "/")
    joined = raw if os.path.isabs(raw) else os.path.join(root, raw)
    parent_path, name = os.path.split(joined)
    if name in ("", ".", ".."):
        return CurrentText("not_file", relative_in(root, joined))
    parent = relative_in(root, parent_path or root)
    if parent is None:
        return CurrentText("outside")
    rel = f"{parent}/{name}" if parent else name
    try:
        dir_fd = os.open(os.path.join(root, parent) if parent else root, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return CurrentText("missing", rel)
    except OSError:
        return CurrentText("unreadable", rel)
    try:
        return _read_bounded(dir_fd, name, rel, limit)
    finally:
        os.close(dir_fd)


def _read_bounded(dir_fd: int, name: str, rel: str, limit: int) -> CurrentText:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        return CurrentText("missing", rel)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return CurrentText("symlink", rel)
        return CurrentText("unreadable", rel)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return CurrentText("not_file", rel)
        if st.st_nlink > 1:
            return CurrentText("hard_links", rel)
        if st.st_size > limit:
            return CurrentText("too_large", rel)
        chunks: list[bytes] = []
        remaining = limit + 1  # one byte more tells a file that grew past the limit
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 64 * 1024))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:
            return CurrentText("too_large", rel)
        return CurrentText("text", rel, data.decode("utf-8", errors="replace"))
    except OSError:
        return CurrentText("unreadable", rel)
    finally:
        os.close(fd)


class HostGrantPaths:
    """The host's answers to a grant store's path questions (``store.grants.GrantPaths``)."""

    def canonical(self, path: str) -> str:
        return canonical_folder(path)

    def relative_in(self, root: str, target: str) -> str | None:
        return relative_in(root, target)

    def check_extra_folder(self, project: str, folder: str) -> str:
        return check_extra_folder(project, folder)

    def is_folder(self, path: str) -> bool:
        return os.path.isdir(path)


HOST_GRANT_PATHS = HostGrantPaths()
