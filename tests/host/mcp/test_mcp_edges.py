"""MCP edge cases against real stdio servers: broken tools, malformed lines, binary anywhere, escaped descendants.

The misbehaving server is ``tests/fixtures/mcp_raw_server.py`` (hand-written
JSON-RPC, because the SDK's server cannot emit these faults); the escaped
descendant comes from its ``spawn`` tool (``setsid sleep 300``: a process in a
session of its own, which a process-group kill does not reach, orphaned the
moment the server exits on its closed stdin) and from the SDK fixture server's
``spawn_escaped`` (a server that keeps running while it is stopped).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.engine.errors import ToolDeniedError, ToolFailedError
from tests.fixtures.mcp_raw_server import BLOB, PNG
from tests.host.mcp.conftest import PYTHON, make_host, process_gone, stdio_entry

RAW = str(Path(__file__).resolve().parents[2] / "fixtures" / "mcp_raw_server.py")
BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{200,}")


def raw_entry(**extra: Any) -> dict[str, Any]:
    return {"transport": "stdio", "command": PYTHON, "args": [RAW], **extra}


async def _wait_for_file(path: Path, timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists() or not path.read_text():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        await asyncio.sleep(0.05)


async def _wait_gone(pid: int, timeout_s: float = 10) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process_gone(pid):
            return True
        await asyncio.sleep(0.05)
    return False


async def test_broken_tools_are_dropped_with_reasons_and_the_rest_of_the_server_stays(relavium_home: Path) -> None:
    host = make_host(relavium_home, {"raw": raw_entry()})
    try:
        [report] = await host.discover(timeout_s=20)
        assert report.ok, report.error
        assert {t.name for t in report.tools} == {"ok", "garble", "binary", "spawn"}
        reasons = {t.name: t.reason for t in report.skipped}
        assert reasons["noschema"] == "it has no inputSchema"
        assert reasons[""] == "its name is empty"
        assert reasons["badschema"].startswith("unusable input schema")
        assert "taskSupport" in reasons["tasky"] and "does not support MCP tasks" in reasons["tasky"]
        assert (await host.call("raw", "ok", {}))["content"][0]["text"] == "fine"
        # A fresh session (no discovery first) still calls a good tool despite its broken neighbours.
        await host.aclose()
        assert (await host.call("raw", "ok", {}))["content"][0]["text"] == "fine"
    finally:
        await host.aclose()


async def test_a_malformed_line_fails_the_call_at_once_and_the_next_call_starts_afresh(relavium_home: Path) -> None:
    host = make_host(relavium_home, {"raw": raw_entry(timeoutMs=60_000)})
    try:
        started = time.monotonic()
        with pytest.raises(ToolFailedError) as caught:
            await host.call("raw", "garble", {})
        assert time.monotonic() - started < 10  # not the 60 s timeout
        assert "the server sent a line that is not a valid JSON-RPC message" in caught.value.message
        assert "not json" not in caught.value.message  # the line itself is never echoed
        assert (await host.call("raw", "ok", {}))["content"][0]["text"] == "fine"
    finally:
        await host.aclose()


async def test_binary_anywhere_in_a_result_becomes_a_handle_structured_content_included(relavium_home: Path) -> None:
    host = make_host(relavium_home, {"raw": raw_entry()})
    try:
        result = await host.call("raw", "binary", {})
    finally:
        await host.aclose()
    text = json.dumps(result)
    assert not BASE64_RUN.search(text), "base64 reached the result"
    structured = result["structuredContent"]
    image = structured["content"][0]
    assert image["type"] == "image" and image["mimeType"] == "image/png" and image["bytes"] == len(PNG)
    assert image["media"] == result["content"][1]["media"]  # the same bytes, the same handle
    attachment = structured["attachment"]
    assert attachment["name"] == "blob.bin" and attachment["bytes"] == len(BLOB)
    assert structured["raw"]["media"] == attachment["media"] and structured["raw"]["bytes"] == len(BLOB)
    assert structured["preview"]["mimeType"] == "image/png" and structured["preview"]["media"] == image["media"]
    assert structured["note"] == "plain words stay as they are"
    # A text part that is nothing but base64 is binary too.
    assert result["content"][2] == {"type": "blob", "mimeType": "application/octet-stream", "bytes": len(BLOB),
                                    "media": attachment["media"]}
    assert result["content"][0] == {"type": "text", "text": "here it is"}
    stored = relavium_home / "media"
    assert any(p.is_file() for p in stored.rglob("*")), "nothing was published to the media store"


@pytest.mark.parametrize("server", ["raw", "sdk"])
async def test_a_timed_out_servers_descendant_in_its_own_session_is_killed(
    relavium_home: Path, tmp_path: Path, server: str
) -> None:
    pid_file = relavium_home / "escaped.pid"  # the server's working folder: a sandboxed server writes nowhere else
    entry = raw_entry(timeoutMs=3_000) if server == "raw" else stdio_entry(timeoutMs=3_000)
    tool, args = ("spawn", {"pid_file": str(pid_file)}) if server == "raw" else (
        "spawn_escaped", {"pid_file": str(pid_file), "then_sleep": 60})
    host = make_host(relavium_home, {"fx": entry})
    try:
        call = asyncio.create_task(host.call("fx", tool, args))
        await _wait_for_file(pid_file)
        escaped = int(pid_file.read_text())
        assert not process_gone(escaped)
        with pytest.raises(ToolFailedError, match="timed out after 3000 ms"):
            await call
        assert await _wait_gone(escaped), "the setsid descendant outlived the timed-out server"
    finally:
        await host.aclose()


@pytest.mark.parametrize("server", ["raw", "sdk"])
async def test_a_stopped_servers_descendant_in_its_own_session_is_killed(
    relavium_home: Path, tmp_path: Path, server: str
) -> None:
    pid_file = relavium_home / "escaped.pid"  # the server's working folder: a sandboxed server writes nowhere else
    entry = raw_entry() if server == "raw" else stdio_entry()
    tool, args = ("spawn", {"pid_file": str(pid_file), "answer": True}) if server == "raw" else (
        "spawn_escaped", {"pid_file": str(pid_file)})
    host = make_host(relavium_home, {"fx": entry})
    try:
        out = await host.call("fx", tool, args)
        escaped = int(pid_file.read_text())
        assert "started" in out["content"][0]["text"] and not process_gone(escaped)
    finally:
        await host.aclose()
    assert await _wait_gone(escaped), "the setsid descendant outlived the stopped server"


async def test_a_handle_only_in_structured_content_is_admitted_to_the_calls_media_scope(relavium_home: Path) -> None:
    from relavium_desktop.engine.host import ToolHost
    from relavium_desktop.engine.tools.mcp_tools import build_mcp_tools
    from relavium_desktop.engine.tools.registry import ToolRegistry
    from relavium_desktop.engine.tools.tooldef import ToolCall, ToolDispatchContext
    from relavium_desktop.host.media import MediaStore
    from relavium_desktop.host.media.capability import MediaHost

    store = MediaStore(relavium_home / "media")
    host = make_host(relavium_home, {"raw": raw_entry()}, media=store)
    media = MediaHost(store)
    try:
        reports = await host.discover(timeout_s=20)
        tools = build_mcp_tools(t for r in reports for t in r.tools).tools
        registry = ToolRegistry(tools, ToolHost(mcp=host, media=media))
        ctx = ToolDispatchContext(run_id="r1", node_id="agent", granted_tool_ids=frozenset({"mcp_raw_binary"}))
        out = await registry.dispatch(ToolCall("mcp_raw_binary", {}), ctx)
    finally:
        await host.aclose()
    assert out.ok, out.error
    blob = out.result["structuredContent"]["attachment"]["media"]  # in no content part
    assert (await media.describe(blob, "run:r1"))["sizeBytes"] == len(BLOB)
    with pytest.raises(ToolDeniedError, match="was not produced or received in this chat or run"):
        await media.describe(blob, "run:another")


async def test_mcp_call_admits_a_handle_that_is_only_in_structured_content(relavium_home: Path) -> None:
    """The generic mcp_call reaches the same result as the discovered tool, so its handles count too."""
    from relavium_desktop.engine.host import ToolHost
    from relavium_desktop.engine.tools.builtins.mcp_call import TOOL as MCP_CALL
    from relavium_desktop.engine.tools.registry import ToolRegistry
    from relavium_desktop.engine.tools.tooldef import ToolCall, ToolDispatchContext
    from relavium_desktop.host.media import MediaStore
    from relavium_desktop.host.media.capability import MediaHost

    store = MediaStore(relavium_home / "media")
    host = make_host(relavium_home, {"raw": raw_entry()}, media=store)
    media = MediaHost(store)
    try:
        registry = ToolRegistry([MCP_CALL], ToolHost(mcp=host, media=media))
        ctx = ToolDispatchContext(run_id="r2", node_id="agent", granted_tool_ids=frozenset({"mcp_call"}))
        out = await registry.dispatch(ToolCall("mcp_call", {"server": "raw", "tool": "binary", "arguments": {}}), ctx)
    finally:
        await host.aclose()
    assert out.ok, out.error
    blob = out.result["structuredContent"]["attachment"]["media"]
    assert (await media.describe(blob, "run:r2"))["sizeBytes"] == len(BLOB)
    with pytest.raises(ToolDeniedError, match="was not produced or received in this chat or run"):
        await media.describe(blob, "run:another")
