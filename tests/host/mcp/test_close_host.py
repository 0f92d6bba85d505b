"""close_host ends a host's MCP server processes (what the chat does when it replaces a host)."""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.host.assembly import close_host
from tests.host.mcp.conftest import make_host, process_gone, result_text, stdio_entry


async def test_close_host_kills_the_real_stdio_server(relavium_home: Path) -> None:
    mcp = make_host(relavium_home, {"calc": stdio_entry()})
    host = ToolHost(mcp=mcp)
    pid = int(result_text(await mcp.call("calc", "pid", {})))
    assert not process_gone(pid)
    await close_host(host)
    assert process_gone(pid)
    await close_host(ToolHost())  # a host without MCP is fine
