"""mcp.yaml validation: strict, located, secret-free errors; a broken file fails mcp_call only."""

from __future__ import annotations

from pathlib import Path

import pytest

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.host.mcp import McpConfigError, load_servers, parse_servers
from tests.helpers import dispatch
from tests.host.mcp.conftest import make_host, stdio_entry


def test_valid_file_loads_both_transports(relavium_home: Path) -> None:
    (relavium_home / "mcp.yaml").write_text(
        "servers:\n"
        "  files: {transport: stdio, command: my-server, args: [--root, /data], env: {LOG_LEVEL: info}}\n"
        "  docs: {transport: http, url: 'https://docs.example/mcp', credentialRef: 'secret:docs'}\n"
    )
    servers = load_servers(relavium_home)
    assert set(servers) == {"files", "docs"}
    assert servers["docs"].allow_local is False  # the opt-in is off unless written


@pytest.mark.parametrize(
    ("servers", "needle"),
    [
        ({"x": {"transport": "stdio"}}, "servers.x.stdio.command"),
        ({"x": {"transport": "ftp", "url": "ftp://a"}}, "servers.x"),
        ({"x": {"transport": "stdio", "command": "a", "url": "https://a"}}, "url"),  # no stray fields
        ({"x": {"transport": "stdio", "command": "a", "cwd": "relative/dir"}}, "absolute"),
        ({"x": {"transport": "http", "url": "https://a", "credentialRef": "sk-literal"}}, "credentialRef"),
        ({"bad name!": stdio_entry()}, "server name"),
    ],
)
def test_malformed_entries_are_refused_with_the_field(servers: dict, needle: str) -> None:
    with pytest.raises(McpConfigError) as info:
        parse_servers(servers)
    assert needle in str(info.value)


@pytest.mark.parametrize("header", ["Authorization", "cookie", "X-Api-Key", "X-Auth-Token"])
def test_literal_credential_headers_are_refused(header: str) -> None:
    secret = "sk-literal-0123456789"
    with pytest.raises(McpConfigError) as info:
        parse_servers({"x": {"transport": "http", "url": "https://a", "headers": {header: secret}}})
    assert "credentialRef" in str(info.value)
    assert secret not in str(info.value)


async def test_broken_file_makes_mcp_call_unavailable_with_the_line(relavium_home: Path) -> None:
    (relavium_home / "mcp.yaml").write_text("servers:\n  x: [unclosed\n")
    out = await dispatch("mcp_call", {"server": "x", "tool": "t"}, host=ToolHost(mcp=make_host(relavium_home)))
    assert out.error is not None
    assert out.error.code == "tool_unavailable"
    assert "mcp.yaml: not valid YAML at line" in out.error.message


async def test_a_workflow_cannot_replace_a_user_server(relavium_home: Path) -> None:
    (relavium_home / "mcp.yaml").write_text("servers:\n  calc: {transport: stdio, command: /bin/true}\n")
    host = make_host(relavium_home, {"calc": stdio_entry()})
    out = await dispatch("mcp_call", {"server": "calc", "tool": "add"}, host=ToolHost(mcp=host))
    assert out.error is not None
    assert out.error.code == "tool_unavailable"
    assert "already configured" in out.error.message
