"""MCP for every surface: discovery into tools, a workflow's own servers, consent, and a run's lifetime.

The host speaks to servers; this module decides what a surface does with
them -- which servers a run needs, whether a workflow's stdio server may
start, what a checkpoint keeps so a resumed run starts the same servers --
so the window and ``relavium`` answer these questions the same way.

Heavy imports stay inside the functions.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.mcp_reports import DISCOVERY_TIMEOUT_S

if TYPE_CHECKING:
    from relavium_desktop.engine.host import ToolHost
    from relavium_desktop.engine.mcp_reports import ServerReport
    from relavium_desktop.engine.tools.mcp_tools import RefusedTool
    from relavium_desktop.engine.tools.registry import ToolRegistry
    from relavium_desktop.engine.tools.tooldef import ToolDef
    from relavium_desktop.engine.workflow.loader import LoadedWorkflow
    from relavium_desktop.host.mcp.hooks import ConsentRequest, McpClientHooks
    from relavium_desktop.store.mcp_consents import McpConsentStore

__all__ = [
    "DISCOVERY_TIMEOUT_S",
    "McpDiscovery",
    "add_mcp_tools",
    "cli_mcp_hooks",
    "consent_needed_message",
    "discover_mcp",
    "mcp_consents",
    "mcp_from_surface",
    "mcp_servers_for_tools",
    "mcp_servers_of",
    "mcp_surface",
    "merge_mcp_servers",
    "run_with_mcp",
    "unconsented_stdio_servers",
    "workflow_mcp_block",
    "workflow_mcp_servers",
    "workflow_tool_ids",
]


@dataclasses.dataclass(frozen=True, slots=True)
class McpDiscovery:
    """What discovery found: the tools to offer, each server's report, and tools left out with why."""

    tools: list[ToolDef]
    reports: list[ServerReport]
    refused: list[RefusedTool] = dataclasses.field(default_factory=list)

    def problems(self) -> list[str]:
        """One secret-free line per unavailable server, left-out tool or server warning."""
        lines = [f"MCP server {r.server}: unavailable: {r.error or 'no reason given'}" for r in self.reports if not r.ok]
        lines += [f"MCP server {t.server}: tool {t.name!r} left out: {t.reason}" for t in self.refused]
        lines += [f"MCP server {r.server}: {w}" for r in self.reports if r.ok for w in r.warnings]
        return lines


async def discover_mcp(
    host: ToolHost,
    timeout_s: float = DISCOVERY_TIMEOUT_S,
    *,
    servers: Collection[str] | None = None,
    reserved: Iterable[str] | None = None,
) -> McpDiscovery:
    """Ask every configured MCP server (or only ``servers``) for its tools, each under ``timeout_s``.

    Never raises for a dead, hung or refused server: its report says why and
    its tools are simply not offered.  ``reserved`` are ids the tools may not
    take (default: the built-in tools' ids; pass the registry's ids to keep
    plugin tools too -- the registry refuses a clashing tool either way).
    """
    from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
    from relavium_desktop.engine.tools.mcp_tools import build_mcp_tools

    reports = list(await host.mcp_or_absent().discover(servers, timeout_s=timeout_s))
    if reserved is None:
        reserved = [t.id for t in BUILTIN_TOOLS]
    built = build_mcp_tools((t for r in reports if r.ok for t in r.tools), reserved=reserved)
    return McpDiscovery(built.tools, reports, built.refused)


def mcp_servers_for_tools(tool_ids: Iterable[str], server_names: Iterable[str]) -> list[str]:
    """The configured servers whose ``mcp_<server>_*`` ids appear in ``tool_ids`` (what to discover)."""
    from relavium_desktop.engine.tools.mcp_tools import server_prefix

    wanted = [t for t in tool_ids if t.startswith("mcp_")]
    return sorted(s for s in server_names if any(t.startswith(server_prefix(s)) for t in wanted))


