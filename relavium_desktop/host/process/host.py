"""ProcessHost: the host's ProcessCapability (run_command, git_status, git_commit)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
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


class ProcessHost:
    """Spawns allowlisted programs and hardened git, shell-free, in a built env.

    ``resolve_cwd`` is the filesystem policy's working-directory check: it maps
    a config-pinned ``cwd`` (or None for the workspace) to a canonical folder
    or raises ``tool_denied``.  ``search_path`` is the only place executables
    are looked up, and the child's ``PATH``.  ``git_scope`` is what the git
    tools may see (the file tools' path policy at the call's tier); without
    one, the workspace alone (see git_scope.py).
    """

    def __init__(
        self,
        *,
        store: FileOutputStore,
        resolve_cwd: CwdResolver,
        search_path: Sequence[str] | None = None,
        git_scope: GitScope | None = None,
    ) -> None:
        self._store = store
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
        result = await run_process(
            [command, *args],
            executable=executable,
            env=env,
            cwd=cwd,
            timeout_ms=opts.timeout_ms,
            ceiling=opts.capture_ceiling,
            open_spill=self._spill_openers(opts.run_id, "run_command"),
            label=f"command {command!r}",
        )
        return result.to_json()

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
                # Identity is the one value read from the user's normal config.
                child_env = {**self.base_env, "GIT_TERMINAL_PROMPT": "0", **repo_env}
                argv = ["git", "--no-pager", *git_args]
            else:
                child_env = {**hardened, **repo_env, **(env or {})}
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
            )

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
            result = await gitrun.commit(run, message, pathspecs, identity)
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


class _ViewTooLargeError(ValueError):
    """A git view printed more than the host keeps in memory to withhold protected content."""


def _view_too_large() -> tuple[Path, BinaryIO]:
    raise _ViewTooLargeError("git output too large to filter")
