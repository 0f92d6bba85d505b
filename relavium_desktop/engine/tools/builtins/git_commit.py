"""git_commit: commit what is already staged; never stages, gate-approved only."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from relavium_desktop.engine.host import SpawnOptions, ToolHost
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import (
    ByteBound,
    PolicyClass,
    ToolDef,
    ToolDispatchContext,
)

MESSAGE_MAX_BYTES = 16 * 1024


class GitCommitArgs(ToolArgs):
    message: str = Field(description="The commit message.")
    pathspecs: list[str] = Field(
        default_factory=list, description="Limit the commit to these paths (never options)."
    )


async def _dispatch(args: GitCommitArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    process = require(host.process, "git_commit", "process")
    argv = ["commit", "--no-verify", "-m", args.message]
    if args.pathspecs:
        argv += ["--", *args.pathspecs]
    return await process.git(argv, SpawnOptions(run_id=ctx.run_id))


TOOL = ToolDef(
    id="git_commit",
    description="Commit the already-staged changes with a message (requires a human-gate approval).",
    args_model=GitCommitArgs,
    dispatch=_dispatch,
    policy=PolicyClass(spawns_process=True, requires_gate_approval=True),
    byte_bounds={"message": ByteBound(MESSAGE_MAX_BYTES, non_empty=True)},
)
