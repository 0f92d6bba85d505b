"""invoke_agent: delegate to another agent node of the same workflow.

Pure orchestration through an engine delegate; it never touches the host.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from relavium_desktop.engine.errors import ToolUnavailableError
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.tooldef import PolicyClass, ToolDef, ToolDispatchContext


class InvokeAgentArgs(ToolArgs):
    nodeId: str = Field(min_length=1, description="The agent node to call.")
    input: Any = Field(default=None, description="Explicit input for that agent.")


async def _dispatch(args: InvokeAgentArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    if ctx.invoke_agent is None:
        raise ToolUnavailableError("invoke_agent is only available inside a workflow run")
    return await ctx.invoke_agent(args.nodeId, args.input)


TOOL = ToolDef(
    id="invoke_agent",
    description="Call another agent node of this workflow by node id, with explicit input.",
    args_model=InvokeAgentArgs,
    dispatch=_dispatch,
    policy=PolicyClass(),
)
