"""Discovered MCP tools as first-class tools: ``mcp_{server}_{tool}`` with the server's own schema.

``mcp_call`` makes the model name a server and a tool and guess the
arguments; a discovered tool instead is offered under its own id with the
schema the server published, so the model sees real parameters and the
registry validates against exactly that schema before anything is sent.
Everything else is the pipeline every tool goes through: the ``mcp`` egress
class (approval regimes ask about it exactly as for ``mcp_call``), the
grant check, bounding and masking of the result.

While a call runs, the server's progress notifications and log lines become
``agent:tool_progress`` / ``agent:tool_log`` events -- masked and clipped,
because a server's log is outside text that may quote a credential.

Binary content in a result arrives as media handles (the host published the
bytes); dispatch admits every handle in the result -- ``structuredContent``
included -- into the call's media scope, so ``read_media`` can show it.  The
media capability admits only handles its own host published, so a server
naming some other object's handle gains nothing.

A tool with an empty name is refused (its id would be a bare
``mcp_<server>_``), as is one whose schema is unusable or whose id clashes.

The engine never talks to the server: dispatch goes through the host's
``McpCapability`` (``host.mcp.call``).  Which servers exist and what they
list is the host's discovery; this module only shapes its answers.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from relavium_desktop.engine.events import AgentToolLog, AgentToolProgress
from relavium_desktop.engine.host import LogSink, ProgressSink, ToolHost
from relavium_desktop.engine.llm.schema_dialect import SchemaDialectError, check_portable
from relavium_desktop.engine.tools.json_schema import InputSchemaError, validate_input_schema
from relavium_desktop.engine.tools.masking import clip, mask_text
from relavium_desktop.engine.tools.media_turn import media_scope_of
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import PolicyClass, RawArgs, ToolDef, ToolDispatchContext

MAX_ID_CHARS = 64  # the tightest provider limit on a function name
MAX_DESCRIPTION_CHARS = 1_024
MAX_EVENT_TEXT = 500  # one progress message or log line in an event
MAX_LOGS_PER_CALL = 200  # a chatty server must not flood the run log
PREFIX = "mcp_"

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_HANDLE = re.compile(r"media://sha256-[0-9a-f]{64}")
MAX_HANDLES_PER_RESULT = 256
MAX_WALK_DEPTH = 70  # the host cuts structured content deeper than 64 levels


def mcp_tool_id(server: str, tool: str) -> str:
    """``mcp_{server}_{tool}`` with every character outside ``[A-Za-z0-9_-]`` made ``_``; at most 64 chars.

    A longer id is cut and ends in ``_`` + 8 hex digits of the SHA-256 of the
    unsanitised pair, so two long names that share a prefix stay distinct.
    """
    safe = _UNSAFE.sub("_", f"{PREFIX}{server}_{tool}")
    if len(safe) <= MAX_ID_CHARS:
        return safe
    digest = hashlib.sha256(f"{server}\x00{tool}".encode()).hexdigest()[:8]
    return f"{safe[: MAX_ID_CHARS - 9]}_{digest}"


def server_prefix(server: str) -> str:
    """The id prefix every tool of ``server`` starts with (before any cut of a long id)."""
    return _UNSAFE.sub("_", f"{PREFIX}{server}_")


def _description(server: str, name: str, description: str, title: str | None) -> str:
    text = " ".join((description or title or "").split())
    origin = f"(MCP tool {name!r} of server {server!r})"
    room = MAX_DESCRIPTION_CHARS - len(origin) - 1
    if len(text) > room:
        text = text[: room - 3].rstrip() + "..."
    return f"{text} {origin}" if text else origin


def _progress_sink(ctx: ToolDispatchContext, tool_id: str) -> ProgressSink | None:
    emit = ctx.emit
    if emit is None:
        return None

    def on_progress(progress: float, total: float | None, message: str | None) -> None:
        text = clip(mask_text(message), MAX_EVENT_TEXT) if message else None
        emit(AgentToolProgress(node_id=ctx.node_id, tool_id=tool_id, progress=float(progress),
                               total=float(total) if total is not None else None, message=text))

    return on_progress


def _log_sink(ctx: ToolDispatchContext, tool_id: str) -> LogSink | None:
    emit = ctx.emit
    if emit is None:
        return None
    sent = 0

    def on_log(level: str, message: str) -> None:
        nonlocal sent
        sent += 1
        if sent > MAX_LOGS_PER_CALL:
            if sent == MAX_LOGS_PER_CALL + 1:
                emit(AgentToolLog(node_id=ctx.node_id, tool_id=tool_id, level="warning",
                                  message=f"further server log lines of this call dropped (over {MAX_LOGS_PER_CALL})"))
            return
        emit(AgentToolLog(node_id=ctx.node_id, tool_id=tool_id, level=clip(str(level), 32),
                          message=clip(mask_text(str(message)), MAX_EVENT_TEXT)))

    return on_log


def result_media_handles(result: Any) -> list[str]:
    """Every handle the host placed in an MCP result (``"media": "media://..."`` anywhere), bounded."""
    found: list[str] = []
    stack: list[tuple[Any, int]] = [(result, 0)]
    while stack and len(found) < MAX_HANDLES_PER_RESULT:
        value, depth = stack.pop()
        if depth > MAX_WALK_DEPTH:
            continue
        if isinstance(value, dict):
            handle = value.get("media")
            if isinstance(handle, str) and _HANDLE.fullmatch(handle) and handle not in found:
                found.append(handle)
            stack.extend((v, depth + 1) for v in value.values() if isinstance(v, dict | list))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value if isinstance(v, dict | list))
    return found


async def admit_result_media(result: Any, host: ToolHost, ctx: ToolDispatchContext) -> None:
    """Every handle anywhere in an MCP result (structuredContent included) becomes readable in the call's scope."""
    media = host.media
    if media is None:
        return
    scope = media_scope_of(ctx)
    for handle in result_media_handles(result):
        await media.admit(handle, scope)