def mcp_servers_of(host: ToolHost, tool_ids: Iterable[str]) -> list[str]:
    """The configured MCP servers whose ``mcp_<server>_*`` tools ``tool_ids`` name (to discover before a run).

    A broken mcp.yaml names none here; a discovery of all servers reports it.
    """
    try:
        configured = host.mcp_or_absent().server_names()
    except Exception:  # noqa: BLE001 -- McpConfigError: the run's MCP tools stay unavailable
        return []
    return mcp_servers_for_tools(tool_ids, configured)


async def add_mcp_tools(registry: ToolRegistry, servers: Collection[str],
                        timeout_s: float = DISCOVERY_TIMEOUT_S) -> list[str]:
    """Discover ``servers`` on the registry's host and register their tools; the problems, one line each.

    Runs in the loop that will make the calls (an MCP session belongs to its
    event loop).  A server that is down leaves its tools out -- the model is
    simply not offered them -- and its reason is in the returned lines.
    """
    if not servers:
        return []
    found = await discover_mcp(registry.host, timeout_s, servers=servers, reserved=registry.ids())
    for tool in found.tools:
        registry.register(tool)
    return found.problems()


def mcp_consents(home: Path) -> McpConsentStore:
    """The per-project consents to start a workflow's own stdio MCP servers, in ``history.db``."""
    from relavium_desktop.host.fs.preview import HOST_GRANT_PATHS
    from relavium_desktop.store.mcp_consents import McpConsentStore

    return McpConsentStore.open(home, HOST_GRANT_PATHS.canonical)


def workflow_mcp_servers(raw: Mapping[str, Any] | None, source: str = "workflow mcp_servers") -> dict[str, Any]:
    """A workflow's ``mcp_servers`` block checked with mcp.yaml's rules; McpConfigError naming entry and field.

    The engine keeps the block raw (it may not import the host); the surface
    validates it here before a host is built from it.
    """
    from relavium_desktop.host.mcp.config import parse_servers

    if not raw:
        return {}
    parse_servers(raw, source=source)
    return dict(raw)


def consent_needed_message(server: str, origin: str = "the workflow") -> str:
    """What the command line says when a declared stdio server may not start yet, and how to allow it."""
    return (f"MCP server {server} (from {origin}) needs your consent before it starts: "
            f"run again with --approve-mcp {server}")


def merge_mcp_servers(*blocks: tuple[str, Mapping[str, Any] | None]) -> dict[str, Any]:
    """``(where, block)`` pairs merged into one servers block; McpConfigError when two declare one name differently."""
    from relavium_desktop.host.mcp.config import McpConfigError

    merged: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for where, block in blocks:
        for name, entry in (block or {}).items():
            if name in merged and merged[name] != entry:
                raise McpConfigError(f"{where}: MCP server {name!r} is also declared, differently, by {origin[name]}")
            merged.setdefault(name, entry)
            origin.setdefault(name, where)
    return merged


def workflow_mcp_block(workflow: LoadedWorkflow) -> dict[str, Any]:
    """The workflow's own servers and those its agents' files declare, as one validated block.

    Raises McpConfigError naming the entry and field (or the two places that
    declare one name differently).
    """
    return workflow_mcp_servers(merge_mcp_servers(
        ("workflow mcp_servers", workflow.file.workflow.mcp_servers),
        *((f"agent {a.id} mcp_servers", a.mcp_servers) for a in workflow.agents.values()),
    ))


def workflow_tool_ids(workflow: LoadedWorkflow) -> list[str]:
    """Every tool id the workflow names: its agents' and agent nodes' grants and its tool nodes."""
    ids = [t for agent in workflow.agents.values() for t in agent.tools]
    for node in workflow.file.workflow.nodes:
        ids += list(getattr(node, "tools", None) or [])
        config = getattr(node, "tool_config", None)
        if config is not None:
            ids.append(config.tool_name)
    return ids


def mcp_surface(block: Mapping[str, Any], tool_ids: Iterable[str]) -> dict[str, Any]:
    """What a run's checkpoint keeps of its MCP servers, so resuming it starts the same ones.

    The block holds launch lines and credential *references* only (literal
    credentials are refused in it), never a secret.
    """
    mcp_ids = sorted({t for t in tool_ids if t.startswith("mcp_") and t != "mcp_call"})
    return {"mcpServers": dict(block), "mcpToolIds": mcp_ids} if block or mcp_ids else {}


