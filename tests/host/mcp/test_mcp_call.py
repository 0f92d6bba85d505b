"""mcp_call through the real registry against a real MCP server (stdio and Streamable HTTP)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from relavium_desktop.engine.events import EventBus
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.host.mcp import McpHost
from relavium_desktop.host.mcp.hooks import McpClientHooks
from tests.helpers import dispatch
from tests.host.mcp.conftest import HttpServer, approve, make_host, process_gone, result_text, stdio_entry


async def test_stdio_server_tool_call_through_the_registry(relavium_home: Path) -> None:
    host = make_host(relavium_home, {"calc": stdio_entry()})
    try:
        out = await dispatch("mcp_call", {"server": "calc", "tool": "add", "arguments": {"a": 2, "b": 40}},
                             host=ToolHost(mcp=host))
        assert out.ok, out.error
        assert result_text(out.result) == "42"
        assert out.result["isError"] is False
        assert "42" in out.model_facing
    finally:
        await host.aclose()


async def test_session_is_kept_per_server_and_closed_on_shutdown(relavium_home: Path) -> None:
    host = make_host(relavium_home, {"calc": stdio_entry()})
    first = await host.call("calc", "pid", {})
    second = await host.call("calc", "pid", {})
    pid = int(result_text(first))
    assert pid == int(result_text(second))  # one server process for both calls
    assert not process_gone(pid)
    await host.aclose()
    assert process_gone(pid)


async def test_http_server_with_explicit_allow_local(relavium_home: Path, http_server: HttpServer) -> None:
    host = make_host(relavium_home, {"web": {"transport": "http", "url": http_server.url(), "allowLocal": True}})
    try:
        out = await dispatch("mcp_call", {"server": "web", "tool": "echo", "arguments": {"text": "hi there"}},
                             host=ToolHost(mcp=host))
        assert out.ok, out.error
        assert result_text(out.result) == "hi there"
    finally:
        await host.aclose()


@pytest.mark.parametrize(
    ("scheme", "name", "reason"),
    [
        ("http", "127.0.0.1", "https_required"),  # plain http to loopback without the opt-in
        ("https", "127.0.0.1", "ssrf_blocked"),  # loopback address without the opt-in
        ("https", "localhost", "ssrf_blocked"),  # a name that resolves to loopback
        ("https", "[::1]", "ssrf_blocked"),
        ("https", "0x7f000001", "ssrf_blocked"),  # the integer spelling of 127.0.0.1
    ],
)
async def test_local_server_refused_without_allow_local(
    relavium_home: Path, http_server: HttpServer, scheme: str, name: str, reason: str
) -> None:
    host = make_host(relavium_home, {"web": {"transport": "http", "url": http_server.url(name, scheme)}})
    out = await dispatch("mcp_call", {"server": "web", "tool": "echo", "arguments": {"text": "x"}},
                         host=ToolHost(mcp=host))
    assert not out.ok
    assert out.error is not None
    assert (out.error.code, out.error.reason) == ("tool_denied", reason)
    await host.aclose()


async def test_unknown_server_lists_the_configured_names(relavium_home: Path) -> None:
    host = make_host(relavium_home, {"calc": stdio_entry(), "files": stdio_entry()})
    out = await dispatch("mcp_call", {"server": "cal", "tool": "add", "arguments": {}}, host=ToolHost(mcp=host))
    assert out.error is not None
    assert out.error.code == "invalid_args"
    assert "calc, files" in out.error.message
    assert "'cal'" in out.error.message


async def test_no_servers_configured_is_unavailable(relavium_home: Path) -> None:
    out = await dispatch("mcp_call", {"server": "calc", "tool": "add"}, host=ToolHost(mcp=make_host(relavium_home)))
    assert out.error is not None
    assert out.error.code == "tool_unavailable"
    assert "mcp.yaml" in out.error.message


@pytest.mark.parametrize("name", ["LD_PRELOAD", "ld_preload", "PYTHONPATH", "NODE_OPTIONS", "PATH", "GITHUB_TOKEN"])
async def test_declared_hijack_env_is_refused_before_spawn(relavium_home: Path, tmp_path: Path, name: str) -> None:
    marker = tmp_path / "spawned"
    # If the server were spawned, its sitecustomize-free start would still create nothing; so
    # the entry points at a command that would leave a marker -- it must never run.
    entry = {"transport": "stdio", "command": "/bin/sh", "args": ["-c", f"touch {marker}"], "env": {name: "/tmp/x.so"}}
    host = make_host(relavium_home, {"evil": entry})
    out = await dispatch("mcp_call", {"server": "evil", "tool": "add"}, host=ToolHost(mcp=host))
    assert out.error is not None
    assert (out.error.code, out.error.reason) == ("tool_denied", "env_not_allowed")
    assert not marker.exists()


async def test_child_env_is_built_not_inherited(relavium_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_TEST_CANARY", "from-the-app")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-app-secret")
    host = make_host(relavium_home, {"calc": stdio_entry(env={"FIXTURE_MODE": "declared"})})
    try:
        names = set((await host.call("calc", "env_names", {}))["structuredContent"]["result"])
        assert "MCP_TEST_CANARY" not in names
        assert "OPENAI_API_KEY" not in names
        assert "FIXTURE_MODE" in names
        # RELAVIUM_CHILD_GUARD: the child guard's marker (a random token, no secret), by which its
        # watcher ends the server's descendants if this process dies.
        assert names <= {"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "FIXTURE_MODE", "RELAVIUM_CHILD_GUARD"}
        # PATH is the host's command search path, not the app's.
        path = result_text(await host.call("calc", "env_value", {"name": "PATH"}))
        assert path != os.environ.get("PATH")
    finally:
        await host.aclose()


async def test_tool_error_result_is_tool_failed(relavium_home: Path) -> None:
    host = make_host(relavium_home, {"calc": stdio_entry()})
    try:
        out = await dispatch("mcp_call", {"server": "calc", "tool": "fail", "arguments": {"reason": "quota"}},
                             host=ToolHost(mcp=host))
        assert out.error is not None
        assert out.error.code == "tool_failed"
        assert "refused on purpose: quota" in out.error.message
        # A tool the server does not have is the server's error too.
        out = await dispatch("mcp_call", {"server": "calc", "tool": "nope"}, host=ToolHost(mcp=host))
        assert out.error is not None
        assert out.error.code == "tool_failed"
    finally:
        await host.aclose()


async def _pid_when_written(pid_file: Path) -> int:
    for _ in range(400):
        if pid_file.exists() and pid_file.read_text():
            return int(pid_file.read_text())
        await asyncio.sleep(0.025)
    pytest.fail("the server never started the tool")


async def test_cancellation_leaves_no_server_process(relavium_home: Path, tmp_path: Path) -> None:
    pid_file = relavium_home / "pid"  # the server's working folder: a sandboxed server writes nowhere else
    host = make_host(relavium_home, {"slow": stdio_entry(env={"MCP_FIXTURE_PIDFILE": str(pid_file)})})
    bus = EventBus(clock=lambda: 0.0, run_id="run-cancel")
    task = asyncio.create_task(
        dispatch("mcp_call", {"server": "slow", "tool": "sleep", "arguments": {"seconds": 60}},
                 host=ToolHost(mcp=host), bus=bus)
    )
    pid = await _pid_when_written(pid_file)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    result = [e for e in bus.history if e["type"] == "agent:tool_result"]
    assert result[-1]["error"]["code"] == "cancelled"
    assert process_gone(pid)
    # The next call starts a fresh server.
    assert result_text(await host.call("slow", "add", {"a": 1, "b": 1})) == "2"
    await host.aclose()


async def test_timeout_kills_the_server_and_says_so(relavium_home: Path, tmp_path: Path) -> None:
    pid_file = relavium_home / "pid"  # the server's working folder: a sandboxed server writes nowhere else
    host = make_host(relavium_home, {"slow": stdio_entry(timeoutMs=300, env={"MCP_FIXTURE_PIDFILE": str(pid_file)})})
    out = await dispatch("mcp_call", {"server": "slow", "tool": "sleep", "arguments": {"seconds": 60}},
                         host=ToolHost(mcp=host))
    assert out.error is not None
    assert out.error.code == "tool_failed"
    assert "timed out after 300 ms" in out.error.message
    assert process_gone(int(pid_file.read_text()))
    await host.aclose()


async def test_server_that_exits_is_a_clear_failure(relavium_home: Path) -> None:
    host = make_host(relavium_home, {"dead": {"transport": "stdio", "command": "/bin/true"}})
    out = await dispatch("mcp_call", {"server": "dead", "tool": "add"}, host=ToolHost(mcp=host))
    assert out.error is not None
    assert out.error.code == "tool_failed"
    assert "'dead'" in out.error.message
    await host.aclose()


async def test_bare_command_is_looked_up_only_on_the_host_search_path(relavium_home: Path, tmp_path: Path) -> None:
    # A "server" sitting in the working folder must not be found by a bare name.
    fake = tmp_path / "my-mcp-server"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    host = McpHost(home=relavium_home, default_cwd=tmp_path, search_path=("/usr/bin",),
                   servers={"x": {"transport": "stdio", "command": "my-mcp-server"}},
                   hooks=McpClientHooks(consent=approve))
    out = await dispatch("mcp_call", {"server": "x", "tool": "add"}, host=ToolHost(mcp=host))
    assert out.error is not None
    assert out.error.code == "tool_failed"
    assert "not found on the host's command search path" in out.error.message
