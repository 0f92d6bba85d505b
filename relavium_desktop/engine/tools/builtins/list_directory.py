"""list_directory: entries of a folder, optionally recursive and glob-filtered."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import (
    PolicyClass,
    PolicyTarget,
    ToolDef,
    ToolDispatchContext,
)


class ListDirectoryArgs(ToolArgs):
    path: str = Field(default=".", description="Folder relative to the workspace.")
    recursive: bool = Field(default=False, description="Descend into sub-folders.")
    glob: str | None = Field(default=None, description="Only entries whose relative name matches.")


async def _dispatch(args: ListDirectoryArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    fs = require(host.fs, "list_directory", "filesystem")
    return await fs.list_directory(args.path, recursive=args.recursive, glob=args.glob)


TOOL = ToolDef(
    id="list_directory",
    description="List a folder's entries (name, type, size, modified time) inside the allowed folders.",
    args_model=ListDirectoryArgs,
    dispatch=_dispatch,
    policy=PolicyClass(fs_scoped=True),
    policy_target=lambda a: PolicyTarget(path=a.path),
)
