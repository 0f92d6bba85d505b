"""The hardened git runner behind git_status and git_commit.

Every git the host runs gets, besides the git environment (no prompts, no
pager, no global/system config, no lazy fetch):

* ``-c`` overrides that a repository's own config cannot undo:
  ``core.fsmonitor=false`` (a repo-configured fsmonitor is a program that
  ``git status`` would run), an empty ``credential.helper`` list and
  ``core.askPass``, ``protocol.allow=never`` (no transport at all),
  ``diff.external`` cleared and ``log.showSignature=false`` (no gpg);
* for the read-only views, ``core.hooksPath`` pointed at nothing, and for
  ``diff``/``log`` ``--no-ext-diff --no-textconv`` ahead of the author's flags.

The repository is located by the host inside the tool's file scope (never
above the scope root, never through a ``.git`` pointer leading out) and git
runs with ``GIT_DIR``/``GIT_WORK_TREE`` set to it; submodules are not
entered; a read-only view's output is held whole and every diff section of a
read-floor path loses its content before the model or a spill file sees it
(git_scope.py, git_view.py).

``git commit`` never stages.  Without pathspecs it commits the index as it
is.  With pathspecs, plain ``git commit -- PATHS`` would take the paths'
*working-tree* content (git's ``--only``), i.e. stage behind the user's back;
instead the host builds a temporary index from ``HEAD`` plus the staged
entries under those (literal) pathspecs and commits that, leaving the user's
index untouched.  Commit hooks run, but only with the built environment.
Identity (``user.name``/``user.email``) is read from the user's normal git
config, the one thing taken from it, and passed as ``GIT_AUTHOR_*`` /
``GIT_COMMITTER_*``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Awaitable, Mapping, Sequence
from typing import Protocol

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.host.process.runner import ProcessResult

READ_ONLY_SUBCOMMANDS = ("status", "log", "diff")

GLOBAL_OPTIONS = (
    "--no-pager",
    "-c", "core.pager=cat",
    "-c", "core.fsmonitor=false",
    "-c", "core.askPass=",
    "-c", "credential.helper=",
    "-c", "protocol.allow=never",
    "-c", "diff.external=",
    "-c", "log.showSignature=false",
)
READ_ONLY_OPTIONS = ("-c", f"core.hooksPath={os.devnull}")
# Submodules are never entered: a submodule's git data may live outside the scope.
SUBCOMMAND_OPTIONS: Mapping[str, tuple[str, ...]] = {
    "status": ("--ignore-submodules=all",),
    "log": ("--no-ext-diff", "--no-textconv"),
    "diff": ("--no-ext-diff", "--no-textconv", "--ignore-submodules=all"),
}
# Plumbing output can be large (every staged path); it stays in memory up to this.
PLUMBING_CEILING = 64 * 1024 * 1024
# A read-only view is held whole up to this, so protected content is withheld before anything is kept.
VIEW_CEILING = 64 * 1024 * 1024

class GitRun(Protocol):
    """Runs ``git <hardening> *git_args`` in the workspace.

    ``env`` adds to the git environment; ``user_config`` instead runs with
    the user's normal git config (only ever for reading the identity).
    """

    def __call__(
        self,
        git_args: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        stdin: bytes | None = None,
        ceiling: int | None = None,
        user_config: bool = False,
    ) -> Awaitable[ProcessResult]: ...


def read_only_argv(args: Sequence[str]) -> list[str]:
    """``[subcommand, *author_flags]`` -> the full hardened git argv tail."""
    sub = args[0]
    return [*READ_ONLY_OPTIONS, sub, *SUBCOMMAND_OPTIONS[sub], *args[1:]]


def parse_commit(args: Sequence[str]) -> tuple[str, list[str]]:
    """The one shape git_commit builds: ``commit -m MESSAGE [-- PATHSPEC...]``."""
    if len(args) < 3 or args[0] != "commit" or args[1] != "-m":
        raise ToolFailedError("git commit: unsupported argument shape")
    rest = list(args[3:])
    if rest and rest[0] != "--":
        raise ToolFailedError("git commit: pathspecs must follow '--'")
    return args[2], rest[1:]


async def identity_env(run: GitRun) -> dict[str, str]:
    """Author/committer from the user's normal git config (nothing else from it)."""
    out: dict[str, str] = {}
    for key, names in (
        ("user.name", ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME")),
        ("user.email", ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL")),
    ):
        result = await run(["config", "--get", key], user_config=True)
        value = result.stdout.strip()
        if result.exit_code == 0 and value and "\x00" not in value:
            for name in names:
                out[name] = value
    return out


def _check(step: str, result: ProcessResult) -> bytes:
    if result.exit_code != 0:
        raise ToolFailedError(f"git commit: preparing the commit failed at {step} (exit {result.exit_code})")
    if result.stdout_raw is None:
        raise ToolFailedError(f"git commit: too many staged paths to commit by pathspec at {step}")
    return result.stdout_raw


async def commit(
    run: GitRun,
    message: str,
    pathspecs: Sequence[str],
    identity: Mapping[str, str],
    *,
    tmp_root: str | None = None,
) -> ProcessResult:
    """Commit the index, or HEAD plus the staged entries under ``pathspecs`` via a temporary index
    made under ``tmp_root`` (the sandboxed git's private temp folder: the one it may write)."""
    env = {**identity, "GIT_LITERAL_PATHSPECS": "1"}
    if not pathspecs:
        return await run(["commit", "-m", message], env=env)
    head = await run(["rev-parse", "--verify", "-q", "HEAD^{commit}"], env=env)
    head_oid = head.stdout.strip() if head.exit_code == 0 else ""
    with tempfile.TemporaryDirectory(prefix="relavium-commit-", dir=tmp_root) as tmp:
        tmp_env = {**env, "GIT_INDEX_FILE": os.path.join(tmp, "index")}
        _check("read-tree", await run(["read-tree", head_oid or "--empty"], env=tmp_env))
        entries = _check(
            "ls-files",
            await run(["ls-files", "--stage", "-z", "--", *pathspecs], env=env, ceiling=PLUMBING_CEILING),
        )
        info = bytearray(entries)
        if head_oid:
            deleted = _check(
                "diff",
                await run(
                    ["diff", "--cached", "--no-renames", "--name-only", "--diff-filter=D", "-z",
                     "--", *pathspecs],
                    env=env,
                    ceiling=PLUMBING_CEILING,
                ),
            )
            zero = b"0" * len(head_oid)
            for path in filter(None, deleted.split(b"\0")):
                info += b"0 " + zero + b"\t" + path + b"\0"
        if info:
            _check(
                "update-index",
                await run(["update-index", "-z", "--index-info"], env=tmp_env, stdin=bytes(info)),
            )
        return await run(["commit", "-m", message], env=tmp_env)
