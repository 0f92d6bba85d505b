"""A host without MCP answers the MCP capability's questions plainly: no servers, nothing to close.

Surfaces ask ``host.mcp_or_absent()`` instead of probing for methods, so the
absent capability must answer every question the real one does -- listing
questions with empty answers, anything that would reach a server with
``tool_unavailable`` (as every tool of a missing capability fails).
"""

from __future__ import annotations

import pytest

from relavium_desktop.engine.errors import ToolUnavailableError
from relavium_desktop.engine.host import AbsentMcp, McpCapability, ToolHost


async def test_a_host_without_mcp_has_no_servers_and_nothing_to_close() -> None:
    mcp = ToolHost().mcp_or_absent()
    assert isinstance(mcp, AbsentMcp)
    assert isinstance(mcp, McpCapability)
    assert mcp.server_names() == []
    assert list(await mcp.discover(timeout_s=0.1)) == []
    assert list(await mcp.discover(["anything"])) == []
    await mcp.aclose()
    await mcp.aclose()  # closing twice is as harmless as closing nothing


@pytest.mark.parametrize("ask", ["call", "read_resource", "get_prompt"])
async def test_reaching_a_server_through_the_absent_capability_is_tool_unavailable(ask: str) -> None:
    mcp = ToolHost().mcp_or_absent()
    calls = {
        "call": lambda: mcp.call("calc", "add", {"a": 1}),
        "read_resource": lambda: mcp.read_resource("calc", "file:///x"),
        "get_prompt": lambda: mcp.get_prompt("calc", "greet", {}),
    }
    with pytest.raises(ToolUnavailableError, match="no MCP client"):
        await calls[ask]()


def test_a_host_with_mcp_hands_out_its_own_capability() -> None:
    mine = AbsentMcp()
    assert ToolHost(mcp=mine).mcp_or_absent() is mine
