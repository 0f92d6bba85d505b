"""read_clipboard: the current clipboard text (a governed OS action)."""

from __future__ import annotations

from typing import Any

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import PolicyClass, ToolDef, ToolDispatchContext


class ReadClipboardArgs(ToolArgs):
    pass


async def _dispatch(args: ReadClipboardArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    return await require(host.os, "read_clipboard", "clipboard").read_clipboard()


TOOL = ToolDef(
    id="read_clipboard",
    description="Read the text currently on the clipboard.",
    args_model=ReadClipboardArgs,
    dispatch=_dispatch,
    policy=PolicyClass(os=True),
)
