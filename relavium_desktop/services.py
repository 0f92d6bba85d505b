"""The former composition root, now a thin re-export of the application modules while surfaces move over.

What lived here is in ``relavium_desktop.application`` under names that say
what it does: :mod:`~relavium_desktop.application.tools` (the registry and
the host), :mod:`~relavium_desktop.application.mcp` (discovery, a
workflow's servers, consent), :mod:`~relavium_desktop.application.providers`,
:mod:`~relavium_desktop.application.stores`,
:mod:`~relavium_desktop.application.engines` and
:mod:`~relavium_desktop.application.hosting` (a host's MCP lifetime).  New
code imports from there; this module goes away once nothing imports it.

The agent-file loading below stays here until its application module
replaces it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.application.engines import agent_runner, build_workflow_engine
from relavium_desktop.application.mcp import (
    DISCOVERY_TIMEOUT_S,
    McpDiscovery,
    add_mcp_tools,
    cli_mcp_hooks,
    consent_needed_message,
    discover_mcp,
    mcp_consents,
    mcp_from_surface,
    mcp_servers_for_tools,
    mcp_servers_of,
    mcp_surface,
    merge_mcp_servers,
    run_with_mcp,
    unconsented_stdio_servers,
    workflow_mcp_block,
    workflow_mcp_servers,
    workflow_tool_ids,
)
from relavium_desktop.application.providers import media_host, provider_entries, provider_set, provider_store
from relavium_desktop.application.stores import grant_store, run_store, session_store
from relavium_desktop.application.tools import (
    http_tools,
    known_tool_ids,
    plugin_report,
    plugin_statuses,
    plugin_tools,
    register_http_tools,
    surface_host,
    tool_registry,
    workflow_http_decls,
)

if TYPE_CHECKING:
    from relavium_desktop.engine.agent.spec import AgentSpec

__all__ = [
    "AGENTS_DIR",
    "AGENT_FILE_GLOB",
    "DISCOVERY_TIMEOUT_S",
    "AgentFileError",
    "McpDiscovery",
    "add_mcp_tools",
    "agent_runner",
    "build_workflow_engine",
    "cli_mcp_hooks",
    "consent_needed_message",
    "discover_mcp",
    "grant_store",
    "http_tools",
    "known_tool_ids",
    "load_agent",
    "mcp_consents",
    "mcp_from_surface",
    "mcp_servers_for_tools",
    "mcp_servers_of",
    "mcp_surface",
    "media_host",
    "merge_mcp_servers",
    "plugin_report",
    "plugin_statuses",
    "plugin_tools",
    "provider_entries",
    "provider_set",
    "provider_store",
    "register_http_tools",
    "run_store",
    "run_with_mcp",
    "session_store",
    "surface_host",
    "tool_registry",
    "unconsented_stdio_servers",
    "user_agents",
    "workflow_http_decls",
    "workflow_mcp_block",
    "workflow_mcp_servers",
    "workflow_tool_ids",
]

log = logging.getLogger(__name__)

AGENTS_DIR = "agents"  # under $RELAVIUM_HOME: the user's own *.agent.yaml files
AGENT_FILE_GLOB = "*.agent.yaml"


# -- agents -------------------------------------------------------------------------


class AgentFileError(Exception):
    """The agent file is unreadable or invalid; the message lists each problem."""


def load_agent(path_arg: str | None) -> AgentSpec:
    """The agent in ``path_arg``, or the built-in chat agent when none is named."""
    from relavium_desktop.engine.agent.default_chat import default_chat_agent
    from relavium_desktop.engine.agent.yaml_source import AgentSpecError, parse_agent_yaml

    if path_arg is None:
        return default_chat_agent()
    path = Path(path_arg)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise AgentFileError(f"{path_arg}: cannot read the agent file ({exc.strerror or type(exc).__name__})") from None
    except UnicodeDecodeError:
        raise AgentFileError(f"{path_arg}:1:1: the agent file is not UTF-8 text") from None
    try:
        return parse_agent_yaml(text, path_arg)
    except AgentSpecError as exc:
        raise AgentFileError(str(exc)) from None


def user_agents(home: Path) -> list[tuple[str, AgentSpec]]:
    """``(file name, spec)`` for each ``$RELAVIUM_HOME/agents/*.agent.yaml``, sorted by name.

    A broken file is skipped with a logged reason: one typo must not take the
    whole agent picker down.
    """
    folder = home / AGENTS_DIR
    found: list[tuple[str, AgentSpec]] = []
    if folder.is_dir():
        for path in sorted(folder.glob(AGENT_FILE_GLOB)):
            try:
                found.append((path.name, load_agent(str(path))))
            except AgentFileError as exc:
                log.warning("skipping agent file %s: %s", path.name, exc)
    return found
