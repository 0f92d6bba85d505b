"""The tools a model can be offered and the host they run on, built one way for every surface.

The registry is constructed here and nowhere else, so every surface -- the
``relavium`` commands, the chat, the quick panel, a workflow run --
dispatches through the same tool set and the same pipeline, and a guardrail
wired in here reaches all of them at once.  Only what genuinely differs per
surface is passed in: the workspace, the fs tier, the run a host serves, the
OS capability and the MCP hooks.

Heavy imports stay inside the functions so the CLI's ``--help`` and the
window's first paint do not pay them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from relavium_desktop.engine.host import OsCapability, ToolHost
    from relavium_desktop.engine.tools.http_tools import HttpToolDecl
    from relavium_desktop.engine.tools.known_ids import KnownTools
    from relavium_desktop.engine.tools.registry import ToolRegistry
    from relavium_desktop.engine.tools.tooldef import FsScopeTier, ToolDef
    from relavium_desktop.engine.workflow.loader import LoadedWorkflow
    from relavium_desktop.host.plugins import LoadReport as PluginLoadReport
    from relavium_desktop.host.plugins import PluginStatus

log = logging.getLogger(__name__)


def tool_registry(host: ToolHost | None = None, *, home: Path, extra_tools: Iterable[ToolDef] = ()) -> ToolRegistry:
    """The built-in tools and ``home``'s enabled plugins' tools over ``host``; no host means no capability.

    Without a host every OS tool fails closed.

    The only place the registry is constructed, so every surface dispatches
    through the same tool set and the same pipeline.  ``extra_tools`` are the
    surface's discovered MCP tools (:func:`~relavium_desktop.application.mcp.discover_mcp`);
    one whose id is already taken is left out with a logged reason, never
    shadowing a tool.
    """
    from relavium_desktop.engine.host import ToolHost
    from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
    from relavium_desktop.engine.tools.registry import ToolRegistry

    registry = ToolRegistry([*BUILTIN_TOOLS, *plugin_tools(home)], host if host is not None else ToolHost())
    for tool in extra_tools:
        if registry.get(tool.id) is not None:
            log.warning("tool %s left out: its id is already registered", tool.id)
            continue
        registry.register(tool)
    return registry


def plugin_report(home: Path) -> PluginLoadReport:
    """Load the ENABLED plugins (only they are imported) and say which were refused and why."""
    from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
    from relavium_desktop.host.plugins import load_enabled

    return load_enabled(home, reserved=[t.id for t in BUILTIN_TOOLS])


def plugin_statuses(home: Path) -> list[PluginStatus]:
    """Every installed plugin and its state (loaded, refused with the reason, disabled, missing)."""
    from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
    from relavium_desktop.host.plugins import statuses

    return statuses(home, reserved=[t.id for t in BUILTIN_TOOLS])


def plugin_tools(home: Path) -> list[ToolDef]:
    """The tools of the enabled plugins; a disabled plugin is never imported, a broken one is skipped."""
    return plugin_report(home).tools


def http_tools(decls: Iterable[HttpToolDecl]) -> list[ToolDef]:
    """Registry tools for ``type: http`` declarations (a workflow's or an agent's ``http_tools``)."""
    from relavium_desktop.engine.tools.http_tools import make_http_tool

    return [make_http_tool(d) for d in decls]


def register_http_tools(registry: ToolRegistry, decls: Iterable[HttpToolDecl]) -> list[str]:
    """Add http tools to ``registry``; returns a problem per tool whose id is taken (nothing added for it).

    An http tool must not shadow a built-in, plugin or MCP tool: the author
    would believe they replaced it, and every approval prompt would lie.
    """
    problems: list[str] = []
    for tool in http_tools(decls):
        if registry.get(tool.id) is not None:
            problems.append(f"http tool {tool.id!r} has the id of an existing tool; choose another name")
            continue
        registry.register(tool)
    return problems


def workflow_http_decls(workflow: LoadedWorkflow) -> list[HttpToolDecl]:
    """A loaded workflow's http tools: its own and each agent's (ids are unique: the plan checked)."""
    decls = list(workflow.file.workflow.http_tools)
    names = {d.name for d in decls}
    for agent in workflow.agents.values():
        for decl in agent.http_tools:
            if decl.name not in names:
                names.add(decl.name)
                decls.append(decl)
    return decls


def known_tool_ids(home: Path, *, http_tool_names: Iterable[str] = ()) -> KnownTools:
    """Tool ids that resolve: built-ins, enabled plugins' tools, ``http_tool_names`` and ``mcp_<server>_*``.

    MCP servers come from the user's ``mcp.yaml``; a broken file contributes
    none (the MCP tools then stay unknown, and ``relavium validate`` says so
    rather than crashing).  A workflow's own http tools and servers block are
    added by the plan, which sees the file.
    """
    from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
    from relavium_desktop.engine.tools.known_ids import KnownTools
    from relavium_desktop.host.mcp.config import McpConfigError, load_servers

    where = home
    ids = {t.id for t in BUILTIN_TOOLS} | {t.id for t in plugin_tools(where)} | set(http_tool_names)
    try:
        servers = set(load_servers(where))
    except McpConfigError as exc:
        log.warning("mcp.yaml: %s", exc)
        servers = set()
    return KnownTools(frozenset(ids), frozenset(servers))


def surface_host(
    workspace: Path,
    *,
    surface: str,
    tier: FsScopeTier = "project",
    run_id: str | None = None,
    extra_roots: tuple[Path, ...] = (),
    os_capability: OsCapability | None = None,
    home: Path,
    mcp_hooks: Any = None,
    mcp_roots: tuple[Path, ...] = (),
    mcp_servers: Mapping[str, Any] | None = None,
) -> ToolHost:
    """A freshly pinned host for one surface and project (blocking: pins roots, reads mcp.yaml lazily).

    ``surface`` is ``"chat"`` (full tier clamped to project) or
    ``"workflow"``; ``run_id`` is the only spill folder its file tools may
    read (``None``: the first run it spills for).  ``mcp_servers`` is a
    workflow's own servers block (``{name: entry}``, validated by the host);
    its stdio servers start only with consent (``mcp_hooks.consent``).  A host
    whose MCP servers may start belongs in
    :func:`~relavium_desktop.application.hosting.open_host`, which closes them.
    """
    from relavium_desktop.application.undo import checkpoint_sink
    from relavium_desktop.host.assembly import HostSettings, build_host

    return build_host(HostSettings(
        workspace=workspace, tier=tier, surface=surface, extra_roots=extra_roots,
        os_capability=os_capability, home=home, run_id=run_id,
        mcp_hooks=mcp_hooks, mcp_roots=mcp_roots, mcp_servers=mcp_servers,
        checkpoints=checkpoint_sink(home),  # every successful file write can be undone
    ))
