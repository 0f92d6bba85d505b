"""What the git tools may see: the repository inside the tool's file scope, and nothing above it.

git looks for its repository upwards from the working directory, and follows
a ``.git`` *file* (``gitdir: <path>``, as worktrees and submodules use) to
wherever it points.  Left alone, ``git_status`` in a workspace that is a
plain folder inside a larger repository reports the parent repository --
files the file tools refuse as outside the scope, ``.env`` diffs included.
So the host finds the repository itself:

* the search starts at the working directory and stops at the scope root
  the call's tier grants (the workspace at ``sandboxed``; the widest granted
  folder holding the workspace otherwise; ``/`` at a workflow's ``full``),
  and at a file-system boundary, as git does by default;
* a ``.git`` file or symlink is followed only when its target -- and the
  repository's ``commondir`` and object ``alternates`` -- lie inside the
  scope and clear of the read floor; otherwise the call is refused;
* git then runs with ``GIT_DIR`` / ``GIT_WORK_TREE`` set to what was found
  (so it does no discovery of its own) and ``GIT_CEILING_DIRECTORIES`` at
  the scope root's parent (for hooks and anything git starts).

The scope is the file tools' :class:`~relavium_desktop.host.fs.policy.PathPolicy`
where the descriptor-walk file host runs, else the workspace alone with the
read floor -- the same fallback the working directory uses.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError, ToolFailedError
from relavium_desktop.engine.tools.fs_floors import read_floor, split_components
from relavium_desktop.host.fs.policy import PathPolicy, outside_scope, protected
from relavium_desktop.host.fs.roots import components, join

GITFILE_MAX_BYTES = 4096


class GitScope(Protocol):
    """The part of a file scope the git tools need."""

    def search_root(self, cwd: str) -> str:
        """The canonical folder above which the repository search never climbs."""
        ...

    def admit(self, comps: tuple[str, ...]) -> None:
        """Raise ``tool_denied`` (outside_scope / protected_path) unless the file tools could read this path.

        ``comps`` is one spelling (absolute components); :func:`check_path`
        checks both the lexical and the canonical one.
        """
        ...


def check_path(scope: GitScope, path: str) -> None:
    """Both spellings of ``path`` (as written, and with symlinks resolved) must be readable in ``scope``."""
    for comps in _spellings(path):
        scope.admit(comps)


def path_components(path: str) -> tuple[str, ...]:
    """An absolute path's components; both separators split (stricter, and right on Windows)."""
    return tuple(split_components(path))


def _spellings(path: str) -> list[tuple[str, ...]]:
    """The lexical and the canonical (symlink-free) spelling of an absolute path."""
    lexical = path_components(os.path.abspath(path))
    canonical = path_components(os.path.realpath(path))
    return [lexical] if canonical == lexical else [lexical, canonical]


class PolicyGitScope:
    """The file tools' path policy at the call's tier: its roots, fence and floors."""

    def __init__(self, policy: PathPolicy) -> None:
        self.policy = policy

    def search_root(self, cwd: str) -> str:
        comps = components(cwd)
        holding = [r.canonical for r in self.policy.roots if comps[: len(r.canonical)] == r.canonical]
        return join(min(holding, key=len)) if holding else cwd

    def admit(self, comps: tuple[str, ...]) -> None:
        self.policy.admit(comps, "read")


