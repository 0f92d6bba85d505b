"""The composition root: the one place a surface gets its tools, host, providers and stores.

Every surface -- the ``relavium`` commands, the chat view, the quick panel,
the Workflows view -- asks this module instead of assembling the pieces
itself, so the registry a model dispatches through is built one way
everywhere and a new guardrail wired in here reaches every surface at once.
Only what genuinely differs per surface is passed in: the workspace, the
fs tier, the run a host serves, the OS capability (the desktop's clipboard
and notifications) and the approval regime (the desktop's confirm hook; the
CLI runs on author trust with none).

Heavy imports stay inside the functions so the CLI's ``--help`` and the
window's first paint do not pay them.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from relavium_desktop.engine.agent.spec import AgentSpec
    from relavium_desktop.engine.host import OsCapability, ToolHost
    from relavium_desktop.engine.mcp_reports import ServerReport
    from relavium_desktop.engine.tools.http_tools import HttpToolDecl
    from relavium_desktop.engine.tools.known_ids import KnownTools
    from relavium_desktop.engine.tools.mcp_tools import RefusedTool
    from relavium_desktop.engine.tools.registry import ToolRegistry
    from relavium_desktop.engine.tools.tooldef import ApprovalRegime, FsScopeTier, ToolDef
    from relavium_desktop.engine.workflow.agent_loop_runner import AgentLoopRunner
    from relavium_desktop.engine.workflow.journal import RunJournal
    from relavium_desktop.engine.workflow.loader import LoadedWorkflow
    from relavium_desktop.engine.workflow.run import WorkflowEngine
    from relavium_desktop.host.mcp.hooks import ConsentRequest, McpClientHooks
    from relavium_desktop.host.media import MediaHost
    from relavium_desktop.host.plugins import LoadReport as PluginLoadReport
    from relavium_desktop.host.plugins import PluginStatus
    from relavium_desktop.providers.config import ProviderEntry
    from relavium_desktop.providers.factory import ProviderSet
    from relavium_desktop.providers.store import ProviderStore
    from relavium_desktop.store.grants import GrantStore
    from relavium_desktop.store.mcp_consents import McpConsentStore
    from relavium_desktop.store.runs import RunStore
    from relavium_desktop.store.sessions import SqliteSessionStore

log = logging.getLogger(__name__)

AGENTS_DIR = "agents"  # under $RELAVIUM_HOME: the user's own *.agent.yaml files
AGENT_FILE_GLOB = "*.agent.yaml"


# -- tools and host ---------------------------------------------------------------


def tool_registry(host: ToolHost | None = None, *, extra_tools: Iterable[ToolDef] = ()) -> ToolRegistry:
    """The built-in tools over ``host``; no host means no capability (every OS tool fails closed).

    The only place the registry is constructed, so every surface dispatches
    through the same tool set and the same pipeline.  ``extra_tools`` are the
    surface's discovered MCP tools (:func:`discover_mcp`); one whose id is
    already taken is left out with a logged reason, never shadowing a tool.
    """
    from relavium_desktop.engine.host import ToolHost
    from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
    from relavium_desktop.engine.tools.registry import ToolRegistry

    registry = ToolRegistry([*BUILTIN_TOOLS, *plugin_tools()], host if host is not None else ToolHost())
    for tool in extra_tools:
        if registry.get(tool.id) is not None:
            log.warning("tool %s left out: its id is already registered", tool.id)
            continue
        registry.register(tool)
    return registry


def plugin_report(home: Path | None = None) -> PluginLoadReport:
    """Load the ENABLED plugins (only they are imported) and say which were refused and why."""
    from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.host.plugins import load_enabled

    return load_enabled(home if home is not None else data_dir(), reserved=[t.id for t in BUILTIN_TOOLS])


def plugin_statuses(home: Path | None = None) -> list[PluginStatus]:
    """Every installed plugin and its state (loaded, refused with the reason, disabled, missing)."""
    from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.host.plugins import statuses

    return statuses(home if home is not None else data_dir(), reserved=[t.id for t in BUILTIN_TOOLS])


def plugin_tools(home: Path | None = None) -> list[ToolDef]:
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


def known_tool_ids(home: Path | None = None, *, http_tool_names: Iterable[str] = ()) -> KnownTools:
    """Tool ids that resolve: built-ins, enabled plugins' tools, ``http_tool_names`` and ``mcp_<server>_*``.

    MCP servers come from the user's ``mcp.yaml``; a broken file contributes
    none (the MCP tools then stay unknown, and ``relavium validate`` says so
    rather than crashing).  A workflow's own http tools and servers block are
    added by the plan, which sees the file.
    """
    from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
    from relavium_desktop.engine.tools.known_ids import KnownTools
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.host.mcp.config import McpConfigError, load_servers

    where = home if home is not None else data_dir()
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
    home: Path | None = None,
    mcp_hooks: Any = None,
    mcp_roots: tuple[Path, ...] = (),
    mcp_servers: Mapping[str, Any] | None = None,
) -> ToolHost:
    """A freshly pinned host for one surface and project (blocking: pins roots, reads mcp.yaml lazily).

    ``surface`` is ``"chat"`` (full tier clamped to project) or
    ``"workflow"``; ``run_id`` is the only spill folder its file tools may
    read (``None``: the first run it spills for).  ``mcp_servers`` is a
    workflow's own servers block (``{name: entry}``, validated by the host);
    its stdio servers start only with consent (``mcp_hooks.consent``).
    """
    from relavium_desktop.host.assembly import HostSettings, build_host
    from relavium_desktop.host.datadir import data_dir

    return build_host(HostSettings(
        workspace=workspace, tier=tier, surface=surface, extra_roots=extra_roots,
        os_capability=os_capability, home=home if home is not None else data_dir(), run_id=run_id,
        mcp_hooks=mcp_hooks, mcp_roots=mcp_roots, mcp_servers=mcp_servers,
    ))


# -- MCP ----------------------------------------------------------------------------

DISCOVERY_TIMEOUT_S = 15.0


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
    take (default: the built-ins and enabled plugins' tools).
    """
    from relavium_desktop.engine.tools.mcp_tools import build_mcp_tools

    reports = list(await host.mcp_or_absent().discover(servers, timeout_s=timeout_s))
    if reserved is None:
        reserved = tool_registry().ids()
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


