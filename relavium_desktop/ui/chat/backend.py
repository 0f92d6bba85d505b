"""What the chat view needs from the engine, hosts and stores -- built lazily.

The chat view is a widget; this module is where it meets the rest of the
app: the session store (history.db), the provider set (the same
``$RELAVIUM_HOME/providers.yaml`` and keyring/env key references the CLI
uses), the tool host for the active project and the agent files a user can
pick.  Nothing here is built before the first paint; every piece is made on
first use.

Which tools a mode offers is the engine's rule (``modes.offered_tools``),
shared with ``relavium chat``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.agent.mode_ids import ChatMode
from relavium_desktop.engine.agent.modes import ConfirmHook, SessionApprovals, SessionGrants
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.tools.tooldef import NodeToolConfig, ToolPolicy

if TYPE_CHECKING:
    from relavium_desktop.engine.host import OsCapability, ToolHost
    from relavium_desktop.engine.tools.registry import ToolRegistry
    from relavium_desktop.engine.tools.tooldef import ToolDef
    from relavium_desktop.host.media import MediaHost
    from relavium_desktop.providers.factory import ProviderSet
    from relavium_desktop.store.sessions import SqliteSessionStore
    from relavium_desktop.ui.qt import QSettings

log = logging.getLogger(__name__)

KEY_POLICY = "chat/policy"  # JSON: {"allowedCommands": [...], "allowedDomains": [...]}
KEY_AGENT = "chat/agent"
# JSON: {tool_id: {"parameters": {...}}} -- Settings -> Chat tools' per-tool config (engine/agent/tool_config.py).
KEY_TOOL_CONFIG = "chat/tool_config"
KEY_MODEL = "chat/model"  # "provider/model" override of the agent's own route


@dataclass(frozen=True, slots=True)
class AgentChoice:
    """One entry of the agent picker: the spec and where it came from."""

    spec: AgentSpec
    source: str  # "built-in" or the file name


def default_agent() -> AgentSpec:
    from relavium_desktop.engine.agent.default_chat import default_chat_agent

    return default_chat_agent()


def load_agent_choices(home: Path) -> list[AgentChoice]:
    """The built-in chat agent, then ``$RELAVIUM_HOME/agents/*.agent.yaml`` (broken files skipped)."""
    from relavium_desktop.services import user_agents

    choices = [AgentChoice(default_agent(), "built-in")]
    for name, spec in user_agents(home):
        if all(c.spec.id != spec.id for c in choices):
            choices.append(AgentChoice(spec, name))
    return choices


def with_route(spec: AgentSpec, route: str | None) -> AgentSpec:
    """``spec`` with the picker's ``provider/model`` in place of its own route."""
    if not route or "/" not in route:
        return spec
    provider, model = route.split("/", 1)
    if not provider.strip() or not model.strip():
        return spec
    return spec.model_copy(update={"provider": provider.strip(), "model": model.strip()})


def policy_from(settings: QSettings | None) -> ToolPolicy:
    """The user's tool policy for chat (allowed commands/domains); none means disabled."""
    raw = settings.value(KEY_POLICY) if settings is not None else None
    if not raw:
        return ToolPolicy()
    try:
        data = json.loads(str(raw))
        return ToolPolicy.from_json(data if isinstance(data, dict) else None)
    except ValueError as exc:
        log.warning("ignoring the chat tool policy in settings: %s", exc)
        return ToolPolicy()


def tool_configs_from(
    settings: QSettings | None, lookup: Callable[[str], ToolDef | None]
) -> dict[str, NodeToolConfig]:
    """Chat's per-tool configs from Settings, checked by the engine's rules against this turn's registry.

    Read every turn, like the policy, so a change applies from the next message.
    A stored config the engine refuses is ignored whole (logged by tool and
    field, never value): a half-applied config could send a request somewhere
    the user did not choose.
    """
    from relavium_desktop.engine.agent.tool_config import (
        ToolConfigError,
        node_tool_configs,
        parse_tool_config,
    )

    raw = settings.value(KEY_TOOL_CONFIG) if settings is not None else None
    if not raw:
        return {}
    try:
        return node_tool_configs(parse_tool_config(json.loads(str(raw)), lookup))
    except ToolConfigError as exc:
        log.warning("ignoring the chat tool config in settings: %s", exc)
    except ValueError:
        log.warning("ignoring the chat tool config in settings: not valid JSON")
    return {}


def with_configured_tools(
    spec: AgentSpec, configs: Mapping[str, NodeToolConfig], policy: ToolPolicy, *, built_in: bool
) -> AgentSpec:
    """The built-in chat agent gains the web tools the user set up in Settings -> Chat tools.

    web_search once a search provider is configured (without one it could only
    fail), http_request once a domain is allowed, and the tools of the plugins
    the user enabled (Settings -> Plugins: enabling one is the decision to offer
    it).  An agent file lists its own tools: its author decided, so it is
    returned unchanged.
    """
    from relavium_desktop.services import plugin_tools

    if not built_in:
        return spec
    extra = []
    if "web_search" in configs:
        extra.append("web_search")
    if policy.allowed_domains:
        extra.append("http_request")
    extra.extend(t.id for t in plugin_tools())
    tools = list(spec.tools) + [t for t in extra if t not in spec.tools]
    return spec if tools == list(spec.tools) else spec.model_copy(update={"tools": tools})


class ChatBackend:
    """Lazily opened store, providers and per-project tool host for the chat view."""

    def __init__(self, home: Path, settings: QSettings | None, os_capability: OsCapability | None = None) -> None:
        self.home = home
        self.settings = settings
        self.os_capability = os_capability
        self._store: SqliteSessionStore | None = None
        self._media: MediaHost | None = None
        # One host per project, for the session it serves: (extra roots, spill scope, host).
        self._hosts: dict[str, tuple[tuple[Path, ...], str | None, ToolHost]] = {}
        # The folders outside the project granted to it ("Allow a folder outside the
        # project…"), read at every turn so a grant or a revoke applies to the next one.
        self.extra_roots: Callable[[str], tuple[Path, ...]] = lambda _project: ()
        # The tools discovered on the user's MCP servers (ui/chat/mcp_tools.py), read per turn,
        # and the MCP client hooks (the app's consent, elicitation and sampling dialogs).
        self.mcp_tools: Callable[[], tuple[ToolDef, ...]] = lambda: ()
        self.mcp_hooks: Callable[[], Any] = lambda: None

    @property
    def store(self) -> SqliteSessionStore:
        if self._store is None:
            from relavium_desktop.services import session_store

            self._store = session_store(self.home)
        return self._store

    def providers(self) -> ProviderSet:
        """providers.yaml as it is now: a key or endpoint saved anywhere applies to the next message."""
        from relavium_desktop.services import provider_set

        return provider_set(self.home)

    @property
    def media(self) -> MediaHost:
        """The media store the composer publishes attachments to (built on first use)."""
        if self._media is None:
            from relavium_desktop.services import media_host

            self._media = media_host(self.home)
        return self._media

    def no_project_registry(self) -> ToolRegistry:
        """The tools with no host behind them: chat without a project folder (every OS tool fails closed).

        The media store stays: the user's own attachments are sent with or without a project.
        """
        from relavium_desktop.engine.host import ToolHost
        from relavium_desktop.services import tool_registry

        return tool_registry(ToolHost(media=self.media))

    async def registry(self, project: str, session_id: str | None = None) -> ToolRegistry:
        """The tool registry over the project's host for ``session_id`` (pinning runs in a thread).

        The host is the session's: its file tools may read the session's own
        spill folder and no other run's, so another session gets a new host.
        """
        from relavium_desktop.host.output_store import chat_spill_scope
        from relavium_desktop.services import surface_host, tool_registry

        roots = self.extra_roots(project)
        scope = chat_spill_scope(session_id) if session_id is not None else None
        cached = self._hosts.get(project)
        if cached is not None and cached[0] == roots and cached[1] == scope:
            host = cached[2]
        else:
            from relavium_desktop.host.assembly import close_host

            host = await asyncio.to_thread(surface_host, Path(project), surface="chat", extra_roots=roots,
                                           os_capability=self.os_capability, home=self.home, run_id=scope,
                                           mcp_hooks=self.mcp_hooks(), mcp_roots=(Path(project), *roots))
            self._hosts[project] = (roots, scope, host)
            if cached is not None:
                # The old host's MCP servers would otherwise live until the app quits.
                await close_host(cached[2])
        discovered = self.mcp_tools()
        return tool_registry(host, extra_tools=discovered) if discovered else tool_registry(host)

    async def discard_session(self, session_id: str) -> None:
        """A deleted session's spilled tool output goes with it (and the host that served it)."""
        from relavium_desktop.host.assembly import close_host
        from relavium_desktop.host.output_store import chat_spill_scope, remove_chat_spills

        scope = chat_spill_scope(session_id)
        for project, (_roots, served, host) in list(self._hosts.items()):
            if served == scope:
                del self._hosts[project]
                await close_host(host)
        await asyncio.to_thread(remove_chat_spills, self.home, session_id)

    def approvals(
        self,
        mode: ChatMode,
        confirm: ConfirmHook | None,
        grants: SessionGrants | None = None,
        project: str = "",
    ) -> SessionApprovals:
        """The session's regime; ``grants`` is the dialog's own session cache.

        "Auto-approve edits" writes unasked only what the host places inside
        ``project`` (realpath, so a symlink out or a granted outside folder asks).
        """
        from functools import partial

        from relavium_desktop.host.fs.inside import inside_workspace

        in_project = partial(inside_workspace, Path(project)) if project else None
        return SessionApprovals(mode, confirm, grants, in_project=in_project)

    def close(self) -> None:
        if self._store is not None:
            conn: Any = getattr(self._store, "_conn", None)
            if conn is not None:
                conn.close()
            self._store = None