class WorkspaceGitScope:
    """Fallback scope: the workspace folder alone, and the read floor."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)
        self.base = path_components(self.root)

    def search_root(self, cwd: str) -> str:
        return self.root

    def admit(self, comps: tuple[str, ...]) -> None:
        if comps[: len(self.base)] != self.base:
            raise outside_scope()
        rule = read_floor(comps)
        if rule is not None:
            raise protected(rule, "read")


@dataclass(frozen=True, slots=True)
class Repository:
    """A repository found inside the scope: its work tree and its git directory (both canonical)."""

    worktree: str
    gitdir: str
    ceiling: str | None  # the scope root's parent; None when the scope root is "/"

    def env(self) -> dict[str, str]:
        """What every git the host runs gets, so git itself discovers nothing."""
        env = {"GIT_DIR": self.gitdir, "GIT_WORK_TREE": self.worktree}
        if self.ceiling is not None:
            env["GIT_CEILING_DIRECTORIES"] = self.ceiling
        return env


def not_a_repository(cwd: str, root: str) -> ToolFailedError:
    where = "the workspace" if cwd == root else f"{cwd} or its parent folders up to {root}"
    return ToolFailedError(
        f"not a git repository: there is no .git in {where}; the git tools never look above the allowed "
        "folders, so a repository that holds the workspace from outside them is not used"
    )


def locate_repository(cwd: str, scope: GitScope) -> Repository:
    """The repository holding ``cwd``, searched no higher than the scope root; refused when it points outside."""
    cwd = os.path.realpath(cwd)
    root = scope.search_root(cwd)
    ceiling = None if root == "/" else os.path.dirname(root)
    folder = cwd
    while True:
        dotgit = os.path.join(folder, ".git")
        try:
            st = os.lstat(dotgit)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise ToolFailedError(f"git: cannot inspect {dotgit} ({exc.strerror})") from None
        if st is not None:
            return Repository(folder, _git_directory(folder, dotgit, st, scope), ceiling)
        if folder == root:
            break
        parent = os.path.dirname(folder)
        if parent == folder or _other_filesystem(folder, parent):
            break
        folder = parent
    raise not_a_repository(cwd, root)


def _other_filesystem(folder: str, parent: str) -> bool:
    """git stops its search at a file-system boundary unless told otherwise; so does the host."""
    try:
        return os.stat(folder).st_dev != os.stat(parent).st_dev
    except OSError:
        return True


def _git_directory(worktree: str, dotgit: str, st: os.stat_result, scope: GitScope) -> str:
    """The canonical git directory ``dotgit`` stands for, checked against the scope."""
    check_path(scope, worktree)
    mode, source = st.st_mode, dotgit
    if stat.S_ISLNK(mode):
        source = os.path.realpath(dotgit)
        _inside(scope, source, worktree, "links its .git to a place")
        try:
            mode = os.stat(source).st_mode
        except OSError:
            raise ToolFailedError(f"git: {dotgit} is a dangling symlink") from None
    if stat.S_ISDIR(mode):
        gitdir = source
    elif stat.S_ISREG(mode):
        gitdir = os.path.realpath(os.path.join(worktree, _gitfile_target(source)))
    else:
        raise ToolFailedError(f"git: {dotgit} is neither a folder nor a gitdir file")
    _inside(scope, gitdir, worktree, "keeps its git data")
    common = _pointer(os.path.join(gitdir, "commondir"))
    if common is not None:
        common = os.path.realpath(os.path.join(gitdir, common))
        _inside(scope, common, worktree, "shares the git data of a repository")
    objects = os.path.join(common or gitdir, "objects")
    for line in _lines(os.path.join(objects, "info", "alternates")):
        _inside(
            scope, os.path.realpath(os.path.join(objects, line)), worktree, "borrows objects from a folder"
        )
    return gitdir


def _inside(scope: GitScope, path: str, worktree: str, what: str) -> None:
    try:
        check_path(scope, path)
    except ToolDeniedError as exc:
        where = (
            "outside the allowed folders"
            if exc.reason == DenyReason.OUTSIDE_SCOPE
            else "in a protected folder"
        )
        raise ToolDeniedError(
            f"the repository in {worktree} {what} {where} ({path}); the git tools do not follow it",
            reason=exc.reason or DenyReason.OUTSIDE_SCOPE,
        ) from None


def _read_small(path: str) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ToolFailedError(f"git: {path} is not a regular file")
        data = fh.read(GITFILE_MAX_BYTES + 1)
    if len(data) > GITFILE_MAX_BYTES:
        raise ToolFailedError(f"git: {path} is larger than a git pointer file can be")
    return data.decode("utf-8", "surrogateescape")


def _gitfile_target(dotgit: str) -> str:
    text = _read_small(dotgit)
    if text is None or not text.startswith("gitdir:"):
        raise ToolFailedError(f"git: {dotgit} is a file but not a 'gitdir: <path>' pointer")
    target = text[len("gitdir:") :].strip()
    if not target or "\x00" in target:
        raise ToolFailedError(f"git: {dotgit} names no git directory")
    return target


def _pointer(path: str) -> str | None:
    text = _read_small(path)
    if text is None:
        return None
    target = text.strip()
    return target or None


def _lines(path: str) -> Sequence[str]:
    text = _read_small(path)
    if text is None:
        return ()
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