def mcp_consents(home: Path | None = None) -> McpConsentStore:
    """The per-project consents to start a workflow's own stdio MCP servers, in ``history.db``."""
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.host.fs.preview import HOST_GRANT_PATHS
    from relavium_desktop.store.mcp_consents import McpConsentStore

    return McpConsentStore.open(home or data_dir(), HOST_GRANT_PATHS.canonical)


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
    servers: Mapping[str, Any], approved: Collection[str], *, project: Path, home: Path | None = None,
) -> list[str]:
    """The stdio servers of a workflow's block that may not start: neither approved now nor consented before."""
    from relavium_desktop.host.mcp.config import StdioServer, parse_servers
    from relavium_desktop.host.mcp.fingerprint import stdio_fingerprint

    parsed = parse_servers(servers, source="workflow mcp_servers") if servers else {}
    stdio = {name: e for name, e in parsed.items() if isinstance(e, StdioServer) and name not in approved}
    if not stdio:
        return []
    store = mcp_consents(home)
    try:
        return sorted(n for n, e in stdio.items() if not store.is_granted(project, n, stdio_fingerprint(e)))
    finally:
        store.close()


def cli_mcp_hooks(approved: Collection[str], *, project: Path, home: Path | None = None) -> McpClientHooks:
    """The command line's MCP client hooks: nobody is there to ask.

    Consent: a workflow's stdio server starts only when named with
    ``--approve-mcp`` or consented to before (in the app) for this project
    and this exact launch.  Elicitation is declined (a line on stderr says
    which server asked), sampling refused (no ``sample`` hook).
    """
    import sys

    from relavium_desktop.host.mcp.hooks import ElicitationAnswer, ElicitationRequest, McpClientHooks

    names = frozenset(approved)

    async def consent(request: ConsentRequest) -> bool:
        if request.server in names:
            return True
        store = mcp_consents(home)
        try:
            if store.is_granted(project, request.server, request.fingerprint):
                return True
        finally:
            store.close()
        print(f"relavium: {consent_needed_message(request.server)}", file=sys.stderr)
        return False

    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        print(f"relavium: MCP server {request.server} asked for input; the command line cannot show forms, "
              "so the request was declined", file=sys.stderr)
        return ElicitationAnswer("decline")

    return McpClientHooks(elicit=elicit, sample=None, consent=consent)