def make_mcp_tool(
    server: str,
    name: str,
    description: str,
    input_schema: Mapping[str, Any],
    *,
    title: str | None = None,
) -> ToolDef:
    """The ToolDef for one discovered tool; InputSchemaError (with the reason) for a schema we cannot use.

    The schema must be a valid object schema (it is what the registry checks
    arguments against) and expressible to every provider (no recursion, only
    local references): a tool that fails either is refused at discovery.
    """
    if not name.strip():
        raise InputSchemaError("the tool's name is empty")
    validate_input_schema(input_schema)
    try:
        check_portable(input_schema)
    except SchemaDialectError as exc:
        raise InputSchemaError(str(exc)) from None
    tool_id = mcp_tool_id(server, name)

    async def dispatch(args: Any, host: ToolHost, ctx: ToolDispatchContext) -> Any:
        mcp = require(host.mcp, tool_id, "MCP client")
        result = await mcp.call(server, name, dict(args),
                                on_progress=_progress_sink(ctx, tool_id), on_log=_log_sink(ctx, tool_id))
        await admit_result_media(result, host, ctx)
        return result

    return ToolDef(
        id=tool_id,
        description=_description(server, name, description, title),
        args_model=RawArgs,
        dispatch=dispatch,
        source="mcp",
        policy=PolicyClass(egress="mcp"),
        input_schema=dict(input_schema),
    )


class McpToolLike(Protocol):
    """What discovery reports per tool (the host's ``McpToolInfo``), read by attribute."""

    @property
    def server(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def input_schema(self) -> Mapping[str, Any]: ...

    @property
    def title(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class RefusedTool:
    """A discovered tool that is not offered, and why (shown in tools list / Settings)."""

    server: str
    name: str
    reason: str


@dataclass(slots=True)
class McpToolSet:
    tools: list[ToolDef] = field(default_factory=list)
    refused: list[RefusedTool] = field(default_factory=list)


def build_mcp_tools(infos: Iterable[McpToolLike], *, reserved: Iterable[str] = ()) -> McpToolSet:
    """ToolDefs for every usable discovered tool, in order.

    Two tools mapping to one id (``a.b`` and ``a_b``, or an id a built-in
    already has): the first keeps it, the later one is refused with the name
    of the tool it clashes with -- never silently shadowed.
    """
    out = McpToolSet()
    taken: dict[str, str] = {tid: "a built-in tool" for tid in reserved}
    for info in infos:
        if not info.name.strip():
            out.refused.append(RefusedTool(info.server, info.name, "its name is empty"))
            continue
        tool_id = mcp_tool_id(info.server, info.name)
        if tool_id in taken:
            out.refused.append(RefusedTool(info.server, info.name,
                                           f"its id {tool_id} is already used by {taken[tool_id]}"))
            continue
        try:
            tool = make_mcp_tool(info.server, info.name, info.description or "", info.input_schema,
                                 title=info.title)
        except InputSchemaError as exc:
            out.refused.append(RefusedTool(info.server, info.name, f"unusable input schema: {exc}"))
            continue
        taken[tool_id] = f"tool {info.name!r} of server {info.server!r}"
        out.tools.append(tool)
    return out
