"""Acceptance against a real third-party server: @modelcontextprotocol/server-everything 2026.8.31.

That server registers its roots, elicitation and sampling tools only for a
client that declares those capabilities, so these tests see exactly what a
user's Relavium sees.  Tool names are the ones 2026.8.31 offers (listed with
a probe before writing these tests).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
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
from tests.fixtures.mcp_everything import everything  # noqa: F401 - the fixture
from tests.host.mcp.conftest import approve, make_host, result_text

BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{200,}")
EVERYTHING_TOOLS = {
    "echo", "get-annotated-message", "get-env", "get-resource-links", "get-resource-reference",
    "get-structured-content", "get-sum", "get-tiny-image", "gzip-file-as-resource", "toggle-simulated-logging",
    "toggle-subscriber-updates", "trigger-long-running-operation", "get-roots-list",
    "trigger-elicitation-request", "trigger-url-elicitation", "trigger-sampling-request",
}
# Listed by the server, but callable only as an MCP task (execution.taskSupport "required"): not offered.
TASK_ONLY_TOOLS = {"simulate-research-query"}


def _host(home: Path, entry: dict[str, Any], project: Path, **hooks: Any) -> McpHost:
    # A user server (mcp.yaml), as a user would configure it: no consent involved.
    (home / "mcp.yaml").write_text(json.dumps({"servers": {"everything": entry}}))
    return make_host(home, roots=[project], hooks=McpClientHooks(consent=approve, **hooks))


async def test_every_tool_is_discovered_once_the_capabilities_are_declared(
    relavium_home: Path, tmp_path: Path, everything: dict[str, Any]  # noqa: F811
) -> None:
    host = _host(relavium_home, everything, tmp_path)
    try:
        [report] = await host.discover(timeout_s=60)
    finally:
        await host.aclose()
    assert report.ok, report.error
    assert report.origin == "user"
    assert {t.name for t in report.tools} == EVERYTHING_TOOLS
    assert {t.name: t.reason for t in report.skipped} == {
        name: 'it declares execution.taskSupport "required" (callable only as an MCP task), '
              "and Relavium does not support MCP tasks" for name in TASK_ONLY_TOOLS
    }
    assert set(report.all_tool_names) >= TASK_ONLY_TOOLS
    assert report.resources and report.prompts
    assert "simple-prompt" in {p.name for p in report.prompts}


async def test_get_roots_list_returns_the_project_folder_and_follows_set_roots(
    relavium_home: Path, tmp_path: Path, everything: dict[str, Any], caplog: pytest.LogCaptureFixture  # noqa: F811
) -> None:
    project, extra = tmp_path / "project", tmp_path / "granted"
    project.mkdir()
    extra.mkdir()
    host = _host(relavium_home, everything, project)
    updated = "MCP server everything: [everything-server] Roots updated: 2 root(s) received from client"
    with caplog.at_level(logging.INFO, logger="relavium.mcp"):
        try:
            first = result_text(await host.call("everything", "get-roots-list", {}))
            host.set_roots([project, extra])
            # The server re-reads the roots when it gets roots/list_changed, then logs it; wait for both.
            for _ in range(100):
                second = result_text(await host.call("everything", "get-roots-list", {}))
                if extra.as_uri() in second and updated in caplog.messages:
                    break
                await asyncio.sleep(0.1)
        finally:
            await host.aclose()
    assert project.as_uri() in first and "(1 total)" in first
    assert extra.as_uri() in second and "(2 total)" in second
    # The server's log (asked for with logging/setLevel on this handshake-era server) reached the logger.
    assert updated in caplog.messages


async def test_elicitation_reaches_the_hook(
    relavium_home: Path, tmp_path: Path, everything: dict[str, Any]  # noqa: F811
) -> None:
    asked: list[ElicitationRequest] = []

    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer("cancel")

    host = _host(relavium_home, everything, tmp_path, elicit=elicit)
    try:
        text = result_text(await host.call("everything", "trigger-elicitation-request", {}))
    finally:
        await host.aclose()
    assert len(asked) == 1 and asked[0].server == "everything"
    assert asked[0].requested_schema.get("properties")
    assert "User cancelled" in text


async def test_elicitation_without_a_hook_is_declined(
    relavium_home: Path, tmp_path: Path, everything: dict[str, Any]  # noqa: F811
) -> None:
    host = _host(relavium_home, everything, tmp_path)
    try:
        text = result_text(await host.call("everything", "trigger-elicitation-request", {}))
    finally:
        await host.aclose()
    assert "User declined" in text


async def test_url_elicitation_is_declined_even_with_a_form_hook(
    relavium_home: Path, tmp_path: Path, everything: dict[str, Any]  # noqa: F811
) -> None:
    asked: list[ElicitationRequest] = []

    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer("accept", {})

    host = _host(relavium_home, everything, tmp_path, elicit=elicit)
    lines: list[tuple[str, str]] = []
    try:
        text = result_text(await host.call(
            "everything", "trigger-url-elicitation", {"url": "https://example.com/login"},
            on_log=lambda level, line: lines.append((level, line)),
        ))
    finally:
        await host.aclose()
    assert asked == []  # a form hook is never shown a request to open a web page
    assert "User declined to open the URL" in text
    assert any("URL elicitation is not supported" in line for _, line in lines)


async def test_sampling_when_allowed_is_answered_by_the_hook(
    relavium_home: Path, tmp_path: Path, everything: dict[str, Any]  # noqa: F811
) -> None:
    asked: list[SamplingRequest] = []

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        asked.append(request)
        return SamplingAnswer("a haiku, surely", "scripted-model")

    host = _host(relavium_home, {**everything, "allowSampling": True}, tmp_path, sample=sample)
    try:
        text = result_text(await host.call("everything", "trigger-sampling-request", {"prompt": "write a haiku"}))
    finally:
        await host.aclose()
    [request] = asked
    assert request.server == "everything"
    assert request.messages == (("user", "Resource trigger-sampling-request context: write a haiku"),)
    assert request.system_prompt == "You are a helpful test server."
    assert "a haiku, surely" in text and "scripted-model" in text


async def test_sampling_is_refused_by_default_and_the_model_never_asked(
    relavium_home: Path, tmp_path: Path, everything: dict[str, Any]  # noqa: F811
) -> None:
    asked: list[SamplingRequest] = []

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        asked.append(request)
        return SamplingAnswer("never", "scripted-model")

    host = _host(relavium_home, everything, tmp_path, sample=sample)
    try:
        with pytest.raises(ToolFailedError, match="sampling is off for MCP server 'everything'"):
            await host.call("everything", "trigger-sampling-request", {"prompt": "write a haiku"})
    finally:
        await host.aclose()
    assert asked == []


async def test_long_running_operation_progress_reaches_the_sink(
    relavium_home: Path, tmp_path: Path, everything: dict[str, Any]  # noqa: F811
) -> None:
    seen: list[tuple[float, float | None, str | None]] = []
    host = _host(relavium_home, everything, tmp_path)
    try:
        text = result_text(await host.call(
            "everything", "trigger-long-running-operation", {"duration": 1, "steps": 4},
            on_progress=lambda p, t, m: seen.append((p, t, m)),
        ))
    finally:
        await host.aclose()
    assert "Long running operation completed" in text
    assert [(p, t) for p, t, _ in seen] == [(1, 4), (2, 4), (3, 4), (4, 4)]


async def test_get_tiny_image_has_a_media_handle_and_no_base64(
    relavium_home: Path, tmp_path: Path, everything: dict[str, Any]  # noqa: F811
) -> None:
    host = _host(relavium_home, everything, tmp_path)
    try:
        result = await host.call("everything", "get-tiny-image", {})
    finally:
        await host.aclose()
    text = json.dumps(result)
    assert not BASE64_RUN.search(text)
    [image] = [p for p in result["content"] if p["type"] == "image"]
    assert image["mimeType"] == "image/png" and image["bytes"] > 1000
    assert re.fullmatch(r"media://sha256-[0-9a-f]{64}", image["media"])
