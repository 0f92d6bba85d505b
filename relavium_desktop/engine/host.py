"""The ToolHost capability seam: the engine's only path to a side effect.

The engine owns policy and dispatch; every OS, network or desktop effect is a
method on one of these protocols, supplied by ``relavium_desktop.host``.  Each
capability is optional: a tool whose capability is absent fails with
``tool_unavailable`` instead of crashing, so a host can be wired piece by piece
and a headless host simply leaves the desktop-only parts out.

Host methods raise :class:`~relavium_desktop.engine.errors.ToolError`
subclasses for policy outcomes they own (scope, floors, SSRF, env) and any
other exception for I/O trouble; the registry maps the latter to
``tool_failed``.  Cancellation is plain asyncio task cancellation.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.llm.messages import MediaBlob
from relavium_desktop.engine.mcp_reports import DISCOVERY_TIMEOUT_S

if TYPE_CHECKING:
    from relavium_desktop.engine.errors import ToolUnavailableError
    from relavium_desktop.engine.mcp_reports import ServerReport
    from relavium_desktop.engine.tools.tooldef import SandboxMode


@dataclass(frozen=True, slots=True)
class SpillInfo:
    """Where the full text of an over-ceiling result was written."""

    path: str
    bytes: int

    def to_json(self) -> JsonDict:
        return {"path": self.path, "bytes": self.bytes}


@runtime_checkable
class OutputStore(Protocol):
    """Run-scoped spill files, reclaimed at the run's terminal event.

    ``spill(run_id, ...)`` writes under the run's own folder; the host lets
    that run's file tools read the folder (read-only) and no other run's.
    ``reclaim`` is called at every terminal event - completed, failed and
    cancelled - but not when a run pauses at a human gate.
    """

    async def spill(self, run_id: str, label: str, text: str) -> SpillInfo: ...

    async def reclaim(self, run_id: str) -> None: ...


@runtime_checkable
class FsCapability(Protocol):
    """Filesystem access jailed to the host's immutable path policy.

    Paths are the tool's raw strings; the host resolves them against its
    roots, applies floors and tiers, and returns result-shaped dicts with
    workspace-relative paths.
    """

    async def read_file(self, path: str) -> JsonDict:
        """One text file: ``{path, content, mimeType, sizeBytes, lastModified}``.

        A binary file, on a host with a media store, is published there and
        comes back as ``{path, media: {handle, sha256, mimeType, sizeBytes,
        width?, height?}, mimeType, sizeBytes, lastModified}`` -- a handle,
        never its bytes.
        """
        ...

    async def read_glob(self, pattern: str) -> list[JsonDict]:
        """Every file matching a glob, each shaped as :meth:`read_file`."""
        ...

    async def write_file(
        self, path: str, content: str, *, append: bool, create_parents: bool
    ) -> JsonDict:
        """``{path, bytesWritten}``; atomic replace for writes, O_APPEND for appends."""
        ...

    async def list_directory(
        self, path: str, *, recursive: bool, glob: str | None
    ) -> JsonDict:
        """``{entries: [{name, type, sizeBytes, lastModified}]}``."""
        ...


@dataclass(frozen=True, slots=True)
class SpawnOptions:
    """Engine-checked, host-enforced knobs for one process."""

    run_id: str
    cwd: str | None = None
    timeout_ms: int = 120_000
    # Byte ceiling of stdout/stderr kept in memory; the rest is spilled by the host.
    capture_ceiling: int = 51_200
    # The policy's allowedEnv: declared names beyond the inert set the host may pass (env_policy).
    allowed_env: tuple[str, ...] = ()
    # The policy's OS sandbox for this process (ToolPolicy.sandbox); None: the host's own mode.
    sandbox: SandboxMode | None = None


@runtime_checkable
class ProcessCapability(Protocol):
    async def spawn(
        self,
        command: str,
        args: Sequence[str],
        declared_env: Mapping[str, str],
        opts: SpawnOptions,
    ) -> JsonDict:
        """Run ``command`` with ``shell=False``.

        Returns ``{exitCode, stdout, stderr, durationMs}`` and, when the
        output was larger than the capture ceiling, ``stdoutSpill`` /
        ``stderrSpill`` (``{path, bytes}``).
        """
        ...

    async def git(self, args: Sequence[str], opts: SpawnOptions) -> JsonDict:
        """Run git in the workspace with the hardened git environment."""
        ...


@dataclass(frozen=True, slots=True)
class EgressRequest:
    method: Literal["GET", "POST", "PUT", "DELETE"]
    url: str
    run_id: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str | None = None
    # An opaque ``secret:NAME`` reference the host resolves inside its boundary.
    credential_ref: str | None = None
    credential_header: str = "Authorization"
    credential_scheme: str | None = "Bearer"
    follow_redirects: bool = False
    # The domain allowlist every redirect hop is re-checked against; None means
    # the destination is config-pinned (a search provider), not model-chosen.
    allowed_domains: tuple[str, ...] | None = None
    allow_local: bool = False
    stream: bool = False
    timeout_ms: int = 30_000


@runtime_checkable
class EgressCapability(Protocol):
    async def fetch(self, request: EgressRequest) -> JsonDict:
        """``{status, headers, body, truncated?, bodySpill?, url}`` after SSRF checks."""
        ...


@runtime_checkable
class OsCapability(Protocol):
    async def read_clipboard(self) -> str: ...

    async def read_clipboard_image(self) -> JsonDict | None:
        """The image on the clipboard, PNG-encoded and published to the host's media store.

        Returns its media descriptor (``{handle, sha256, mimeType, sizeBytes,
        width, height}``) -- a handle, never the bytes -- or None when the
        clipboard holds no image.  The host publishes because the engine
        cannot write the store; the tool then admits the handle into the
        scope of the call, as read_file does.
        """
        ...

    async def notify(self, title: str, body: str, actions: Sequence[str]) -> JsonDict:
        """Show a notification without waiting for it; ``{id}``."""
        ...


# (progress, total, message) of one MCP call, as the server reports it.
ProgressSink = Callable[[float, float | None, str | None], None]
# (level, message) of a server log line received while one MCP call runs.
LogSink = Callable[[str, str], None]


@runtime_checkable
class McpCapability(Protocol):
    """The MCP servers a host can reach: calls, discovery, resources, prompts and their lifetime.

    Everything a surface does with MCP goes through these methods, so a host
    without MCP (:class:`AbsentMcp`) and the real one answer the same
    questions and no caller probes for a method.
    """

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        on_progress: ProgressSink | None = None,
        on_log: LogSink | None = None,
    ) -> Any:
        """Call one tool; ``on_progress``/``on_log`` receive the server's notifications for this call."""
        ...

    async def discover(
        self, servers: Collection[str] | None = None, *, timeout_s: float = DISCOVERY_TIMEOUT_S
    ) -> Sequence[ServerReport]:
        """One report per configured server (or per name in ``servers``), each under ``timeout_s``.

        Never raises for a dead, hung, refused or misconfigured server: its
        report is ``ok=False`` with a clear, secret-free reason.
        """
        ...

    def server_names(self) -> list[str]:
        """The configured servers' names, sorted; raises an exception naming the problem for a broken config."""
        ...

    async def read_resource(self, server: str, uri: str) -> dict[str, Any]:
        """``{uri, contents: [...]}`` of one resource; a ToolError when it cannot be read."""
        ...

    async def get_prompt(self, server: str, name: str, arguments: Mapping[str, str]) -> list[dict[str, str]]:
        """The prompt's messages as ``[{role, text}]``; a ToolError when it cannot be rendered."""
        ...

    def set_roots(self, roots: Sequence[str]) -> None:
        """Replace the folders the servers may see (a folder granted or revoked); they are told when they can be."""
        ...

    async def aclose(self) -> None:
        """End every session the capability opened (stdio servers are stopped); it reconnects on demand."""
        ...


