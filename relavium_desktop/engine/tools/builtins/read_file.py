"""read_file: UTF-8 text, or every file a glob matches."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins.base import ToolArgs, is_glob
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import (
    PolicyClass,
    PolicyTarget,
    ToolDef,
    ToolDispatchContext,
)


class ReadFileArgs(ToolArgs):
    path: str = Field(
        description="File path relative to the workspace, or a glob (*, ?, **) to read every match."
    )


async def _dispatch(args: ReadFileArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    fs = require(host.fs, "read_file", "filesystem")
    if is_glob(args.path):
        return {"files": await fs.read_glob(args.path)}
    return await fs.read_file(args.path)


TOOL = ToolDef(
    id="read_file",
    description="Read a UTF-8 text file (or every file matching a glob) inside the allowed folders.",
    args_model=ReadFileArgs,
    dispatch=_dispatch,
    policy=PolicyClass(fs_scoped=True),
    policy_target=lambda a: PolicyTarget(path=a.path),
)
