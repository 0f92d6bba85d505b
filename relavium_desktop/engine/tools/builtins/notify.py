"""notify: a native desktop notification that never blocks the run."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import PolicyClass, ToolDef, ToolDispatchContext


class NotifyArgs(ToolArgs):
    title: str = Field(min_length=1, max_length=200, description="Notification title.")
    body: str = Field(default="", max_length=2_000, description="Notification text.")
    actions: list[str] = Field(
        default_factory=list, max_length=4, description="Optional button labels (at most 4)."
    )


async def _dispatch(args: NotifyArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    os_cap = require(host.os, "notify", "notification")
    return await os_cap.notify(args.title, args.body, args.actions)


TOOL = ToolDef(
    id="notify",
    description="Show a desktop notification (title, body, optional buttons) without waiting.",
    args_model=NotifyArgs,
    dispatch=_dispatch,
    policy=PolicyClass(os=True),
)
