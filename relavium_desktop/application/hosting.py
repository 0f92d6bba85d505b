"""A tool host for the length of one ``async with``: built, its MCP servers discovered, and always closed.

A host's MCP servers are processes (stdio) or sessions (HTTP) that must not
outlive what they were started for.  Each surface used to close them by hand
in its own ``finally``; here the lifetime is one typed block instead::

    async with open_host(app, workspace, surface="workflow", discover="all") as hosted:
        hosted.registry      # built-ins, plugins, extra tools and the discovered MCP tools
        hosted.discovery     # the MCP tools found, each server's report, problems()
        hosted.server_names()

Every MCP server the host started is stopped when the block ends -- normally,
on an exception, or when the task running it is cancelled.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Collection, Iterable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from relavium_desktop.application.mcp import DISCOVERY_TIMEOUT_S, McpDiscovery, discover_mcp
from relavium_desktop.application.tools import surface_host, tool_registry

if TYPE_CHECKING:
    from relavium_desktop.application.app import Application
    from relavium_desktop.engine.host import OsCapability, ToolHost
    from relavium_desktop.engine.tools.registry import ToolRegistry
    from relavium_desktop.engine.tools.tooldef import FsScopeTier, ToolDef

AllServers = Literal["all"]


class HostedTools:
    """A host and its registry while their ``async with`` block runs, and what MCP discovery found so far."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry
        self.discovery = McpDiscovery([], [])

    @property
    def host(self) -> ToolHost:
        return self.registry.host

    def server_names(self) -> list[str]:
        """The configured MCP servers (mcp.yaml's and the workflow's), sorted.

        Raises ``McpConfigError`` naming the entry and field when the
        configuration is broken.
        """
        return self.host.mcp_or_absent().server_names()

    async def discover(
        self, servers: Collection[str] | AllServers = "all", *, timeout_s: float = DISCOVERY_TIMEOUT_S
    ) -> McpDiscovery:
        """Ask ``servers`` (or every configured one) for their tools and add them to the registry.

        Never raises for a dead, hung or refused server: its report says why
        (``discovery.problems()``) and its tools are not offered.  A tool
        whose id is taken is left out with its reason.  Returns what this
        call found; :attr:`discovery` accumulates every call's.
        """
        wanted = None if servers == "all" else list(servers)
        if wanted == []:
            return McpDiscovery([], [])
        found = await discover_mcp(self.host, timeout_s, servers=wanted, reserved=self.registry.ids())
        for tool in found.tools:
            self.registry.register(tool)
        self.discovery = McpDiscovery(
            [*self.discovery.tools, *found.tools],
            [*self.discovery.reports, *found.reports],
            [*self.discovery.refused, *found.refused],
        )
        return found


@asynccontextmanager
async def own_host(registry: ToolRegistry) -> AsyncIterator[HostedTools]:
    """Own an already-built registry's host for the block: its MCP servers are stopped when it ends.

    For a surface that builds and checks its registry before it runs
    anything (an agent's http tools and tool config); :func:`open_host`
    builds one itself.
    """
    hosted = HostedTools(registry)
    try:
        yield hosted
    finally:
        await close_mcp(hosted.host)


@asynccontextmanager
async def open_host(
    app: Application,
    workspace: Path,
    *,
    surface: str,
    tier: FsScopeTier = "project",
    run_id: str | None = None,
    extra_roots: tuple[Path, ...] = (),
    os_capability: OsCapability | None = None,
    mcp_hooks: Any = None,
    mcp_roots: tuple[Path, ...] = (),
    mcp_servers: Mapping[str, Any] | None = None,
    extra_tools: Iterable[ToolDef] = (),
    discover: Collection[str] | AllServers = (),
    timeout_s: float = DISCOVERY_TIMEOUT_S,
) -> AsyncIterator[HostedTools]:
    """A host for ``workspace`` in ``app``'s data folder, its registry, and ``discover``'s MCP tools.

    The host is built in a worker thread (pinning its roots and loading the
    enabled plugins touch the disk), then ``discover`` -- ``"all"`` or some
    server names; none by default -- is asked for its tools in this loop, the
    one that will make the calls.  ``extra_tools`` (a workflow's http tools,
    say) join the registry before discovery, so an MCP tool cannot take
    their ids.  The other parameters are :func:`~relavium_desktop.application.tools.surface_host`'s.
    """
    home = app.paths.home

    def build() -> ToolRegistry:
        host = surface_host(
            workspace, surface=surface, tier=tier, run_id=run_id, extra_roots=extra_roots,
            os_capability=os_capability, home=home, mcp_hooks=mcp_hooks, mcp_roots=mcp_roots,
            mcp_servers=mcp_servers,
        )
        return tool_registry(host, home=home, extra_tools=extra_tools)

    async with own_host(await asyncio.to_thread(build)) as hosted:
        await hosted.discover(discover, timeout_s=timeout_s)
        yield hosted


async def close_mcp(host: ToolHost) -> None:
    """Stop every MCP server ``host`` started, even when the task closing it is being cancelled.

    The close runs as its own task, shielded: a cancel arriving while the
    servers are stopped waits for them to be stopped, then goes on.
    """
    closing = asyncio.ensure_future(host.mcp_or_absent().aclose())
    try:
        await asyncio.shield(closing)
    except asyncio.CancelledError:
        await asyncio.wait({closing})
        raise
