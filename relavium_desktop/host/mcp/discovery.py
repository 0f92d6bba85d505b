"""What each MCP server offers: tools (allowlisted, schema-checked), resources and prompts.

Discovery is what turns a configured server into tools a model can be
offered, so it must never be the reason a surface hangs or crashes: each
server is asked under its own deadline (see ``McpHost.discover``), and what
comes back is a :class:`ServerReport` -- ``ok=False`` with a clear reason for
a dead, hung or refused server.  Within one server the listing is tolerant:
a server without the resources or prompts capability (or one that fails
those lists) simply offers none, and a tool whose ``inputSchema`` we could
not check arguments against is left out with a warning naming it, instead of
taking the server's other tools down with it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from relavium_desktop.engine.tools.json_schema import InputSchemaError, validate_input_schema
from relavium_desktop.host.mcp.config import HttpServer, StdioServer

log = logging.getLogger("relavium.mcp")

PAGE_CAP = 100  # a paginator that never ends cannot hang discovery
_P = TypeVar("_P")


@dataclass(frozen=True, slots=True)
class McpToolInfo:
    server: str
    name: str
    description: str
    input_schema: dict[str, Any]
    title: str | None = None


@dataclass(frozen=True, slots=True)
class McpResourceInfo:
    server: str
    uri: str
    name: str
    mime_type: str | None = None
    description: str | None = None


@dataclass(frozen=True, slots=True)
class McpPromptInfo:
    server: str
    name: str
    description: str | None
    arguments: tuple[tuple[str, bool, str | None], ...]  # (name, required, description)


@dataclass(frozen=True, slots=True)
class ServerReport:
    server: str
    origin: Literal["user", "workflow"]  # user = $RELAVIUM_HOME/mcp.yaml; workflow = injected by a workflow/agent
    ok: bool
    tools: tuple[McpToolInfo, ...] = ()  # offered tools, already filtered by the server's allowlist
    all_tool_names: tuple[str, ...] = ()  # everything the server lists (for Settings' allowlist checkboxes)
    resources: tuple[McpResourceInfo, ...] = ()
    prompts: tuple[McpPromptInfo, ...] = ()
    error: str | None = None  # clear, secret-free reason when not ok
    latency_ms: int | None = None
    # Problems that did not stop the server (a tool left out for an unusable schema, a failed prompt list).
    warnings: tuple[str, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Listing:
    tools: tuple[McpToolInfo, ...]
    all_tool_names: tuple[str, ...]
    resources: tuple[McpResourceInfo, ...]
    prompts: tuple[McpPromptInfo, ...]
    warnings: tuple[str, ...]


async def _all_pages(fetch: Callable[[str | None], Awaitable[Any]], items: str) -> list[Any]:
    out: list[Any] = []
    cursor: str | None = None
    for _ in range(PAGE_CAP):
        page = await fetch(cursor)
        out.extend(getattr(page, items))
        cursor = page.next_cursor
        if not cursor:
            break
    return out


async def list_server(client: Any, server: str, entry: StdioServer | HttpServer) -> Listing:
    """List one connected server's tools (every page), resources and prompts."""
    warnings: list[str] = []
    tools_raw = await _all_pages(lambda c: client.list_tools(cursor=c), "tools")
    tools: list[McpToolInfo] = []
    names: list[str] = []
    for tool in tools_raw:
        names.append(tool.name)
        if not entry.offers(tool.name):
            continue
        try:
            validate_input_schema(tool.input_schema)
        except InputSchemaError as exc:
            warnings.append(f"tool {tool.name!r} left out: {exc}")
            continue
        tools.append(
            McpToolInfo(server, tool.name, tool.description or "", dict(tool.input_schema), getattr(tool, "title", None))
        )
    caps = client.server_capabilities
    resources: list[McpResourceInfo] = []
    if caps.resources is not None:
        try:
            for res in await _all_pages(lambda c: client.list_resources(cursor=c), "resources"):
                resources.append(McpResourceInfo(server, str(res.uri), res.name, res.mime_type, res.description))
        except Exception as exc:  # noqa: BLE001 - resources are optional; the tools still count
            warnings.append(f"resources could not be listed ({type(exc).__name__})")
    prompts: list[McpPromptInfo] = []
    if caps.prompts is not None:
        try:
            for prompt in await _all_pages(lambda c: client.list_prompts(cursor=c), "prompts"):
                args = tuple((a.name, bool(a.required), a.description) for a in prompt.arguments or ())
                prompts.append(McpPromptInfo(server, prompt.name, prompt.description, args))
        except Exception as exc:  # noqa: BLE001 - prompts are optional; the tools still count
            warnings.append(f"prompts could not be listed ({type(exc).__name__})")
    return Listing(tuple(tools), tuple(names), tuple(resources), tuple(prompts), tuple(warnings))
