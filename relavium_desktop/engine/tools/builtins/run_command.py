"""run_command: one allowlisted program, shell-free, with a host-built env.

The model supplies ``command`` and ``args``; the registry checks
``[command, *args]`` against the workflow's allowlist (argv against argv).
``cwd``, ``timeoutMs`` and ``env`` are config-only: pinned by the author,
invisible to the model, and a model-sent value is dropped before validation.
Declared ``env`` names pass the env allowlist here (inert names plus the
policy's ``allowedEnv``, never a hijack family: ``env_not_allowed``) and
again in the host, which gets the same ``allowedEnv``.  A timeout is a ``tool_failed`` error that says
"timed out after N ms" (the tree is killed); cancellation is ``cancelled``.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from relavium_desktop.engine.host import SpawnOptions, ToolHost
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.env_policy import check_declared_env
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import (
    PolicyClass,
    PolicyTarget,
    ToolDef,
    ToolDispatchContext,
    VectorBound,
)

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000


def _no_nul(value: str) -> str:
    # execve cannot carry a NUL byte; say so as a correctable schema error.
    if "\x00" in value:
        raise ValueError("must not contain a NUL character")
    return value


class RunCommandArgs(ToolArgs):
    command: str = Field(
        min_length=1,
        description="The program to run, exactly as allowlisted (no shell, no PATH tricks).",
    )
    args: list[str] = Field(
        default_factory=list,
        description="Arguments, each passed literally as one argv element (;, |, $() are not special).",
    )
    # Config-only: pinned by the workflow author, invisible to the model.
    cwd: str | None = None
    timeoutMs: int = Field(default=DEFAULT_TIMEOUT_MS, ge=1, le=MAX_TIMEOUT_MS)
    env: dict[str, str] = Field(default_factory=dict)

    @field_validator("command")
    @classmethod
    def _command_ok(cls, value: str) -> str:
        return _no_nul(value)

    @field_validator("args")
    @classmethod
    def _args_ok(cls, value: list[str]) -> list[str]:
        for item in value:
            _no_nul(item)
        return value


def _guard(args: RunCommandArgs, ctx: ToolDispatchContext) -> None:
    check_declared_env("run_command", args.env, allowed=ctx.policy.allowed_env or ())


async def _dispatch(args: RunCommandArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    process = require(host.process, "run_command", "process")
    opts = SpawnOptions(run_id=ctx.run_id, cwd=args.cwd, timeout_ms=args.timeoutMs,
                        allowed_env=tuple(ctx.policy.allowed_env or ()), sandbox=ctx.policy.sandbox)
    return await process.spawn(args.command, args.args, args.env, opts)


TOOL = ToolDef(
    id="run_command",
    description=(
        "Run one allowlisted program with arguments (no shell: ;, |, $() are literal) and return "
        "{exitCode, stdout, stderr, durationMs}; output past the size ceiling is kept as head and "
        "tail with the full stream in a spill file."
    ),
    args_model=RunCommandArgs,
    dispatch=_dispatch,
    config_only=frozenset({"cwd", "timeoutMs", "env"}),
    policy=PolicyClass(spawns_process=True),
    policy_target=lambda a: PolicyTarget(argv=(a.command, *a.args)),
    guard=_guard,
    vector_bounds={"args": VectorBound(256, 16 * 1024, 64 * 1024)},
)
