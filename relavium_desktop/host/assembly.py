"""Build the ToolHost one surface (CLI or desktop) dispatches through.

Each capability is constructed by the host module that owns it; a surface
passes in what it knows (workspace, tier, granted extra roots, the run it
serves) and gets back an immutable ToolHost.  Capabilities a surface cannot
supply stay ``None`` and their tools fail closed with ``tool_unavailable``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.host import (
    EgressCapability,
    FsCapability,
    McpCapability,
    OsCapability,
    ProcessCapability,
    ToolHost,
)
from relavium_desktop.engine.tools.tooldef import FsScopeTier
from relavium_desktop.host.fs.policy import SpillScope
from relavium_desktop.host.output_store import FileOutputStore, valid_run_id

if TYPE_CHECKING:
    from relavium_desktop.host.fs.checkpoints import CheckpointSink
    from relavium_desktop.host.media import MediaHost


@dataclass(frozen=True, slots=True)
class HostSettings:
    workspace: Path
    # The data folder (AppPaths.home): runs/, media/, mcp.yaml.  Always the caller's: the host reads no environment.
    home: Path
    tier: FsScopeTier = "project"
    surface: str = "workflow"  # "workflow" | "chat": chat clamps full to project
    extra_roots: tuple[Path, ...] = ()
    os_capability: OsCapability | None = None
    # A workflow's own MCP servers ({name: entry}), added to $RELAVIUM_HOME/mcp.yaml's.
    mcp_servers: Mapping[str, Any] | None = None
    # The run this host serves (a CLI call's id, a chat's chat-<session>, a workflow
    # run's id): the only folder under runs/ its file tools may read.  None: the
    # host adopts the first run it spills for (see bind_spill_scope).
    run_id: str | None = None
    # The surface's MCP client hooks (consent, elicitation, sampling: the desktop's dialogs)
    # and the roots its MCP servers are told about (the project and granted folders).
    mcp_hooks: Any = None
    mcp_roots: tuple[Path, ...] = ()
    # Where the records of kept before-contents go (history.db): None, no write can be undone.
    checkpoints: CheckpointSink | None = None


def _build_media(settings: HostSettings) -> MediaHost:
    # The CAS under the data dir; nothing is created until the first binary read.
    from relavium_desktop.host.media import MediaHost

    return MediaHost.at(settings.home / "media")


def _build_fs(settings: HostSettings, scope: SpillScope, media: MediaHost | None = None) -> FsCapability | None:
    """The file host, pinned once; None where the descriptor walk cannot run.

    The same FsHost answers the process host's working-directory question, so
    both obey one set of pinned roots.
    """
    from relavium_desktop.host.fs import FsHost, PathPolicy

    # The path policy pins the roots now; chat's full tier is clamped to project inside.
    policy = PathPolicy.create(
        settings.workspace,
        tier=settings.tier,
        surface=settings.surface,
        extra_roots=settings.extra_roots,
        # runs/ is fenced in every tier; the model is handed spill paths in truncation
        # markers and may read its own run's folder, never write it.
        spill=scope,
    )
    keeper = None
    if settings.checkpoints is not None and media is not None:
        from relavium_desktop.host.fs.checkpoints import Checkpointer
        from relavium_desktop.host.fs.roots import join

        keeper = Checkpointer(media.store, settings.checkpoints, join(policy.workspace.canonical))
    try:
        return FsHost(policy, media=media.publish_fd if media is not None else None, checkpoints=keeper)
    except RuntimeError:
        return None  # no openat/O_NOFOLLOW here: the file tools fail closed (tool_unavailable)


def _build_process(
    settings: HostSettings, store: FileOutputStore, fs: FsCapability | None
) -> ProcessCapability | None:
    import os

    from relavium_desktop.host.fs import FsHost
    from relavium_desktop.host.process import (
        COMMAND_PATH_VAR,
        CwdResolver,
        ProcessHost,
        default_search_path,
        workspace_cwd_resolver,
    )

    # The working directory obeys the file tools' path policy (roots by tier,
    # read floor); where the descriptor-walk file host cannot run, the process
    # host falls back to plain workspace containment.
    resolve_cwd: CwdResolver = (
        fs.resolve_cwd if isinstance(fs, FsHost) else workspace_cwd_resolver(settings.workspace)
    )
    # The git tools see what the file tools see at this tier: the same path policy.
    from relavium_desktop.host.process.git_scope import PolicyGitScope

    # Commands are looked up only on the host's own search path; the user may
    # replace it explicitly (RELAVIUM_COMMAND_PATH), never via the app's PATH.
    return ProcessHost(
        store=store,
        resolve_cwd=resolve_cwd,
        search_path=default_search_path(os.environ.get(COMMAND_PATH_VAR)),
        git_scope=PolicyGitScope(fs.policy) if isinstance(fs, FsHost) else None,
    )


def _build_egress(
    settings: HostSettings, store: FileOutputStore, media: MediaHost | None = None
) -> EgressCapability | None:
    # The SSRF-checked egress host; secrets resolve lazily, so a machine without
    # a keyring still gets egress (only a credentialRef then fails, clearly).
    # A binary response body is published to the media store and returned as a handle.
    from relavium_desktop.host.egress import EgressHost
    from relavium_desktop.host.secrets import SecretStore

    return EgressHost(output_store=store, secrets=SecretStore(), media=media)


def _build_mcp(settings: HostSettings) -> McpCapability | None:
    # Servers come from the user's mcp.yaml (and the workflow), read on first use,
    # so a broken file fails mcp_call clearly without taking the other tools down.
    import os

    from relavium_desktop.host.mcp import McpHost
    from relavium_desktop.host.process import COMMAND_PATH_VAR, default_search_path
    from relavium_desktop.host.secrets import SecretStore

    return McpHost(
        home=settings.home,
        default_cwd=settings.workspace.expanduser().resolve(),
        search_path=default_search_path(os.environ.get(COMMAND_PATH_VAR)),
        secrets=SecretStore(),
        servers=settings.mcp_servers,
        **_mcp_client_options(settings),
    )


def _mcp_client_options(settings: HostSettings) -> dict[str, Any]:
    """Hooks and roots, passed only when the surface has them (a CLI host keeps McpHost's defaults)."""
    options: dict[str, Any] = {}
    if settings.mcp_hooks is not None:
        options["hooks"] = settings.mcp_hooks
    if settings.mcp_roots:
        options["roots"] = settings.mcp_roots
    return options


def build_host(settings: HostSettings) -> ToolHost:
    runs = settings.home / "runs"
    scope = SpillScope(runs)
    store = FileOutputStore(runs, scope)
    if settings.run_id is not None:
        store.bind(settings.run_id)
    media = _build_media(settings)
    fs = _build_fs(settings, scope, media)
    return ToolHost(
        fs=fs,
        process=_build_process(settings, store, fs),
        egress=_build_egress(settings, store, media),
        os=settings.os_capability,
        mcp=_build_mcp(settings),
        media=media,
        output_store=store,
    )


def bind_spill_scope(host: ToolHost, run_id: str) -> None:
    """Make ``run_id``'s folder the one spill folder ``host``'s file tools may read.

    For a host built before its run id existed (a workflow engine's): the
    surface binds it when the run starts or resumes, replacing an earlier run.
    """
    store = host.output_store
    if isinstance(store, FileOutputStore) and valid_run_id(run_id):
        store.bind(run_id)


async def close_host(host: ToolHost) -> None:
    """Release what a host holds open: MCP sessions and the server processes behind them.

    A surface that replaces a host (the chat after a folder grant) calls this
    on the old one, so its stdio servers do not linger until the app quits.
    """
    await host.mcp_or_absent().aclose()

