"""The full MCP client against the real fixture server: progress, logs, elicitation, sampling,
roots, binary content, resources and prompts -- over stdio and Streamable HTTP."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.host.mcp import McpHost
from relavium_desktop.host.mcp.hooks import (
    ElicitationAnswer,
    ElicitationRequest,
    McpClientHooks,
    SamplingAnswer,
    SamplingRequest,
)
from relavium_desktop.host.media import MediaStore, parse_handle
from tests.host.mcp.conftest import HttpServer, approve, make_host, result_text, stdio_entry

BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{200,}")


@pytest.fixture(params=["stdio", "http"])
async def entry(request: pytest.FixtureRequest) -> AsyncIterator[dict[str, Any]]:
    """The fixture server's entry, over each transport."""
    if request.param == "stdio":
        yield stdio_entry()
    else:
        server: HttpServer = request.getfixturevalue("http_server")
        yield {"transport": "http", "url": server.url(), "allowLocal": True}


async def test_progress_notifications_reach_the_calls_sink(relavium_home: Path, entry: dict[str, Any]) -> None:
    host = make_host(relavium_home, {"fx": entry})
    seen: list[tuple[float, float | None, str | None]] = []
    try:
        result = await host.call("fx", "progress", {"steps": 3}, on_progress=lambda p, t, m: seen.append((p, t, m)))
    finally:
        await host.aclose()
    assert result_text(result) == "done"
    assert seen == [(1, 3, "step 1 of 3"), (2, 3, "step 2 of 3"), (3, 3, "step 3 of 3")]


async def test_server_logs_reach_the_running_calls_sink(relavium_home: Path, entry: dict[str, Any]) -> None:
    host = make_host(relavium_home, {"fx": entry})
    lines: list[tuple[str, str]] = []
    try:
        await host.call("fx", "chatty", {"text": "indexing"}, on_log=lambda level, text: lines.append((level, text)))
    finally:
        await host.aclose()
    assert ("info", "indexing") in lines
    assert ("warning", "careful: indexing") in lines


async def test_logs_without_a_sink_go_to_the_python_logger_not_stdout(
    relavium_home: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    host = make_host(relavium_home, {"fx": stdio_entry()})
    with caplog.at_level(logging.INFO, logger="relavium.mcp"):
        try:
            await host.call("fx", "chatty", {"text": "quiet"})
        finally:
            await host.aclose()
    records = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "relavium.mcp"]
    assert (logging.WARNING, "MCP server fx: careful: quiet") in records
    assert (logging.INFO, "MCP server fx: quiet") in records
    assert "quiet" not in capsys.readouterr().out


async def test_elicitation_reaches_the_hook_and_its_answer_the_server(
    relavium_home: Path, entry: dict[str, Any]
) -> None:
    asked: list[ElicitationRequest] = []

    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer("accept", {"name": "Ada"})

    host = make_host(relavium_home, {"fx": entry}, hooks=McpClientHooks(elicit=elicit, consent=approve))
    try:
        result = await host.call("fx", "ask_name", {})
    finally:
        await host.aclose()
    assert result_text(result) == "hello Ada"
    assert [(r.server, r.message) for r in asked] == [("fx", "What is your name?")]
    assert asked[0].requested_schema["properties"]["name"]["type"] == "string"


async def test_elicitation_without_a_hook_is_declined_and_the_call_log_says_why(relavium_home: Path) -> None:
    host = make_host(relavium_home, {"fx": stdio_entry()})
    lines: list[tuple[str, str]] = []
    try:
        result = await host.call("fx", "ask_name", {}, on_log=lambda level, text: lines.append((level, text)))
    finally:
        await host.aclose()
    assert result_text(result) == "no name (decline)"
    assert any("cannot show forms" in text for _, text in lines)


async def test_sampling_is_refused_unless_the_server_entry_allows_it(relavium_home: Path) -> None:
    asked: list[SamplingRequest] = []

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        asked.append(request)
        return SamplingAnswer("forty-two", "test-model")

    host = make_host(relavium_home, {"fx": stdio_entry()}, hooks=McpClientHooks(sample=sample, consent=approve))
    try:
        with pytest.raises(ToolFailedError) as err:
            await host.call("fx", "ask_model", {"question": "meaning?"})
    finally:
        await host.aclose()
    assert asked == []  # the user's model was never asked
    assert "sampling is off for MCP server 'fx'" in str(err.value)
    assert "allowSampling: true" in str(err.value)


