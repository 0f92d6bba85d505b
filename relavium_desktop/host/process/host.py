"""ProcessHost: the host's ProcessCapability (run_command, git_status, git_commit)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.engine.host import SpawnOptions
from relavium_desktop.host.output_store import FileOutputStore
from relavium_desktop.host.process import git as gitrun
from relavium_desktop.host.process.capture import SpillOpener
from relavium_desktop.host.process.cwd import CwdResolver
from relavium_desktop.host.process.environment import (
    base_environment,
    child_environment,
    git_environment,
)
from relavium_desktop.host.process.executables import default_search_path, resolve_executable
from relavium_desktop.host.process.runner import STDERR, STDOUT, ProcessResult, run_process


class ProcessHost:
    """Spawns allowlisted programs and hardened git, shell-free, in a built env.

    ``resolve_cwd`` is the filesystem policy's working-directory check: it maps
    a config-pinned ``cwd`` (or None for the workspace) to a canonical folder
    or raises ``tool_denied``.  ``search_path`` is the only place executables
    are looked up, and the child's ``PATH``.
    """

    def __init__(
        self,
        *,
        store: FileOutputStore,
        resolve_cwd: CwdResolver,
        search_path: Sequence[str] | None = None,
    ) -> None:
        self._store = store
        self._resolve_cwd = resolve_cwd
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

        async def run(
            git_args: Sequence[str],
            *,
            env: Mapping[str, str] | None = None,
            stdin: bytes | None = None,
            ceiling: int | None = None,
            user_config: bool = False,
        ) -> ProcessResult:
            if user_config:
                # Identity is the one value read from the user's normal config.
                child_env = {**self.base_env, "GIT_TERMINAL_PROMPT": "0"}
                argv = ["git", "--no-pager", *git_args]
            else:
                child_env = {**hardened, **(env or {})}
                argv = ["git", *gitrun.GLOBAL_OPTIONS, *git_args]
            return await run_process(
                argv,
                executable=executable,
                env=child_env,
                cwd=cwd,
                timeout_ms=opts.timeout_ms,
                ceiling=ceiling or opts.capture_ceiling,
                open_spill=self._spill_openers(opts.run_id, f"git-{sub}"),
                label=f"git {sub}",
                stdin_data=stdin,
            )

        if sub in gitrun.READ_ONLY_SUBCOMMANDS:
            result = await run(gitrun.read_only_argv(args))
        elif sub == "commit":
            message, pathspecs = gitrun.parse_commit(args)
            identity = await gitrun.identity_env(run)
            result = await gitrun.commit(run, message, pathspecs, identity)
        else:
            raise ToolFailedError(f"git {sub!r} is not one of the subcommands this host runs")
        return result.to_json()
