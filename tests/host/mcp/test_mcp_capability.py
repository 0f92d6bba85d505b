"""The real MCP host is the engine's McpCapability: discovery, names and closing through the protocol.

Surfaces reach these methods through the ``McpCapability`` type only (no
``getattr``), so the real host must answer them with a real server: the
fixture script over stdio.
"""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.engine.host import McpCapability, ToolHost
from relavium_desktop.engine.mcp_reports import ServerReport
from tests.host.mcp.conftest import make_host, process_gone, result_text, stdio_entry


async def test_the_real_host_discovers_names_and_closes_through_the_protocol(relavium_home: Path) -> None:
    host = ToolHost(mcp=make_host(relavium_home, {"calc": stdio_entry()}))
    mcp: McpCapability = host.mcp_or_absent()
    assert isinstance(mcp, McpCapability)
    assert mcp.server_names() == ["calc"]
    [report] = await mcp.discover(timeout_s=30)
    assert isinstance(report, ServerReport)
    assert report.ok and report.server == "calc" and report.origin == "workflow"
    assert "add" in {t.name for t in report.tools}
    pid = int(result_text(await mcp.call("calc", "pid", {})))
    assert not process_gone(pid)
    await mcp.aclose()
    assert process_gone(pid)


async def test_no_mcp_yaml_means_no_servers_and_no_reports(relavium_home: Path) -> None:
    mcp: McpCapability = make_host(relavium_home)
    assert mcp.server_names() == []
    assert list(await mcp.discover(timeout_s=5)) == []
    await mcp.aclose()