async def test_sampling_allowed_per_server_is_answered_by_the_hook(relavium_home: Path, entry: dict[str, Any]) -> None:
    asked: list[SamplingRequest] = []

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        asked.append(request)
        return SamplingAnswer("forty-two", "test-model")

    host = make_host(relavium_home, {"fx": {**entry, "allowSampling": True}},
                     hooks=McpClientHooks(sample=sample, consent=approve))
    try:
        result = await host.call("fx", "ask_model", {"question": "meaning?"})
    finally:
        await host.aclose()
    assert result_text(result) == "test-model: forty-two"
    assert asked == [SamplingRequest("fx", (("user", "meaning?"),), "be brief", 50)]


async def test_roots_are_the_hosts_folders_and_follow_set_roots(relavium_home: Path, tmp_path: Path) -> None:
    project, extra = tmp_path / "project", tmp_path / "extra folder"
    project.mkdir()
    extra.mkdir()
    host = make_host(relavium_home, {"fx": stdio_entry()}, roots=[project])
    try:
        first = await host.call("fx", "roots", {})
        host.set_roots([project, extra])
        second = await host.call("fx", "roots", {})
    finally:
        await host.aclose()
    assert first["structuredContent"]["result"] == [project.as_uri()]
    assert second["structuredContent"]["result"] == [project.as_uri(), extra.as_uri()]


async def test_image_content_becomes_a_media_handle_never_base64(relavium_home: Path, entry: dict[str, Any]) -> None:
    host = make_host(relavium_home, {"fx": entry})
    try:
        result = await host.call("fx", "image", {})
    finally:
        await host.aclose()
    text = json.dumps(result)
    assert not BASE64_RUN.search(text)
    [part] = result["content"]
    assert part["type"] == "image" and part["mimeType"] == "image/png" and part["bytes"] == 670
    stored = MediaStore(relavium_home / "media").open_verified(parse_handle(part["media"]))
    assert stored.startswith(b"\x89PNG") and len(stored) == 670


async def test_without_a_usable_media_store_binary_content_is_a_placeholder(relavium_home: Path) -> None:
    blocker = relavium_home / "not-a-folder"
    blocker.write_text("a file where the media folder would be")
    host = make_host(relavium_home, {"fx": stdio_entry()}, media=MediaStore(blocker / "media"))
    try:
        result = await host.call("fx", "image", {})
    finally:
        await host.aclose()
    assert result["content"] == [
        {"type": "image", "mimeType": "image/png", "bytes": 670, "note": "binary content omitted"}
    ]


async def test_resources_read_as_text_and_blobs_as_handles(relavium_home: Path) -> None:
    host = make_host(relavium_home, {"fx": stdio_entry()})
    try:
        notes = await host.read_resource("fx", "fixture://notes")
        logo = await host.read_resource("fx", "fixture://logo")
        with pytest.raises(ToolFailedError, match="reading resource 'fixture://nope' failed"):
            await host.read_resource("fx", "fixture://nope")
    finally:
        await host.aclose()
    assert notes["contents"] == [{"uri": "fixture://notes", "mimeType": "text/plain", "text": "remember the milk"}]
    [blob] = logo["contents"]
    assert blob["type"] == "blob" and blob["bytes"] == 670 and blob["media"].startswith("media://sha256-")
    assert not BASE64_RUN.search(json.dumps(logo))


async def test_prompt_messages_come_back_as_role_and_text(relavium_home: Path) -> None:
    host = make_host(relavium_home, {"fx": stdio_entry()})
    try:
        messages = await host.get_prompt("fx", "greet", {"name": "Bob"})
    finally:
        await host.aclose()
    assert messages == [{"role": "user", "text": "Please greet Bob warmly."}]


def test_mcp_host_is_constructible_without_hooks(relavium_home: Path) -> None:
    host = McpHost(home=relavium_home, default_cwd=relavium_home, search_path=())
    assert host.server_names() == []