def mcp_from_surface(surface: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A checkpoint's ``(servers block, MCP tool ids the run names)``; McpConfigError when the block is not valid."""
    block = surface.get("mcpServers") or {}
    names = surface.get("mcpToolIds") or []
    valid = workflow_mcp_servers(block if isinstance(block, Mapping) else None, source="the run's mcp_servers")
    return valid, [n for n in names if isinstance(n, str)]


async def run_with_mcp(registry: ToolRegistry, servers: Collection[str], run: Callable[[], Awaitable[Any]],
                       on_problem: Callable[[str], object] = lambda _line: None) -> Any:
    """Discover ``servers``' tools in the run's own loop, run it, then stop the servers it started.

    Every surface that runs a workflow goes through here, so a run's MCP
    sessions live exactly as long as the run.
    """
    try:
        for line in await add_mcp_tools(registry, servers):
            on_problem(line)
        return await run()
    finally:
        await registry.host.mcp_or_absent().aclose()


def unconsented_stdio_servers(
    servers: Mapping[str, Any], approved: Collection[str], *, project: Path,
    consents: Callable[[], McpConsentStore],
) -> list[str]:
    """The stdio servers of a workflow's block that may not start: neither approved now nor consented before.

    ``consents`` is the process's one consent store (``Application.consents``), asked for only
    when there is a stdio server to look up.
    """
    from relavium_desktop.host.mcp.config import StdioServer, parse_servers
    from relavium_desktop.host.mcp.fingerprint import stdio_fingerprint

    parsed = parse_servers(servers, source="workflow mcp_servers") if servers else {}
    stdio = {name: e for name, e in parsed.items() if isinstance(e, StdioServer) and name not in approved}
    if not stdio:
        return []
    store = consents()
    return sorted(n for n, e in stdio.items() if not store.is_granted(project, n, stdio_fingerprint(e)))


def cli_mcp_hooks(
    approved: Collection[str], *, project: Path, consents: Callable[[], McpConsentStore],
    interactive: bool | None = None,
) -> McpClientHooks:
    """The command line's MCP client hooks: what a person at the terminal can answer.

    Consent: a workflow's stdio server starts only when named with
    ``--approve-mcp`` or consented to before (in the app) for this project
    and this exact launch.  Sampling is refused (no ``sample`` hook).

    ``interactive`` (default: stdin is a terminal): a server's elicitation form
    is asked field by field (:mod:`.terminal_forms`) and a server that needs
    an OAuth sign-in opens the browser; otherwise a form is declined (a line
    on stderr says which server asked) and a sign-in is a failure saying to
    run ``relavium mcp login NAME``.
    """
    from relavium_desktop.application.mcp_auth import terminal_browser
    from relavium_desktop.host.mcp.hooks import ElicitationAnswer, ElicitationRequest, McpClientHooks

    names = frozenset(approved)
    at_terminal = sys.stdin.isatty() if interactive is None else interactive

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    async def consent(request: ConsentRequest) -> bool:
        if request.server in names:
            return True
        if consents().is_granted(project, request.server, request.fingerprint):
            return True
        print(f"relavium: {consent_needed_message(request.server)}", file=sys.stderr)
        return False

    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        if at_terminal:
            from relavium_desktop.application.terminal_forms import ask_form

            return await asyncio.to_thread(ask_form, request, _read_line, say)
        print(f"relavium: MCP server {request.server} asked for input; the command line cannot show forms "
              "without a terminal, so the request was declined", file=sys.stderr)
        return ElicitationAnswer("decline")

    return McpClientHooks(elicit=elicit, sample=None, consent=consent,
                          open_browser=terminal_browser(say) if at_terminal else None)


def _read_line(prompt: str) -> str | None:
    """One line from the terminal (prompt on stderr); None at end of input."""
    sys.stderr.write(prompt)
    sys.stderr.flush()
    line = sys.stdin.readline()
    return line.rstrip("\n") if line else None
