"""close_host ends a host's MCP server processes (what the chat does when it replaces a host)."""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.host.assembly import close_host
from tests.host.mcp.conftest import make_host, stdio_entry
from tests.host.mcp.test_mcp_call import _gone, _text


async def test_close_host_kills_the_real_stdio_server(relavium_home: Path) -> None:
    mcp = make_host(relavium_home, {"calc": stdio_entry()})
    host = ToolHost(mcp=mcp)
    pid = int(_text(await mcp.call("calc", "pid", {})))
    assert not _gone(pid)
    await close_host(host)
    assert _gone(pid)
    await close_host(ToolHost())  # a host without MCP is fine
