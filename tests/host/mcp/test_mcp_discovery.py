"""McpHost.discover against real servers: listing, allowlists, broken schemas, hung and dead servers."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.host.mcp.discovery import McpPromptInfo, McpResourceInfo
from tests.host.mcp.conftest import FIXTURE, PYTHON, HttpServer, make_host, stdio_entry

FIXTURE_TOOLS = {"add", "echo", "env_names", "env_value", "pid", "fail", "sleep", "progress", "chatty",
                 "ask_name", "ask_model", "roots", "image", "spawn_escaped"}


def _entry(kind: str, http_server: HttpServer | None, **extra: Any) -> dict[str, Any]:
    if kind == "stdio":
        return stdio_entry(**extra)
    assert http_server is not None
    return {"transport": "http", "url": http_server.url(), "allowLocal": True, **extra}


@pytest.mark.parametrize("kind", ["stdio", "http"])
async def test_discovery_lists_tools_resources_and_prompts(
    relavium_home: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    http_server = request.getfixturevalue("http_server") if kind == "http" else None
    host = make_host(relavium_home, {"fx": _entry(kind, http_server)})
    try:
        [report] = await host.discover(timeout_s=30)
    finally:
        await host.aclose()
    assert report.ok, report.error
    assert report.server == "fx" and report.origin == "workflow"
    assert {t.name for t in report.tools} == FIXTURE_TOOLS
    assert set(report.all_tool_names) == FIXTURE_TOOLS
    add = next(t for t in report.tools if t.name == "add")
    assert add.description == "Add two integers."
    assert set(add.input_schema["properties"]) == {"a", "b"}
    assert McpResourceInfo("fx", "fixture://notes", "notes", "text/plain", "A short text note.") in report.resources
    assert report.prompts == (McpPromptInfo("fx", "greet", "Greet someone by name.", (("name", True, None),)),)
    assert report.latency_ms is not None and report.latency_ms >= 0


@pytest.mark.parametrize(("kind", "key"), [("stdio", "toolsAllowlist"), ("http", "tools_allowlist")])
async def test_allowlist_narrows_the_offered_tools_but_not_the_full_list(
    relavium_home: Path, kind: str, key: str, request: pytest.FixtureRequest
) -> None:
    http_server = request.getfixturevalue("http_server") if kind == "http" else None
    host = make_host(relavium_home, {"fx": _entry(kind, http_server, **{key: ["add", "echo", "not-a-tool"]})})
    try:
        [report] = await host.discover(timeout_s=30)
        # Discovery's session is the one calls use: an allowlisted tool is callable right away.
        result = await host.call("fx", "add", {"a": 1, "b": 2})
    finally:
        await host.aclose()
    assert report.ok, report.error
    assert [t.name for t in report.tools] == ["add", "echo"]
    assert set(report.all_tool_names) == FIXTURE_TOOLS
    assert result["content"][0]["text"] == "3"


async def test_a_tool_with_an_unusable_schema_is_left_out_with_a_warning(relavium_home: Path) -> None:
    host = make_host(relavium_home, {"fx": stdio_entry(env={"MCP_FIXTURE_BAD_SCHEMA": "1"})})
    try:
        [report] = await host.discover(timeout_s=30)
    finally:
        await host.aclose()
    assert report.ok, report.error
    assert "broken" in report.all_tool_names
    assert "broken" not in {t.name for t in report.tools}
    assert "add" in {t.name for t in report.tools}
    assert any("'broken'" in w for w in report.warnings)


async def test_a_hung_server_times_out_alone_and_does_not_hold_up_the_others(relavium_home: Path) -> None:
    hung = {"transport": "stdio", "command": PYTHON, "args": [FIXTURE, "hang"]}
    host = make_host(relavium_home, {"hung": hung, "good": stdio_entry()})
    started = time.monotonic()
    try:
        reports = {r.server: r for r in await host.discover(timeout_s=20)}
    finally:
        await host.aclose()
    elapsed = time.monotonic() - started
    assert elapsed < 20 + 6  # the deadline plus killing the hung child, not the 30 s connect timeout
    assert not reports["hung"].ok
    assert (reports["hung"].error or "").startswith("MCP server 'hung' did not answer within 20 s")
    assert reports["good"].ok, reports["good"].error
    assert reports["good"].latency_ms is not None and reports["good"].latency_ms < 20_000


async def test_a_server_that_exits_is_a_report_not_an_exception(relavium_home: Path) -> None:
    dead = {"transport": "stdio", "command": PYTHON, "args": ["-c", "pass"]}
    missing = {"transport": "stdio", "command": "no-such-mcp-server-binary"}
    host = make_host(relavium_home, {"dead": dead, "missing": missing})
    try:
        reports = {r.server: r for r in await host.discover(timeout_s=10)}
    finally:
        await host.aclose()
    assert not reports["dead"].ok and "could not connect to MCP server 'dead'" in (reports["dead"].error or "")
    assert not reports["missing"].ok and "not found" in (reports["missing"].error or "")


async def test_broken_mcp_yaml_is_one_report_and_unknown_names_are_reported(relavium_home: Path) -> None:
    (relavium_home / "mcp.yaml").write_text("servers:\n  bad:\n    transport: stdio\n")
    host = make_host(relavium_home)
    [report] = await host.discover()
    assert report.server == "mcp.yaml" and not report.ok
    assert "servers.bad" in (report.error or "")

    (relavium_home / "mcp.yaml").write_text("servers: {}\n")
    host = make_host(relavium_home)
    [unknown] = await host.discover(["ghost"])
    assert not unknown.ok and unknown.error == "'ghost' is not a configured MCP server"


async def test_user_servers_are_user_origin(relavium_home: Path) -> None:
    (relavium_home / "mcp.yaml").write_text(
        f"servers:\n  mine:\n    transport: stdio\n    command: {PYTHON}\n    args: [{FIXTURE}, stdio]\n"
    )
    host = make_host(relavium_home, {"theirs": stdio_entry()})
    try:
        reports = {r.server: r for r in await host.discover(timeout_s=30)}
    finally:
        await host.aclose()
    assert host.server_names() == ["mine", "theirs"]
    assert reports["mine"].origin == "user" and reports["theirs"].origin == "workflow"
    assert reports["mine"].ok and reports["theirs"].ok
