"""What git_status may show and git_commit may name: the scope's files, never a protected file's content.

The read floor (``.env``, keys, credential files; engine/tools/fs_floors.py)
holds at every tier, and git must not become a way around it:

* **output** -- every ``diff --git`` / ``diff --cc`` section of ``status``,
  ``diff`` and ``log`` output whose path hits the floor keeps its header
  line (the path may be listed) and loses its body, replaced by one line
  saying the content is withheld and why.  A section ends at the next diff
  header or the next ``commit <id>`` line; anything between is withheld (the
  safe side).  ANSI colour and ``--graph`` columns are ignored when finding
  headers.
* **author flags** (git_status's config-only ``flags``) that would escape
  this are refused: ``--no-index`` and paths outside the work tree (git's
  implicit no-index diff of arbitrary files), ``--output`` (writes a file),
  submodule recursion (a submodule's git data may live outside the scope),
  and the flags that print or probe content outside a diff section
  (``--check``, ``--line-prefix``, ``-S`` / ``-G`` / ``--pickaxe-*``,
  ``--find-object``, and ``--ext-diff``, whose program prints what it likes),
  ``-L`` on a protected file (its regex range is a probe), and a revision
  argument that is a bare blob (a diff of it shows content under an object
  id, not a path).  A long flag is refused in any abbreviation too.
* **git_commit pathspecs** must name paths inside the repository's work tree
  and scope, clear of the floor, in their literal spelling (``..`` folded, as
  git folds it) and with their parent folder's symlinks resolved.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError
from relavium_desktop.engine.tools.fs_floors import read_floor, split_components
from relavium_desktop.host.process.git_scope import GitScope, Repository, path_components

# Long flags refused in any spelling that git could read as them (abbreviations included).
ESCAPING_FLAGS = ("--no-index", "--output", "--submodule", "--ignore-submodules", "--recurse-submodules")
CONTENT_FLAGS = (
    "--check",
    "--line-prefix",
    "--pickaxe-regex",
    "--pickaxe-all",
    "--find-object",
    "--ext-diff",
)
SAFE_SPELLINGS = frozenset({"--submodule=short", "--ignore-submodules=all"})
CONTENT_SHORT = ("-S", "-G")

_ANSI = re.compile(rb"\x1b\[[0-9;]*[A-Za-z]")
# ``log --graph`` draws its columns ahead of every line; those characters are skipped.
_GRAPH = rb"[|*/\\_ .\-]*"
_HEADER = re.compile(rb"^" + _GRAPH + rb"diff (?:--git|--cc|--combined) (.*)$")
_COMMIT = re.compile(rb"^" + _GRAPH + rb"commit [0-9a-f]{7,64}(?:\s|$)")
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def _refuse_flag(flag: str, reason: DenyReason, why: str) -> ToolDeniedError:
    return ToolDeniedError(f"git_status: the author flag {flag!r} is refused: {why}", reason=reason)


def _hits(flag: str, names: Sequence[str]) -> bool:
    name = flag.split("=", 1)[0]
    return name != "--" and any(n == name or (len(name) > 3 and n.startswith(name)) for n in names)


def vet_view_flags(flags: Sequence[str], cwd: str, repo: Repository) -> list[str]:
    """Refuse author flags that would see past the scope or the read floor (see module doc).

    Returns the arguments that may name revisions (not options, not existing
    paths); the host asks git whether one of them is a bare blob, whose
    content a diff would show under its object id, not under a path the
    floor could judge.
    """
    revisions: list[str] = []
    pathspecs = False
    line_range = False
    for flag in flags:
        if line_range:
            _check_line_range(flag, cwd, repo)
            line_range = False
            continue
        if pathspecs or not flag.startswith("-"):
            if not _inside_worktree(flag, cwd, repo, must_exist=not pathspecs) and not pathspecs:
                revisions.append(flag)
            continue
        if flag == "--":
            pathspecs = True
            continue
        if flag in SAFE_SPELLINGS:
            continue
        if flag.startswith("-L"):
            if flag == "-L":
                line_range = True
            else:
                _check_line_range(flag[2:], cwd, repo)
            continue
        if flag.startswith("--") and _hits(flag, ESCAPING_FLAGS):
            raise _refuse_flag(
                flag,
                DenyReason.OUTSIDE_SCOPE,
                "it would reach files or repositories outside the work tree, or write a file",
            )
        if (flag.startswith("--") and _hits(flag, CONTENT_FLAGS)) or flag.startswith(CONTENT_SHORT):
            raise _refuse_flag(
                flag,
                DenyReason.PROTECTED_PATH,
                "it would print or probe file content outside a diff, past the read floor",
            )
    return revisions


def _check_line_range(value: str, cwd: str, repo: Repository) -> None:
    """``-L<range>:<file>``: a regex range is a content probe, so a protected file is refused outright."""
    for base in (path_components(repo.worktree), path_components(cwd)):
        for piece in value.split(":"):
            rule = read_floor((*base, *split_components(piece)))
            if rule is not None:
                raise _refuse_flag(
                    f"-L{value}",
                    DenyReason.PROTECTED_PATH,
                    f"it names a file protected by the credential read floor ({rule})",
                )


def blob_refusal(revision: str) -> ToolDeniedError:
    return ToolDeniedError(
        f"git_status: the author argument {revision!r} names a file's content by object id, so the read "
        "floor cannot tell which file it is; name a commit or a path instead",
        reason=DenyReason.PROTECTED_PATH,
    )


def _inside_worktree(arg: str, cwd: str, repo: Repository, *, must_exist: bool) -> bool:
    """False for a revision; True for a path inside the work tree; a path outside is refused.

    git would diff a path outside the work tree with an implicit --no-index.
    """
    path = os.path.normpath(os.path.join(cwd, arg))
    if must_exist and not os.path.lexists(path):
        return False  # a revision, not a path
    worktree = path_components(repo.worktree)
    for spelling in (path_components(path), path_components(os.path.realpath(path))):
        if spelling[: len(worktree)] != worktree:
            raise ToolDeniedError(
                f"git_status: the author argument {arg!r} is a path outside the repository's work tree",
                reason=DenyReason.OUTSIDE_SCOPE,
            )
    return True


def check_pathspecs(pathspecs: Sequence[str], cwd: str, repo: Repository, scope: GitScope) -> None:
    """Refuse a git_commit pathspec outside the work tree or scope, or into a protected file."""
    worktree = path_components(repo.worktree)
    for spec in pathspecs:
        path = os.path.normpath(os.path.join(cwd, spec))  # '..' folded as git folds it
        lexical = path_components(path)
        canonical = path_components(os.path.realpath(os.path.dirname(path))) + lexical[-1:]
        for spelling in (lexical, canonical):
            if spelling[: len(worktree)] != worktree:
                raise ToolDeniedError(
                    f"git_commit: the pathspec {spec!r} is outside the repository's work tree and the allowed "
                    "folders it may name",
                    reason=DenyReason.OUTSIDE_SCOPE,
                )
            try:
                scope.admit(spelling)
            except ToolDeniedError as exc:
                raise ToolDeniedError(
                    f"git_commit: the pathspec {spec!r}: {exc.message}",
                    reason=exc.reason or DenyReason.OUTSIDE_SCOPE,
                ) from None


def withhold_protected(output: bytes, bases: Sequence[tuple[str, ...]]) -> bytes:
    """``output`` with the body of every diff section of a read-floor path replaced by a note."""
    if b"diff " not in output:
        return output
    out: list[bytes] = []
    withholding = False
    for line in output.splitlines(keepends=True):
        plain = _ANSI.sub(b"", line).rstrip(b"\r\n")
        header = _HEADER.match(plain)
        if header is not None:
            out.append(line)
            rule = _section_rule(header.group(1), bases)
            withholding = rule is not None
            if rule is not None:
                out.append(
                    f"(content withheld: this path is protected by the credential read floor ({rule}); "
                    "no tier lifts it)\n".encode()
                )
            continue
        if withholding and _COMMIT.match(plain):
            withholding = False
        if not withholding:
            out.append(line)
    return b"".join(out)


def _section_rule(rest: bytes, bases: Sequence[tuple[str, ...]]) -> str | None:
    """The floor rule any plausible reading of a diff header's paths hits (the safe side: any hit)."""
    text = rest.decode("utf-8", "surrogateescape")
    candidates = [_unquote(m.group(1)) for m in _QUOTED.finditer(text)]
    bare = _QUOTED.sub(" ", text)
    candidates += bare.split()
    candidates.append(bare)
    for candidate in candidates:
        comps = split_components(candidate)
        for base in bases:
            for tail in (comps, comps[1:]):
                rule = read_floor((*base, *tail))
                if rule is not None:
                    return rule
    return None


def _unquote(body: str) -> str:
    """git's C-style quoting of a path (octal bytes, backslash escapes) back to text."""
    raw = bytearray()
    i = 0
    data = body.encode("utf-8", "surrogateescape")
    while i < len(data):
        c = data[i]
        if c == 0x5C and i + 1 < len(data):
            nxt = chr(data[i + 1])
            if re.fullmatch(rb"[0-7]{3}", data[i + 1 : i + 4]):
                raw.append(int(data[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            if nxt in _ESCAPES:
                raw.append(_ESCAPES[nxt])
                i += 2
                continue
        raw.append(c)
        i += 1
    return raw.decode("utf-8", "surrogateescape")