# -- providers ----------------------------------------------------------------------


def provider_store(home: Path | None = None, settings_file: Path | None = None) -> ProviderStore:
    """The one provider store: ``$RELAVIUM_HOME/providers.yaml`` (or ``settings_file``).

    Shared per path within the process, so the CLI, workflows and every view
    read the same cached entries and see an edit as soon as the file changes.
    """
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.providers import PROVIDERS_FILE
    from relavium_desktop.providers.store import store_for

    return store_for(settings_file or (home or data_dir()) / PROVIDERS_FILE)


def provider_entries(home: Path | None = None, settings_file: Path | None = None) -> dict[str, ProviderEntry]:
    """The configured provider entries: the file's, or the built-in defaults while it does not exist.

    Raises ``ProviderConfigError`` for an unreadable or invalid file.
    """
    return provider_store(home, settings_file).entries()


def provider_set(home: Path | None = None, settings_file: Path | None = None) -> ProviderSet:
    """The provider entries (``providers.yaml``), keys and the SSRF-guarded client.

    The same settings file and ``secret:``/``env:`` key references for the
    CLI, workflows and the desktop -- the app edits that file, it keeps no
    provider settings of its own.  Raises ``ProviderConfigError`` for an
    unreadable or invalid file.
    """
    from relavium_desktop.providers.factory import ProviderSet
    from relavium_desktop.providers.wiring import host_client_factory, host_resolver, host_validate_base_url

    return ProviderSet(provider_entries(home, settings_file), resolve_secret=host_resolver(), validate_base_url=host_validate_base_url,
                       client_factory=host_client_factory)


def media_host(home: Path | None = None) -> MediaHost:
    """The media store under ``home`` (``$RELAVIUM_HOME/media``) with its scope grants.

    What the chat composer publishes a pasted or dropped image to: the same
    store (and grant files) every tool host uses, so the chat's turns can
    load what the user attached.
    """
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.host.media import MediaHost

    return MediaHost.at((home or data_dir()) / "media")


# -- stores -------------------------------------------------------------------------


def session_store(home: Path | None = None) -> SqliteSessionStore:
    """The chat sessions in ``history.db`` under ``home`` (default: the data folder)."""
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.store.db import history_db_path, open_db
    from relavium_desktop.store.sessions import SqliteSessionStore

    return SqliteSessionStore(open_db(history_db_path(home or data_dir())))


def run_store(home: Path | None = None) -> RunStore:
    """The workflow run journal in ``history.db``; opening marks runs whose process died as interrupted."""
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.store.runs import RunStore

    return RunStore.open(home or data_dir())


def grant_store(home: Path | None = None) -> GrantStore:
    """The per-project permission grants in ``history.db``; the host answers their path questions."""
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.host.fs.preview import HOST_GRANT_PATHS
    from relavium_desktop.store.grants import GrantStore

    return GrantStore.open(home or data_dir(), HOST_GRANT_PATHS)


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


