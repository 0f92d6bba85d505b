"""ProcessHost: the host's ProcessCapability (run_command, git_status, git_commit).

Every process it starts runs in the OS sandbox (sandbox.py) at ``sandbox_mode``
(strict unless the policy says otherwise): ``run_command`` may write the
workspace at its tier plus a private temp folder made for the call (``TMPDIR``
points at it; removed after), git may write only its repository.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.engine.host import SpawnOptions
from relavium_desktop.host.output_store import FileOutputStore
from relavium_desktop.host.process import git as gitrun
from relavium_desktop.host.process.capture import SpillOpener, StreamCapture
from relavium_desktop.host.process.cwd import CwdResolver
from relavium_desktop.host.process.environment import (
    base_environment,
    child_environment,
    git_environment,
)
from relavium_desktop.host.process.executables import default_search_path, resolve_executable
from relavium_desktop.host.process.git_scope import (
    GitScope,
    PolicyGitScope,
    Repository,
    WorkspaceGitScope,
    locate_repository,
    path_components,
)
from relavium_desktop.host.process.git_view import (
    blob_refusal,
    check_pathspecs,
    vet_view_flags,
    withhold_protected,
)
from relavium_desktop.host.process.runner import STDERR, STDOUT, ProcessResult, run_process
from relavium_desktop.host.process.sandbox import GIT_IDENTITY_FILES, SandboxMode, SandboxSpec, build_spec

# The result's "sandbox" line when the policy opted the command out of the sandbox.
UNCONFINED_NOTE = "sandbox off: ran unconfined, with all of the user's rights (the tool policy opted out)"


class ProcessHost:
    """Spawns allowlisted programs and hardened git, shell-free, in a built env.

    ``resolve_cwd`` is the filesystem policy's working-directory check: it maps
    a config-pinned ``cwd`` (or None for the workspace) to a canonical folder
    or raises ``tool_denied``.  ``search_path`` is the only place executables
    are looked up, and the child's ``PATH``.  ``git_scope`` is what the git
    tools may see (the file tools' path policy at the call's tier); without
    one, the workspace alone (see git_scope.py).  ``sandbox_mode`` confines
    ``run_command`` (sandbox.py); the git tools always run strict.
    """

    def __init__(
        self,
        *,
        store: FileOutputStore,
        resolve_cwd: CwdResolver,
        search_path: Sequence[str] | None = None,
        git_scope: GitScope | None = None,
        sandbox_mode: SandboxMode = "strict",
    ) -> None:
        self._store = store
        self.sandbox_mode: SandboxMode = sandbox_mode
        self._resolve_cwd = resolve_cwd
        self._git_scope = git_scope
        self.search_path = tuple(search_path) if search_path is not None else default_search_path()
        self.base_env = base_environment(self.search_path)

    def _spill_openers(self, run_id: str, label: str) -> dict[int, SpillOpener]:
        def opener(stream: str) -> SpillOpener:
            def open_stream() -> tuple[Path, BinaryIO]:
                return self._store.open_stream(run_id, f"{label}-{stream}")

            return open_stream

        return {STDOUT: opener("stdout"), STDERR: opener("stderr")}

    def _roots(self) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        """(writable, read-only) folders at the call's tier: the file tools' roots, or the workspace."""
        scope = self._git_scope
        if isinstance(scope, PolicyGitScope):
            policy = scope.policy
            writable = tuple(Path(os.sep + os.sep.join(r.canonical)) for r in policy.roots)
            readable = tuple(Path(os.sep + os.sep.join(r.canonical)) for r in policy.read_only_roots)
            return writable, readable
        return (Path(self._resolve_cwd(None)),), ()

    def sandbox_spec(self, mode: SandboxMode, private_tmp: Path | None) -> SandboxSpec:
        """``run_command``'s sandbox: the workspace at its tier writable, plus ``private_tmp``."""
        writable, readable = self._roots()
        return build_spec(
            mode,
            workspace=None,
            write_roots=writable,
            read_roots=readable,
            private_tmp=private_tmp,
            search_path=self.search_path,
        )

    async def spawn(
        self,
        command: str,
        args: Sequence[str],
        declared_env: Mapping[str, str],
        opts: SpawnOptions,
    ) -> dict[str, Any]:
        env = child_environment(self.base_env, declared_env, allowed=opts.allowed_env)
        cwd = self._resolve_cwd(opts.cwd)
        executable = resolve_executable(command, self.search_path, cwd)
        # The call's policy (ToolPolicy.sandbox via SpawnOptions) decides; the host's mode is the fallback.
        mode = opts.sandbox or self.sandbox_mode
        with _private_tmp(mode != "off") as tmp:
            if tmp is not None:
                env = {**env, "TMPDIR": str(tmp)}
            result = await run_process(
                [command, *args],
                executable=executable,
                env=env,
                cwd=cwd,
                timeout_ms=opts.timeout_ms,
                ceiling=opts.capture_ceiling,
                open_spill=self._spill_openers(opts.run_id, "run_command"),
                label=f"command {command!r}",
                sandbox=self.sandbox_spec(mode, tmp) if mode != "off" else None,
            )
        out = result.to_json()
        if mode == "off":
            # Said with every result, so each surface (the chat's card, a run's events, the model) sees it.
            out["sandbox"] = UNCONFINED_NOTE
        return out

    async def git(self, args: Sequence[str], opts: SpawnOptions) -> dict[str, Any]:
        if not args:
            raise ToolFailedError("git: no subcommand given")
        cwd = self._resolve_cwd(opts.cwd)
        executable = resolve_executable("git", self.search_path, cwd)
        hardened = git_environment(self.base_env)
        sub = args[0]
        # The repository inside the scope, never one above it; git discovers nothing itself.
        scope = self._git_scope or WorkspaceGitScope(self._resolve_cwd(None))
        repo = locate_repository(cwd, scope)
        repo_env = repo.env()
        mode: SandboxMode = opts.sandbox or "strict"
        tmp_stack = contextlib.ExitStack()
        tmp = tmp_stack.enter_context(_private_tmp(True))
        assert tmp is not None
        write_roots = (*_repository_roots(repo), tmp)
        spec = build_spec(mode, workspace=None, write_roots=write_roots, search_path=self.search_path)
        identity_spec = build_spec(
            mode,
            workspace=None,
            read_roots=(Path(repo.worktree),),
            search_path=self.search_path,
            allow_home_files=GIT_IDENTITY_FILES,
        )

        async def run(
            git_args: Sequence[str],
            *,
            env: Mapping[str, str] | None = None,
            stdin: bytes | None = None,
            ceiling: int | None = None,
            user_config: bool = False,
            whole_stdout: bool = False,
        ) -> ProcessResult:
            if user_config:
                # Identity is the one value read from the user's normal config (its files alone readable).
                child_env = {**self.base_env, "GIT_TERMINAL_PROMPT": "0", **repo_env, "TMPDIR": str(tmp)}
                argv = ["git", "--no-pager", *git_args]
            else:
                child_env = {**hardened, **repo_env, **(env or {}), "TMPDIR": str(tmp)}
                argv = ["git", *gitrun.GLOBAL_OPTIONS, *git_args]
            openers = self._spill_openers(opts.run_id, f"git-{sub}")
            if whole_stdout:
                openers[STDOUT] = _view_too_large  # kept whole in memory to be filtered, never spilled raw
            return await run_process(
                argv,
                executable=executable,
                env=child_env,
                cwd=cwd,
                timeout_ms=opts.timeout_ms,
                ceiling=ceiling or opts.capture_ceiling,
                open_spill=openers,
                label=f"git {sub}",
                stdin_data=stdin,
                sandbox=identity_spec if user_config else spec,
            )

        with tmp_stack:
            if sub in gitrun.READ_ONLY_SUBCOMMANDS:
                for revision in vet_view_flags(args[1:], cwd, repo):
                    if ":" in revision:
                        continue  # rev:path -- git's diff header names the path, and the filter judges it
                    kind = await run(["cat-file", "-t", f"{revision}^{{}}"])
                    if kind.exit_code == 0 and kind.stdout.strip() == "blob":
                        raise blob_refusal(revision)
                try:
                    result = await run(gitrun.read_only_argv(args), ceiling=gitrun.VIEW_CEILING, whole_stdout=True)
                except _ViewTooLargeError:
                    raise ToolFailedError(
                        f"git {sub}: the output passed {gitrun.VIEW_CEILING // (1024 * 1024)} MiB; narrow it with "
                        "author flags (a pathspec, -n, --stat)"
                    ) from None
                bases = (path_components(repo.worktree), path_components(cwd))
                result = await self._bounded(withhold_protected(result.stdout_raw or b"", bases), result, opts, sub)
            elif sub == "commit":
                message, pathspecs = gitrun.parse_commit(args)
                check_pathspecs(pathspecs, cwd, repo, scope)
                identity = await gitrun.identity_env(run)
                result = await gitrun.commit(run, message, pathspecs, identity, tmp_root=str(tmp))
            else:
                raise ToolFailedError(f"git {sub!r} is not one of the subcommands this host runs")
            return result.to_json()

    async def _bounded(self, stdout: bytes, result: ProcessResult, opts: SpawnOptions, sub: str) -> ProcessResult:
        """The filtered stdout as the model sees any output: within the ceiling, or head + tail and a spill."""
        capture = StreamCapture(opts.capture_ceiling, self._spill_openers(opts.run_id, f"git-{sub}")[STDOUT],
                                lambda _paused: None)
        capture.feed(stdout)
        await capture.finish()
        return dataclasses.replace(result, stdout=capture.text("stdout"), stdout_spill=capture.spill_info(),
                                   stdout_raw=None)


@contextlib.contextmanager
def _private_tmp(wanted: bool) -> Iterator[Path | None]:
    """A fresh 0700 temp folder for one call (None when not wanted), removed with its contents after."""
    if not wanted:
        yield None
        return
    tmp = Path(tempfile.mkdtemp(prefix="relavium-cmd-"))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _repository_roots(repo: Repository) -> tuple[Path, ...]:
    """What git may write: the work tree, the git directory and a linked work tree's common dir."""
    roots = [Path(repo.worktree), Path(repo.gitdir)]
    with contextlib.suppress(OSError, UnicodeDecodeError):
        pointer = Path(repo.gitdir, "commondir").read_text(encoding="utf-8").strip()
        if pointer:
            roots.append(Path(os.path.realpath(os.path.join(repo.gitdir, pointer))))
    return tuple(roots)


class _ViewTooLargeError(ValueError):
    """A git view printed more than the host keeps in memory to withhold protected content."""


def _view_too_large() -> tuple[Path, BinaryIO]:
    raise _ViewTooLargeError("git output too large to filter")
