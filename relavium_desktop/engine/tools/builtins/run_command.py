"""run_command: one allowlisted program, shell-free, with a host-built env."""

from __future__ import annotations

from typing import Any

from pydantic import Field

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


class RunCommandArgs(ToolArgs):
    command: str = Field(min_length=1, description="The program to run (no shell).")
    args: list[str] = Field(default_factory=list, description="Arguments, passed literally.")
    # Config-only: pinned by the workflow author, invisible to the model.
    cwd: str | None = None
    timeoutMs: int = Field(default=DEFAULT_TIMEOUT_MS, ge=1, le=MAX_TIMEOUT_MS)
    env: dict[str, str] = Field(default_factory=dict)


def _guard(args: RunCommandArgs, ctx: ToolDispatchContext) -> None:
    check_declared_env("run_command", args.env)


async def _dispatch(args: RunCommandArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    process = require(host.process, "run_command", "process")
    opts = SpawnOptions(run_id=ctx.run_id, cwd=args.cwd, timeout_ms=args.timeoutMs)
    return await process.spawn(args.command, args.args, args.env, opts)


TOOL = ToolDef(
    id="run_command",
    description=(
        "Run one allowlisted program with arguments (no shell: ;, |, $() are literal) and return "
        "its exit code and captured output."
    ),
    args_model=RunCommandArgs,
    dispatch=_dispatch,
    config_only=frozenset({"cwd", "timeoutMs", "env"}),
    policy=PolicyClass(spawns_process=True),
    policy_target=lambda a: PolicyTarget(argv=(a.command, *a.args)),
    guard=_guard,
    vector_bounds={"args": VectorBound(256, 16 * 1024, 64 * 1024)},
)
