"""read_media: authorise and describe a durable media handle (never its bytes)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import PolicyClass, ToolDef, ToolDispatchContext


class ReadMediaArgs(ToolArgs):
    handle: str = Field(pattern=r"^media://sha256-[0-9a-f]{64}$", description="A media://sha256-… handle.")


async def _dispatch(args: ReadMediaArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    media = require(host.media, "read_media", "media store")
    if ctx.media_scope is None:
        raise ToolDeniedError(
            "read_media: this session has no media scope", reason=DenyReason.MEDIA_SCOPE_DENIED
        )
    return await media.describe(args.handle, ctx.media_scope)


TOOL = ToolDef(
    id="read_media",
    description="Look at a produced or received media asset by its media:// handle.",
    args_model=ReadMediaArgs,
    dispatch=_dispatch,
    policy=PolicyClass(),
)