# -- workflows ----------------------------------------------------------------------


def agent_runner(providers_file: str | None = None) -> AgentLoopRunner:
    """The real agent loop for agent nodes and ``invoke_agent``.

    Providers come from the provider settings (``$RELAVIUM_HOME/providers.yaml``
    or ``providers_file``), keys from the keyring (``secret:``) or the
    environment (``env:``), connections through the SSRF-guarded client.  The
    settings are read on the first agent turn, not at start, so a workflow of
    tool/transform nodes runs even when no provider is configured; a settings
    problem then fails the agent node with a clear ``validation`` message.
    """
    from relavium_desktop.engine.llm.errors import ProviderError, ProviderErrorCode
    from relavium_desktop.engine.llm.provider import Provider
    from relavium_desktop.engine.workflow.agent_loop_runner import AgentLoopRunner
    from relavium_desktop.providers.config import ProviderConfigError

    built: list[ProviderSet] = []

    def lookup(name: str) -> Provider:
        if not built:
            try:
                built.append(provider_set(settings_file=Path(providers_file) if providers_file else None))
            except ProviderConfigError as exc:
                raise ProviderError(ProviderErrorCode.VALIDATION, f"provider settings: {exc}") from None
        return built[0](name)

    return AgentLoopRunner(providers=lookup)


def build_workflow_engine(
    *,
    workspace: Path,
    tier: FsScopeTier,
    journal: RunJournal,
    os_capability: OsCapability | None = None,
    approval: ApprovalRegime | None = None,
    providers_file: str | None = None,
    hold_gates: bool = False,
    mcp_servers: Mapping[str, Any] | None = None,
    mcp_hooks: Any = None,
) -> WorkflowEngine:
    """One engine over a freshly pinned host for ``workspace`` at ``tier``.

    The host is the run's: each run the engine starts or resumes binds its
    own spill folder (``runs/<run-id>/``) as the only one its file tools may
    read, so a surface keeps one engine per run.  ``mcp_servers`` is the
    workflow's own servers block (validated: :func:`workflow_mcp_servers`),
    ``mcp_hooks`` the surface's consent/elicitation answers.
    """
    registry = tool_registry(surface_host(workspace, tier=tier, surface="workflow", os_capability=os_capability,
                                          mcp_servers=mcp_servers, mcp_hooks=mcp_hooks))
    return _run_scoped_engine()(registry, agent_runner=agent_runner(providers_file), journal=journal,
                                fs_scope=tier, approval=approval, hold_gates=hold_gates)


@functools.cache
def _run_scoped_engine() -> type[WorkflowEngine]:
    """WorkflowEngine whose runs bind their own spill folder on the host (made on first use)."""
    from relavium_desktop.engine.workflow.run import WorkflowEngine, WorkflowRun
    from relavium_desktop.host.assembly import bind_spill_scope

    class RunScopedEngine(WorkflowEngine):
        def start(self, *args: Any, **kwargs: Any) -> WorkflowRun:
            run = super().start(*args, **kwargs)
            bind_spill_scope(self.registry.host, run.run_id)
            self._add_http_tools(run)
            return run

        def resume(self, *args: Any, **kwargs: Any) -> WorkflowRun:
            run = super().resume(*args, **kwargs)
            bind_spill_scope(self.registry.host, run.run_id)
            self._add_http_tools(run)
            return run

        def resume_interrupted(self, *args: Any, **kwargs: Any) -> WorkflowRun:
            run = super().resume_interrupted(*args, **kwargs)
            self._add_http_tools(run)
            return run

        def _add_http_tools(self, run: WorkflowRun) -> None:
            # The workflow's declared http tools join this engine's registry (one engine per run);
            # the plan already refused a name that shadows a known tool.
            for tool in http_tools(workflow_http_decls(run.workflow)):
                if self.registry.get(tool.id) is None:
                    self.registry.register(tool)

    return RunScopedEngine
