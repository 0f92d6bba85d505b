"""What MCP discovery reports per server: plain data the engine's ``McpCapability`` returns.

The host lists servers (``relavium_desktop.host.mcp.discovery``); the engine
and the surfaces read the answer.  The shapes live here, in the pure layer,
so the capability's ``discover`` is typed end to end without the engine
importing the host, and a stand-in capability (a test's, or the absent one)
returns the same values.  Light on purpose (no imports at run time): the
window may name these types before its first paint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from relavium_desktop.engine.tools.mcp_tools import RefusedTool

# How long one MCP server may take to list what it offers, unless a surface says otherwise.
DISCOVERY_TIMEOUT_S = 15.0


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
    # user = $RELAVIUM_HOME/mcp.yaml; workflow = injected by a workflow/agent
    origin: Literal["user", "workflow"]
    ok: bool
    tools: tuple[McpToolInfo, ...] = ()  # offered tools, already filtered by the server's allowlist
    all_tool_names: tuple[str, ...] = ()  # everything the server lists (for Settings' allowlist checkboxes)
    resources: tuple[McpResourceInfo, ...] = ()
    prompts: tuple[McpPromptInfo, ...] = ()
    error: str | None = None  # clear, secret-free reason when not ok
    latency_ms: int | None = None
    # Problems that did not stop the server (a tool left out for an unusable schema, a failed prompt list).
    warnings: tuple[str, ...] = field(default=())
    # Tools the server lists (and the allowlist passes) that are not offered, each with its reason.
    skipped: tuple[RefusedTool, ...] = field(default=())