class AbsentMcp:
    """The MCP capability of a host that has none: no servers, nothing to close.

    Listing questions get empty answers; anything that would reach a server
    fails ``tool_unavailable``, as a tool of a missing capability does.
    """

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        on_progress: ProgressSink | None = None,
        on_log: LogSink | None = None,
    ) -> Any:
        raise _unavailable()

    async def discover(
        self, servers: Collection[str] | None = None, *, timeout_s: float = DISCOVERY_TIMEOUT_S
    ) -> list[ServerReport]:
        return []

    def server_names(self) -> list[str]:
        return []

    async def read_resource(self, server: str, uri: str) -> dict[str, Any]:
        raise _unavailable()

    async def get_prompt(self, server: str, name: str, arguments: Mapping[str, str]) -> list[dict[str, str]]:
        raise _unavailable()

    def set_roots(self, roots: Sequence[str]) -> None:
        """No server to tell."""

    async def aclose(self) -> None:
        return None


def _unavailable() -> ToolUnavailableError:
    # Imported here: the errors module loads the log masking, which the window's first paint must not pay.
    from relavium_desktop.engine.errors import ToolUnavailableError

    return ToolUnavailableError("this host has no MCP client")


@runtime_checkable
class MediaCapability(Protocol):
    """The media store as the engine sees it: handles and scopes, bytes only for egress.

    A *scope* is the chat session or run a tool runs for
    (``ToolDispatchContext.media_scope``).  A handle is readable only in a
    scope that produced or received it: knowing a sha256 is not
    authorisation.  Producers (``FsCapability.read_file`` on a binary file)
    publish through the host and return a ``media`` descriptor; the engine
    then admits that handle into the scope of the call (:meth:`admit`).
    """

    async def describe(self, handle: str, scope: str) -> JsonDict:
        """``{handle, mimeType, sizeBytes, width?, height?}`` of a handle granted to ``scope``.

        Raises ``ToolDeniedError(media_scope_denied)`` when it is not granted
        there, ``ToolFailedError`` when the object is gone from the store.
        """
        ...

    async def admit(self, handle: str, scope: str) -> bool:
        """Grant ``scope`` a handle THIS host published; False (no grant) for any other handle."""
        ...

    async def load(self, handle: str, scope: str) -> MediaBlob:
        """The verified bytes of a handle granted to ``scope``, for one provider request only."""
        ...


@dataclass(frozen=True, slots=True)
class ToolHost:
    """The capabilities one surface supplies; any may be absent."""

    fs: FsCapability | None = None
    process: ProcessCapability | None = None
    egress: EgressCapability | None = None
    os: OsCapability | None = None
    mcp: McpCapability | None = None
    media: MediaCapability | None = None
    output_store: OutputStore | None = None

    def mcp_or_absent(self) -> McpCapability:
        """The MCP capability, or :class:`AbsentMcp` (no servers, nothing to close) when the host has none."""
        return self.mcp if self.mcp is not None else AbsentMcp()
