"""mcp_call: one tool on a registered MCP server."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.mcp_tools import admit_result_media
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import PolicyClass, ToolDef, ToolDispatchContext


class McpCallArgs(ToolArgs):
    server: str = Field(min_length=1, description="The registered MCP server's name.")
    tool: str = Field(min_length=1, description="The tool on that server.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments.")


async def _dispatch(args: McpCallArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    mcp = require(host.mcp, "mcp_call", "MCP client")
    result = await mcp.call(args.server, args.tool, args.arguments)
    # The agent loop admits only content-part handles; a server may put binary in
    # structuredContent too, and the model must be able to read_media what it was shown.
    await admit_result_media(result, host, ctx)
    return result


TOOL = ToolDef(
    id="mcp_call",
    description="Call a tool on a registered MCP server by name.",
    args_model=McpCallArgs,
    dispatch=_dispatch,
    policy=PolicyClass(egress="mcp"),
)
