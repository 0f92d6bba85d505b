"""The descriptor walk: open a path one component at a time from a root's fd.

Checking a path and then opening it by name is a race: a directory swapped
for a symlink in between leads the open anywhere.  Here every component is
opened with ``O_NOFOLLOW`` relative to the descriptor of its parent, starting
from the pinned root's descriptor, so the kernel never follows a link we did
not inspect.  A symlink met on the way is read (``readlinkat``), its target
is turned into a new absolute path, and the whole admission (roots, floors)
starts again from a fresh root descriptor - so links that stay inside the
roots work and links that leave them are ``outside_scope``, even if they
appear mid-walk.

Hard-link control: a regular file with more than one hard link is refused
for reads and writes alike (:class:`HardLinkedError`).  Its other name may sit
outside every root or on a floor, so its content is not "what is inside the
root" even though the name we opened is.  The check is made on the opened
descriptor (``fstat`` after the open, :func:`admit_descriptor`), so a name
swapped for a hard link between admission and the open cannot win; the name
is then re-stat'ed relative to the same directory descriptor and must still
be that inode, so a hard link replaced by a plain file just after our open
(leaving the descriptor's only remaining name outside) cannot win either.
Every content read goes through :func:`open_file_at` or re-checks in
``text.read_text_fd``; writes use the same :func:`refuse_hard_link`.
Residual: this is a control for cooperating hosts, not a jail against a
hostile same-user process that keeps re-linking the very inode we hold.

``hook`` is a test seam: it is called with ``(stage, name)`` right before
each ``openat``, which is where a racing swap would have to land, and with
``("opened", name)`` right after a file was opened, before its descriptor is
admitted.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError, ToolFailedError
from relavium_desktop.host.fs.policy import PathPolicy, Purpose, normalise
from relavium_desktop.host.fs.roots import DIR_FLAGS, PinnedRoot

WalkHook = Callable[[str, str], None]
Want = Literal["dir", "file", "parent"]

NOFOLLOW = os.O_NOFOLLOW
SUBDIR_FLAGS = DIR_FLAGS | NOFOLLOW
FILE_FLAGS = os.O_RDONLY | NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
MAX_SYMLINK_HOPS = 40


@dataclass(slots=True)
class Opened:
    """An opened target.  ``fd`` is the directory (``dir``/``parent``) or file (``file``).

    For ``parent`` the caller works on ``name`` inside ``fd``.  ``canonical``
    is the symlink-free absolute path of the target itself.
    """

    fd: int
    name: str | None
    canonical: tuple[str, ...]
    root: PinnedRoot

    def close(self) -> None:
        os.close(self.fd)


class _Hop(Exception):
    """A symlink was met: restart admission with this absolute path."""

    def __init__(self, comps: tuple[str, ...]) -> None:
        self.comps = comps


def not_found() -> ToolFailedError:
    return ToolFailedError("no such file or folder")


def changed_while_opening() -> ToolFailedError:
    return ToolFailedError("the path changed while it was being opened")


HARD_LINK_MESSAGE = (
    "the file has more than one hard link, so its content may also belong to a file outside the "
    "allowed folders; files with more than one hard link (for example in pnpm's hard-linked "
    "package store) cannot be read or written through the file tools. "
    "Hint: copy the file (a copy has a single link) or use run_command"
)


class HardLinkedError(ToolDeniedError):
    """``tool_denied``/``protected_path``: a regular file with more than one hard link.

    A subclass only so a glob read can tell this refusal apart from the
    others (it skips the match, see ``reader.read_glob``); the code, reason
    and JSON shape are those of any ``ToolDeniedError``.  The message names
    no path and carries the hint.
    """

    def __init__(self) -> None:
        super().__init__(HARD_LINK_MESSAGE, reason=DenyReason.PROTECTED_PATH)


def refuse_hard_link(st: os.stat_result) -> None:
    """The one hard-link check, shared by every read and write: raise if ``st`` has extra links."""
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        raise HardLinkedError()


def admit_descriptor(fd: int, dir_fd: int, name: str) -> os.stat_result:
    """Admit an opened descriptor of ``name`` in ``dir_fd``; return its ``fstat``.

    ``fstat`` after the open, so the link count is that of the inode we will
    actually read or write, whatever the name pointed to at admission.  Then
    ``name`` must still be that inode (stat'ed relative to ``dir_fd``, no
    follow): otherwise the name was replaced after the open - possibly a hard
    link swapped out so the descriptor's only remaining name lies outside the
    roots - and the operation fails closed.
    """
    st = os.fstat(fd)
    refuse_hard_link(st)
    try:
        now = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        raise changed_while_opening() from None
    if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
        raise changed_while_opening()
    return st


def open_file_at(dir_fd: int, name: str, hook: WalkHook | None = None) -> tuple[int, os.stat_result]:
    """Open ``name`` in ``dir_fd`` for reading (no follow, never blocking) and admit the descriptor.

    The ``OSError`` of the open itself (a symlink's ``ELOOP``, ``ENOENT``)
    propagates for the caller to interpret; nothing is left open on error.
    """
    fd = os.open(name, FILE_FLAGS, dir_fd=dir_fd)
    try:
        if hook is not None:
            hook("opened", name)
        st = admit_descriptor(fd, dir_fd, name)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _link_target(dir_fd: int, name: str, here: tuple[str, ...], rest: list[str]) -> _Hop | None:
    """The hop for a symlink ``name`` in ``dir_fd`` (canonical dir ``here``), or None if not a link."""
    try:
        target = os.readlink(name, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENOENT):
            return None
        raise
    base: list[str] = [] if target.startswith("/") else list(here)
    return _Hop(normalise(base, [*target.split("/"), *rest]))


def open_path(
    policy: PathPolicy,
    raw: str,
    want: Want,
    *,
    purpose: Purpose = "read",
    create_parents: bool = False,
    hook: WalkHook | None = None,
) -> Opened:
    """Admit ``raw`` under ``policy`` and open it by descriptor walk.

    ``want``: ``dir`` opens a directory, ``file`` a regular file (read-only,
    never a FIFO block), ``parent`` opens the parent directory and leaves the
    final name to the caller (for writes), following a final symlink only
    through re-admission.
    """
    comps = policy.lexical(raw)
    for _ in range(MAX_SYMLINK_HOPS):
        root, rest = policy.admit(comps, purpose)
        try:
            return _walk(policy, root, rest, want, create_parents=create_parents, hook=hook)
        except _Hop as hop:
            comps = hop.comps
    raise ToolFailedError("too many levels of symbolic links")


def _walk(
    policy: PathPolicy,
    root: PinnedRoot,
    rest: tuple[str, ...],
    want: Want,
    *,
    create_parents: bool,
    hook: WalkHook | None,
) -> Opened:
    fd = policy.open_root(root)
    here = root.canonical
    try:
        dirs = rest if want == "dir" else rest[:-1]
        if want != "dir" and not rest:
            raise ToolFailedError("the path names a folder, not a file")
        for index, name in enumerate(dirs):
            if hook is not None:
                hook("dir", name)
            try:
                child = os.open(name, SUBDIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create_parents:
                    raise not_found() from None
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass  # created by someone else meanwhile: opened below like any folder
                except FileNotFoundError:
                    raise not_found() from None  # our parent was deleted under us
                if hook is not None:
                    hook("dir", name)
                child = _open_dir_or_hop(fd, name, here, list(rest[index + 1 :]))
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise
                child = _open_dir_or_hop(fd, name, here, list(rest[index + 1 :]))
            os.close(fd)
            fd = child
            here = (*here, name)
        if want == "dir":
            return Opened(fd, None, here, root)
        name = rest[-1]
        if hook is not None:
            hook(want, name)
        if want == "parent":
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                return Opened(fd, name, (*here, name), root)
            if stat.S_ISLNK(st.st_mode):
                hop = _link_target(fd, name, here, [])
                if hop is not None:
                    raise hop
            return Opened(fd, name, (*here, name), root)
        try:
            file_fd, _ = open_file_at(fd, name, hook)
        except FileNotFoundError:
            raise not_found() from None
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.EMLINK):
                raise
            hop = _link_target(fd, name, here, [])
            if hop is None:
                raise
            raise hop from None
        os.close(fd)
        fd = -1
        return Opened(file_fd, None, (*here, name), root)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise


def _open_dir_or_hop(fd: int, name: str, here: tuple[str, ...], rest: list[str]) -> int:
    """After a refused O_NOFOLLOW open: a symlink hops, anything else is not a folder."""
    hop = _link_target(fd, name, here, rest)
    if hop is not None:
        raise hop
    try:
        return os.open(name, SUBDIR_FLAGS, dir_fd=fd)
    except FileNotFoundError:
        raise not_found() from None
    except NotADirectoryError:
        raise ToolFailedError("a component of the path is not a folder") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            # Swapped for a link between our readlink and open: fail closed.
            raise changed_while_opening() from None
        raise
