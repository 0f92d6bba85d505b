"""A chat turn, assembled once for the window and ``relavium chat``.

Both surfaces used to build a turn themselves: the session, the project's
tool host, the registry, the offered tools, the approval regime, the
providers and the event stream.  They drifted (the window's events had no
envelope, the terminal stored an empty "New chat" for a conversation that
never had a message).  Here a surface makes one :class:`ChatService` with
what is its own -- how to ask (``confirm``, the MCP hooks), the folders it
granted, the user's tool policy and configs -- and gets a
:class:`ChatConversation` from :meth:`ChatService.open`; it then only sends
text and renders the events it is handed.

Rules kept here, for every surface:

- A conversation with no message is never stored: the session is created
  when the first message is sent.
- Every event goes through one :class:`~relavium_desktop.engine.events.EventBus`
  per conversation: an envelope (``sessionId``, ``timestamp``) and a
  gap-free ``sequenceNumber``.  A turn that crashes ends with
  ``chat:turn_failed`` carrying a code of the engine's taxonomy.
- The model is ``model`` when the surface names one, else the app's default
  (``defaults.json``), else the agent's own route.
- The project's host is built in a worker thread, kept per project and the
  session's spill scope, and closed when replaced or when the service closes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.application.app import Application
from relavium_desktop.application.defaults import Defaults
from relavium_desktop.engine.agent.history_cut import Cut
from relavium_desktop.engine.agent.mode_ids import ChatMode
from relavium_desktop.engine.agent.modes import ConfirmHook, SessionApprovals, SessionGrants, offered_tools
from relavium_desktop.engine.agent.outcome import AgentFailure, LoopResult
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.errors import ErrorCode
from relavium_desktop.engine.events import ChatTurnCancelled, ChatTurnFailed, ErrorInfo, EventBus
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools.tooldef import NodeToolConfig, ToolDef, ToolPolicy

if TYPE_CHECKING:
    from relavium_desktop.engine.agent.session import SessionInfo
    from relavium_desktop.engine.host import OsCapability, ToolHost
    from relavium_desktop.engine.llm.messages import MediaPart
    from relavium_desktop.engine.tools.registry import ToolRegistry
    from relavium_desktop.host.media import MediaHost
    from relavium_desktop.providers.factory import ProviderSet
    from relavium_desktop.store.sessions import SqliteSessionStore

log = logging.getLogger(__name__)

EventSubscriber = Callable[[JsonDict], None]
ToolLookup = Callable[[str], ToolDef | None]

ROUTE_FORM = "provider/model, e.g. openai/gpt-4o-mini"


class RouteError(ValueError):
    """A model route that is not ``provider/model``; the message names the expected form."""


def parse_route(route: str, *, where: str = "model") -> tuple[str, str]:
    """``(provider, model)`` of ``provider/model``; :class:`RouteError` naming the form otherwise."""
    provider, sep, model = route.strip().partition("/")
    if not sep or not provider.strip() or not model.strip():
        raise RouteError(f"{where}: {route!r} is not a model route; expected {ROUTE_FORM}")
    return provider.strip(), model.strip()


def with_route(spec: AgentSpec, route: str, *, where: str = "model") -> AgentSpec:
    """``spec`` sent to ``route`` (``provider/model``) in place of its own."""
    provider, model = parse_route(route, where=where)
    return spec.model_copy(update={"provider": provider, "model": model})


def default_agent() -> AgentSpec:
    """The built-in chat agent (what a conversation with no agent file talks to)."""
    from relavium_desktop.engine.agent.default_chat import default_chat_agent

    return default_chat_agent()


def _no_roots(_project: str) -> tuple[Path, ...]:
    return ()


def _no_grants(_project: str) -> SessionGrants | None:
    return None


@dataclass(frozen=True, slots=True)
class _CachedHost:
    roots: tuple[Path, ...]
    scope: str | None
    host: ToolHost
    mcp_tools: tuple[ToolDef, ...] | None  # what this service discovered on the host (None: not asked yet)


class ChatService:
    """The chat use case of one surface: hosts, registry, approvals, providers and conversations.

    ``mcp_hooks(project)`` gives the MCP client hooks for a project's host
    (consent, elicitation, sampling).  ``mcp_tools()`` gives MCP tools the
    surface already discovered (the window's servers panel); without it the
    service discovers the user's servers on each new host itself and says
    what failed through ``on_notice``.  ``policy()`` and ``tool_configs(lookup)``
    are read at every turn, so a change in Settings applies from the next
    message.  ``session_grants(project)`` is the surface's own "always"
    cache (the window's approval dialog); without it a conversation keeps its
    own, which outlives a mode switch.
    """

    def __init__(
        self,
        app: Application,
        *,
        os_capability: OsCapability | None = None,
        mcp_hooks: Callable[[Path], Any] | None = None,
        mcp_tools: Callable[[], Sequence[ToolDef]] | None = None,
        extra_roots: Callable[[str], tuple[Path, ...]] = _no_roots,
        policy: Callable[[], ToolPolicy] = ToolPolicy,
        tool_configs: Callable[[ToolLookup], Mapping[str, NodeToolConfig]] | None = None,
        session_grants: Callable[[str], SessionGrants | None] = _no_grants,
        providers: Callable[[], ProviderSet] | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        self.app = app
        self.os_capability = os_capability
        self.mcp_hooks = mcp_hooks
        self.mcp_tools = mcp_tools
        self.extra_roots = extra_roots
        self.policy = policy
        self.tool_configs = tool_configs
        self.session_grants = session_grants
        self._providers = providers
        self.on_notice = on_notice or (lambda text: log.warning("%s", text))
        self._media: MediaHost | None = None
        self._hosts: dict[str, _CachedHost] = {}

    # -- what the surfaces read -------------------------------------------------------

    @property
    def home(self) -> Path:
        return self.app.paths.home

    @property
    def store(self) -> SqliteSessionStore:
        """The chat sessions (the process's one history.db store)."""
        return self.app.sessions()

    @property
    def media(self) -> MediaHost:
        """The media store attachments are published to (built on first use)."""
        if self._media is None:
            from relavium_desktop.application.providers import media_host

            self._media = media_host(self.home)
        return self._media

    def providers(self) -> ProviderSet:
        """providers.yaml as it is now: a key or endpoint saved anywhere applies to the next message."""
        if self._providers is not None:
            return self._providers()
        from relavium_desktop.application.providers import provider_set

        return provider_set(self.home)

    def default_model(self) -> str | None:
        """The app's default ``provider/model`` (``defaults.json``), shared by both surfaces."""
        return Defaults(self.app.paths).model()

    def resolve_agent(self, agent: AgentSpec | None, model: str | None) -> AgentSpec:
        """The agent (None: the built-in one) sent to ``model``, else the default model, else its own route."""
        spec = agent if agent is not None else default_agent()
        if model is not None and model.strip():
            return with_route(spec, model)
        default = self.default_model()
        return with_route(spec, default, where=f"{self.app.paths.defaults_file.name} model") if default else spec

    # -- conversations ------------------------------------------------------------------

    async def open(
        self,
        *,
        session_id: str | None = None,
        project: Path | str | None,
        mode: ChatMode | None = None,
        agent: AgentSpec | None = None,
        model: str | None = None,
        on_event: EventSubscriber | None = None,
        on_created: Callable[[SessionInfo], None] | None = None,
    ) -> ChatConversation:
        """A conversation: a stored one (``session_id``) or a new one, stored at its first message.

        ``agent`` None is the built-in chat agent, which is also offered the
        user's MCP tools and the web and plugin tools Settings set up; an agent
        file keeps its own tool list.  ``mode`` None keeps a stored session's
        mode (a new one asks before acting).  Raises :class:`RouteError` for a
        bad ``model`` and ``LookupError`` for an unknown ``session_id``.
        """
        from relavium_desktop.engine.agent.mode_ids import DEFAULT_MODE, parse_mode

        spec = self.resolve_agent(agent, model)
        info = None
        if session_id is not None:
            info = self.store.get(session_id)
            if info is None:
                raise LookupError(f"no session {session_id!r}")
            if mode is None:
                try:
                    mode = parse_mode(info.mode)
                except ValueError:
                    mode = DEFAULT_MODE
            elif str(mode) != info.mode:
                self.store.set_mode(info.id, str(mode))
        return ChatConversation(
            self, spec=spec, built_in=agent is None, mode=mode or DEFAULT_MODE,
            project=str(project) if project else "", info=info, on_event=on_event, on_created=on_created,
        )

    # -- the project's host and tools ----------------------------------------------------

    def no_project_registry(self) -> ToolRegistry:
        """The tools with no host behind them: chat without a project folder (every OS tool fails closed).

        The media store stays: the user's own attachments are sent with or without a project.
        """
        from relavium_desktop.application.tools import tool_registry
        from relavium_desktop.engine.host import ToolHost

        return tool_registry(ToolHost(media=self.media), home=self.home)

    async def registry(self, project: str, session_id: str | None = None) -> tuple[ToolRegistry, tuple[str, ...]]:
        """The registry over the project's host for ``session_id``, and the MCP tool ids it holds.

        The host is the session's: its file tools may read the session's own
        spill folder and no other, so another session gets a new host (pinned
        in a worker thread); the old one is closed with its MCP servers.
        """
        from relavium_desktop.application.tools import surface_host, tool_registry
        from relavium_desktop.host.output_store import chat_spill_scope

        roots = self.extra_roots(project)
        scope = chat_spill_scope(session_id) if session_id is not None else None
        cached = self._hosts.get(project)
        if cached is None or cached.roots != roots or cached.scope != scope:
            hooks = self.mcp_hooks(Path(project)) if self.mcp_hooks is not None else None
            host = await asyncio.to_thread(
                surface_host, Path(project), surface="chat", extra_roots=roots, os_capability=self.os_capability,
                home=self.home, run_id=scope, mcp_hooks=hooks, mcp_roots=(Path(project), *roots),
            )
            if cached is not None:
                del self._hosts[project]
                await _close(cached.host)  # its MCP servers would otherwise live until the app quits
            cached = _CachedHost(roots, scope, host, None)
            self._hosts[project] = cached
        if self.mcp_tools is not None:
            found = tuple(self.mcp_tools())
        else:
            if cached.mcp_tools is None:
                cached = await self._discover(project, cached)
            found = cached.mcp_tools or ()
        registry = tool_registry(cached.host, home=self.home, extra_tools=found)
        return registry, tuple(t.id for t in found if registry.get(t.id) is t)

    async def _discover(self, project: str, cached: _CachedHost) -> _CachedHost:
        """The user's MCP servers (mcp.yaml) as ``mcp_<server>_<tool>`` tools, once per host; failures said."""
        from relavium_desktop.application.mcp import add_mcp_tools
        from relavium_desktop.application.tools import tool_registry

        tools: tuple[ToolDef, ...] = ()
        mcp = cached.host.mcp
        if mcp is not None:
            try:
                servers = list(mcp.server_names())
            except Exception:  # noqa: BLE001 -- McpConfigError: MCP tools stay off, the chat works
                self.on_notice("mcp.yaml is not usable; MCP tools are off (relavium tools list says why)")
                servers = []
            if servers:
                probe = tool_registry(cached.host, home=self.home)
                before = set(probe.ids())
                for problem in await add_mcp_tools(probe, servers):
                    self.on_notice(problem)
                tools = tuple(t for i in sorted(set(probe.ids()) - before) if (t := probe.get(i)) is not None)
        found = _CachedHost(cached.roots, cached.scope, cached.host, tools)
        self._hosts[project] = found
        return found

    def approvals(
        self, mode: ChatMode, confirm: ConfirmHook | None, grants: SessionGrants | None = None, project: str = ""
    ) -> SessionApprovals:
        """The session's regime: "Auto-approve edits" writes unasked only inside ``project``.

        Inside is the host's realpath rule, so a symlink out or a granted folder
        outside the project still asks.
        """
        from relavium_desktop.host.fs.inside import inside_workspace

        in_project = partial(inside_workspace, Path(project)) if project else None
        return SessionApprovals(mode, confirm, grants, in_project=in_project)

    def configured_spec(self, spec: AgentSpec, configs: Mapping[str, NodeToolConfig], policy: ToolPolicy,
                        extra: Sequence[str]) -> AgentSpec:
        """The built-in agent gains what the user set up: web_search with a search provider, http_request
        once a domain is allowed, the enabled plugins' tools and the MCP tools found (``extra``)."""
        from relavium_desktop.application.tools import plugin_tools

        wanted = [*(["web_search"] if "web_search" in configs else []),
                  *(["http_request"] if policy.allowed_domains else []),
                  *(t.id for t in plugin_tools(self.home)), *extra]
        tools = list(spec.tools) + [t for t in dict.fromkeys(wanted) if t not in spec.tools]
        return spec if tools == list(spec.tools) else spec.model_copy(update={"tools": tools})

    # -- lifetime ---------------------------------------------------------------------

    def delete(self, session_id: str) -> bool:
        """Delete a stored session (False: there was none); then :meth:`discard_session` its leftovers."""
        return self.store.delete(session_id)

    async def discard_session(self, session_id: str) -> None:
        """A deleted session's spilled tool output goes with it, and the host that served it."""
        from relavium_desktop.host.output_store import chat_spill_scope, remove_chat_spills

        scope = chat_spill_scope(session_id)
        for project, cached in list(self._hosts.items()):
            if cached.scope == scope:
                del self._hosts[project]
                await _close(cached.host)
        await asyncio.to_thread(remove_chat_spills, self.home, session_id)

    async def aclose(self) -> None:
        """Close every host this service built (their MCP servers stop); the stores stay the app's."""
        hosts, self._hosts = list(self._hosts.values()), {}
        for cached in hosts:
            await _close(cached.host)


async def _close(host: ToolHost) -> None:
    if host.mcp is not None:
        await host.mcp.aclose()


class ChatConversation:
    """One chat session as a surface drives it: send, continue, redo, switch mode.

    Nothing is stored until the first :meth:`send`; then the session is
    created (titled from the message) and ``on_created`` is told.  The
    conversation's :class:`EventBus` stamps every event of every turn.
    """

    def __init__(
        self,
        service: ChatService,
        *,
        spec: AgentSpec,
        built_in: bool,
        mode: ChatMode,
        project: str,
        info: SessionInfo | None,
        on_event: EventSubscriber | None,
        on_created: Callable[[SessionInfo], None] | None,
    ) -> None:
        self.service = service
        self.spec = spec
        self.built_in = built_in
        self.mode = mode
        self.project = project
        self.info = info
        self.on_event = on_event
        self.on_created = on_created
        self.title: str | None = None  # a title chosen before the first message (``/rename``)
        self.bus: EventBus | None = None
        self._subscriber: EventSubscriber | None = on_event
        self._approvals: SessionApprovals | None = None
        self._approvals_key: tuple[ChatMode, str, object] | None = None
        self.registry: ToolRegistry | None = None  # the last turn's (a refusal looks up the tool's class)

    @property
    def session_id(self) -> str | None:
        return self.info.id if self.info is not None else None

    def set_mode(self, mode: ChatMode) -> None:
        """The next turn's mode; a stored session remembers it.  "Always" answers are kept."""
        self.mode = mode
        if self.info is not None:
            self.service.store.set_mode(self.info.id, str(mode))

    def configure(self, *, project: Path | str | None, mode: ChatMode, agent: AgentSpec | None,
                  model: str | None) -> None:
        """What the next turn uses, as the surface now shows it: the project, the mode, the agent and model.

        A new project or mode gets a new approval regime at the next turn
        (:meth:`approvals`); a stored session remembers its mode.
        """
        self.spec = self.service.resolve_agent(agent, model)
        self.built_in = agent is None
        self.project = str(project) if project else ""
        if mode is not self.mode:
            self.set_mode(mode)

    def rename(self, title: str) -> None:
        if self.info is not None:
            self.service.store.rename(self.info.id, title)
        else:
            self.title = title

    async def send(self, text: str, media: Sequence[MediaPart] = (), *, confirm: ConfirmHook | None = None,
                   on_event: EventSubscriber | None = None, cut: Cut | None = None) -> LoopResult:
        """Send ``text`` with ``media`` (handles the surface published) as the next message.

        ``cut="drop_question"`` replaces the last question (edit and resend).
        Storage errors and refused input (``ValueError``) are raised after the
        turn's ``chat:turn_failed`` event, so the surface can give the text back.
        """
        return await self._turn(text, media, confirm, on_event, cut)

    async def resume(self, *, confirm: ConfirmHook | None = None, on_event: EventSubscriber | None = None,
                     cut: Cut | None = None) -> LoopResult:
        """Carry on from the stored history (``cut="keep_question"``: ask the last question again)."""
        return await self._turn(None, (), confirm, on_event, cut)

    def _create(self, text: str, media: Sequence[MediaPart]) -> SessionInfo:
        from relavium_desktop.engine.agent.session import title_from
        from relavium_desktop.engine.llm.messages import Message

        named = next((m.name for m in media if m.name), "")  # an attachment sent alone names the chat
        title = self.title or (named if named and not text.strip() else title_from([Message.user(text)]))
        info = self.service.store.create(title=title, agent_id=self.spec.id, mode=str(self.mode))
        self.info = info
        if self.on_created is not None:
            self.on_created(info)
        return info

    def _deliver(self, event: JsonDict) -> None:
        if self._subscriber is not None:
            self._subscriber(event)

    def _ensure_bus(self, session_id: str) -> EventBus:
        if self.bus is None:
            self.bus = EventBus(clock=time.time, session_id=session_id)
            self.bus.subscribe(self._deliver)
        return self.bus

    def approvals(self, confirm: ConfirmHook | None) -> SessionApprovals:
        """The regime for this turn: rebuilt on a new mode, project or hook, its "always" answers kept."""
        key = (self.mode, self.project, confirm)
        if self._approvals is None or self._approvals_key != key:
            grants = self.service.session_grants(self.project) if self.project else None
            if grants is None and self._approvals is not None:
                grants = self._approvals.grants
            self._approvals = self.service.approvals(self.mode, confirm, grants, project=self.project)
            self._approvals_key = key
        return self._approvals

    def forget_approvals(self) -> None:
        """A new regime from the next turn (another project, or the surface's grants were reset)."""
        self._approvals = None

    async def _tools(self) -> tuple[ToolRegistry, AgentSpec, frozenset[str] | None, Mapping[str, NodeToolConfig]]:
        service = self.service
        if not self.project:
            # No folder to work in: no file or command tool is granted or offered; a call the
            # model makes anyway is refused (the window offers the folder picker in its place).
            return service.no_project_registry(), self.spec.model_copy(update={"tools": []}), frozenset(), {}
        registry, mcp_ids = await service.registry(self.project, self.session_id)
        configs = dict(service.tool_configs(registry.get)) if service.tool_configs is not None else {}
        spec = self.spec
        if self.built_in:
            spec = service.configured_spec(spec, configs, service.policy(), mcp_ids)
        return registry, spec, offered_tools(spec.tools, self.mode, registry), configs

    async def _turn(self, text: str | None, media: Sequence[MediaPart], confirm: ConfirmHook | None,
                    on_event: EventSubscriber | None, cut: Cut | None) -> LoopResult:
        from relavium_desktop.engine.agent.chat import ChatSession
        from relavium_desktop.engine.agent.history_cut import HistoryCut

        self._subscriber = on_event or self.on_event
        created_now = self.info is None
        try:
            if self.info is None:
                if text is None:
                    raise ValueError("there is nothing to continue in this conversation yet")
                self._create(text, media)
            assert self.info is not None
            bus = self._ensure_bus(self.info.id)
            registry, spec, offered, configs = await self._tools()
            self.registry = registry
            store = self.service.store
            session = ChatSession(
                session_id=self.info.id, spec=spec, providers=self.service.providers(), registry=registry,
                store=HistoryCut(store, self.info.id, cut) if cut is not None else store,
                approvals=self.approvals(confirm), emit=bus.emit, policy=self.service.policy(),
                offered_tools=offered, tool_configs=configs,
            )
            return await (session.send(text, media) if text is not None else session.resume())
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            if self.bus is not None:
                self.bus.emit(ChatTurnCancelled())
            return LoopResult(status="cancelled", failure=AgentFailure("cancelled", "cancelled by the user"))
        except Exception as exc:
            self._failed(exc)
            if created_now:
                self._unstore_if_empty()
            raise
        finally:
            self._subscriber = self.on_event

    def _unstore_if_empty(self) -> None:
        """A first message refused before it was stored (the agent's input schema, an attachment) leaves no
        empty session behind: the conversation is new again."""
        info = self.info
        if info is None:
            return
        try:
            if not self.service.store.messages(info.id):
                self.service.store.delete(info.id)
                self.info, self.bus, self._approvals = None, None, None
        except Exception:  # history.db failing now: the original error is what the caller needs
            log.warning("could not remove the empty chat session after a refused first message", exc_info=True)

    def _failed(self, exc: Exception) -> None:
        """A turn that raised ends with ``chat:turn_failed`` too, coded by the taxonomy."""
        from relavium_desktop.engine.llm.errors import ProviderErrorCode

        if isinstance(exc, RouteError | ValueError) and not _is_storage(exc):
            code = str(ProviderErrorCode.VALIDATION)  # refused input: an attachment, the agent's input schema
        else:
            code = str(ErrorCode.TOOL_FAILED)  # the host or history.db failed (I/O, not a policy)
        event = ChatTurnFailed(error=ErrorInfo(code=code, reason=None, message=str(exc) or type(exc).__name__))
        if self.bus is not None:
            self.bus.emit(event)
        else:  # nothing was stored, so there is no session to stamp the event with
            self._deliver(event.to_wire())


def _is_storage(exc: BaseException) -> bool:
    from sqlite3 import DatabaseError

    return isinstance(exc, DatabaseError)
