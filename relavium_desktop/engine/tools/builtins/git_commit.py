"""git_commit: commit what is already staged; never stages, gate-approved only.

Refused with ``gate_required`` unless a human gate approved the call.  The
argv the host receives is always ``commit -m MESSAGE [-- PATHSPEC...]``: the
message is the value of ``-m`` (so ``--amend`` as a message is just text) and
every pathspec follows ``--`` (so ``--amend`` as a pathspec is a path).  The
host commits only staged content, limited to the pathspecs, and runs commit
hooks with its built environment, never the app's.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

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
    message: str = Field(description="The commit message (non-empty).")
    pathspecs: list[str] = Field(
        default_factory=list,
        max_length=1_000,
        description="Limit the commit to these staged paths; each is a literal path, never an option.",
    )

    @field_validator("message")
    @classmethod
    def _message_ok(cls, value: str) -> str:
        if "\x00" in value:
            raise ValueError("must not contain a NUL character")
        return value

    @field_validator("pathspecs")
    @classmethod
    def _pathspecs_ok(cls, value: list[str]) -> list[str]:
        for item in value:
            if not item or "\x00" in item:
                raise ValueError("each pathspec must be a non-empty path without NUL characters")
        return value


async def _dispatch(args: GitCommitArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    process = require(host.process, "git_commit", "process")
    argv = ["commit", "-m", args.message]
    if args.pathspecs:
        argv += ["--", *args.pathspecs]
    return await process.git(argv, SpawnOptions(run_id=ctx.run_id))


TOOL = ToolDef(
    id="git_commit",
    description=(
        "Commit the already-staged changes with a message, optionally only those under the given "
        "paths (never stages; requires a human-gate approval)."
    ),
    args_model=GitCommitArgs,
    dispatch=_dispatch,
    policy=PolicyClass(spawns_process=True, requires_gate_approval=True),
    byte_bounds={"message": ByteBound(MESSAGE_MAX_BYTES, non_empty=True)},
)
