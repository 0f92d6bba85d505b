"""read_file: UTF-8 text, or every file a glob matches; binary files come back as media handles.

The host publishes a binary file to the media store and returns its
``media`` descriptor instead of bytes.  The handle is then admitted into the
scope of this call (the chat session or run), because a handle is readable
by ``read_media`` only where it was produced or received.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from relavium_desktop.engine.host import MediaCapability, ToolHost
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools.builtins.base import ToolArgs, is_glob
from relavium_desktop.engine.tools.media_turn import media_handles, media_scope_of
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


async def _admit(result: JsonDict, media: MediaCapability | None, scope: str) -> JsonDict:
    if media is not None:
        for handle in media_handles(result):
            await media.admit(handle, scope)
    return result


async def _dispatch(args: ReadFileArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    fs = require(host.fs, "read_file", "filesystem")
    if is_glob(args.path):
        return await _admit({"files": await fs.read_glob(args.path)}, host.media, media_scope_of(ctx))
    return await _admit(await fs.read_file(args.path), host.media, media_scope_of(ctx))


TOOL = ToolDef(
    id="read_file",
    description=(
        "Read a UTF-8 text file (or every file matching a glob) inside the allowed folders. "
        "A binary file (image, PDF, ...) is returned as a media handle (media://sha256-...) "
        "with its type and size; pass the handle to read_media to look at an image."
    ),
    args_model=ReadFileArgs,
    dispatch=_dispatch,
    policy=PolicyClass(fs_scoped=True),
    policy_target=lambda a: PolicyTarget(path=a.path),
)
