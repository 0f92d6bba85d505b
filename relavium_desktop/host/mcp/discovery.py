"""What each MCP server offers: tools (allowlisted, schema-checked), resources and prompts.

Discovery is what turns a configured server into tools a model can be
offered, so it must never be the reason a surface hangs or crashes: each
server is asked under its own deadline (see ``McpHost.discover``), and what
comes back is a :class:`ServerReport` -- ``ok=False`` with a clear reason for
a dead, hung or refused server.  Within one server the listing is tolerant:
a server without the resources or prompts capability (or one that fails
those lists) simply offers none, and a tool we cannot offer is left out with
its reason (``ServerReport.skipped``, also a warning line) instead of taking
the server's other tools down with it:

- no name, or an empty one (its id would be a bare ``mcp_<server>_``);
- no ``inputSchema``, or one we could not check arguments against -- when the
  server's listing fails the SDK's validation as a whole, it is fetched again
  raw and each tool is checked on its own, so one bad entry costs only itself;
- ``execution.taskSupport: "required"``: the client declares no tasks
  capability, so every call of such a tool would fail with -32601.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import mcp_types as types
from pydantic import ValidationError

# The report shapes are the engine's (its McpCapability returns them); named here too, where they are made.
from relavium_desktop.engine.mcp_reports import McpPromptInfo, McpResourceInfo, McpToolInfo, ServerReport
from relavium_desktop.engine.tools.json_schema import InputSchemaError, validate_input_schema
from relavium_desktop.engine.tools.mcp_tools import RefusedTool
from relavium_desktop.host.mcp.config import HttpServer, StdioServer

__all__ = [
    "Listing",
    "McpPromptInfo",
    "McpResourceInfo",
    "McpToolInfo",
    "ServerReport",
    "list_server",
    "prime_tool_listing",
]

log = logging.getLogger("relavium.mcp")

PAGE_CAP = 100  # a paginator that never ends cannot hang discovery
_P = TypeVar("_P")
TASK_REQUIRED_REASON = (
    'it declares execution.taskSupport "required" (callable only as an MCP task), '
    "and Relavium does not support MCP tasks"
)


@dataclass(frozen=True, slots=True)
class Listing:
    tools: tuple[McpToolInfo, ...]
    all_tool_names: tuple[str, ...]
    resources: tuple[McpResourceInfo, ...]
    prompts: tuple[McpPromptInfo, ...]
    warnings: tuple[str, ...]
    skipped: tuple[RefusedTool, ...] = ()


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


async def _raw_tools_page(client: Any, cursor: str | None) -> tuple[list[Any], str | None]:
    """One ``tools/list`` page as raw JSON, for a listing the SDK refused to validate as a whole.

    The SDK validates the page in one piece, so a single tool without an
    ``inputSchema`` fails all of them.  This asks again through the session's
    own dispatcher (stamped exactly as the SDK stamps requests), skipping only
    the whole-page validation; each tool is then validated alone.
    """
    session = client.session
    data: dict[str, Any] = {"method": "tools/list", "params": {"cursor": cursor} if cursor else {}}
    opts: dict[str, Any] = {}
    session._stamp(data, opts)  # the protocol headers/_meta a request must carry
    raw = await session._dispatcher.send_raw_request(data["method"], data.get("params") or None, opts)
    tools = raw.get("tools") if isinstance(raw, dict) else None
    if not isinstance(tools, list):
        raise ValueError("the server's tools/list result has no list of tools")
    next_cursor = raw.get("nextCursor")
    return tools, next_cursor if isinstance(next_cursor, str) and next_cursor else None


async def _list_tools(client: Any) -> list[Any]:
    """Every listed tool: ``types.Tool`` objects, or raw dicts when the listing needed the per-tool path."""
    try:
        return await _all_pages(lambda c: client.list_tools(cursor=c), "tools")
    except ValidationError:
        pass
    out: list[Any] = []
    cursor: str | None = None
    for _ in range(PAGE_CAP):
        page, cursor = await _raw_tools_page(client, cursor)
        out.extend(page)
        if not cursor:
            break
    _absorb(client, out)
    return out


async def prime_tool_listing(client: Any) -> None:
    """List the tools once on a fresh session before its first call, tolerating broken entries.

    The SDK lists a session's tools itself before checking a call's result
    against the tool's output schema, and that listing fails as a whole on one
    bad tool -- after the call already ran.  Listing here first (per tool, as
    discovery does) means a broken neighbour never fails a good tool's call.
    A listing that fails anyway leaves the SDK's own behaviour in place.
    """
    with contextlib.suppress(Exception):
        await _list_tools(client)


def _absorb(client: Any, raw_tools: list[Any]) -> None:
    """Let the session learn the valid tools (output schemas, 2026 header maps) as its own listing would."""
    valid: list[types.Tool] = []
    for item in raw_tools:
        with contextlib.suppress(ValidationError):
            valid.append(types.Tool.model_validate(item, by_name=False))
    with contextlib.suppress(Exception):  # a private hook: without it calls still work, unvalidated
        client.session._absorb_tool_listing(types.ListToolsResult(tools=valid), complete=True)


def _checked_tool(item: Any) -> tuple[str, types.Tool | None, str | None]:
    """``(name, tool, reason)``: the tool when it can be offered, else why not (name may be empty)."""
    if isinstance(item, types.Tool):
        tool = item
    else:
        raw_name = item.get("name") if isinstance(item, dict) else None
        name = raw_name if isinstance(raw_name, str) else ""
        if isinstance(item, dict) and not isinstance(item.get("inputSchema"), dict):
            return name, None, "it has no inputSchema"
        try:
            tool = types.Tool.model_validate(item, by_name=False)
        except ValidationError as exc:
            where = ", ".join(".".join(str(p) for p in err["loc"]) or "tool" for err in exc.errors()[:3])
            return name, None, f"its listing is not a valid MCP tool ({where})"
    if not tool.name or not tool.name.strip():
        return tool.name, None, "its name is empty"
    execution = tool.execution
    if execution is not None and execution.task_support == "required":
        return tool.name, None, TASK_REQUIRED_REASON
    try:
        validate_input_schema(tool.input_schema)
    except InputSchemaError as exc:
        return tool.name, None, f"unusable input schema: {exc}"
    return tool.name, tool, None


async def list_server(client: Any, server: str, entry: StdioServer | HttpServer) -> Listing:
    """List one connected server's tools (every page), resources and prompts."""
    warnings: list[str] = []
    skipped: list[RefusedTool] = []
    tools: list[McpToolInfo] = []
    names: list[str] = []
    for item in await _list_tools(client):
        name, tool, reason = _checked_tool(item)
        if name:
            names.append(name)
        if not entry.offers(name):
            continue
        if tool is None:
            reason = reason or "it cannot be offered"
            skipped.append(RefusedTool(server, name, reason))
            warnings.append(f"tool {name!r} left out: {reason}")
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
    return Listing(tuple(tools), tuple(names), tuple(resources), tuple(prompts), tuple(warnings), tuple(skipped))
