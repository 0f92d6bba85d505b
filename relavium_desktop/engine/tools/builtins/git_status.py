"""git_status: status / log / diff; flags are author-pinned, never model-chosen.

The model picks only ``subcommand``.  ``flags`` is config-only (``tool_config``):
a model-chosen ``--no-index`` would read arbitrary files, ``--output`` write
them, ``-p --all`` dump history.  Because the args model forbids unknown keys,
a model that sends ``args`` (or anything else) gets ``invalid_args``; a model
that sends ``flags`` has it dropped before validation.  The host runs git with
its hardened environment and returns the raw process result.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from relavium_desktop.engine.host import SpawnOptions, ToolHost
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import PolicyClass, ToolDef, ToolDispatchContext


class GitStatusArgs(ToolArgs):
    subcommand: Literal["status", "log", "diff"] = Field(
        default="status", description="Which read-only git view to run: status, log or diff."
    )
    # Config-only: flags pinned in tool_config by the workflow author.
    flags: list[str] = Field(default_factory=list)
    timeoutMs: int = Field(default=60_000, ge=1, le=3_600_000)


async def _dispatch(args: GitStatusArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    process = require(host.process, "git_status", "process")
    opts = SpawnOptions(run_id=ctx.run_id, timeout_ms=args.timeoutMs)
    return await process.git([args.subcommand, *args.flags], opts)


TOOL = ToolDef(
    id="git_status",
    description=(
        "Show git status, log or diff of the workspace repository (read-only); returns the raw "
        "{exitCode, stdout, stderr, durationMs}."
    ),
    args_model=GitStatusArgs,
    dispatch=_dispatch,
    config_only=frozenset({"flags", "timeoutMs"}),
    policy=PolicyClass(spawns_process=True),
)
