"""``McpHost``: the engine's ``McpCapability`` -- ``mcp_call`` reaches servers only through here.

The model names a server; the host looks it up by exact name among the
servers the user (``mcp.yaml``) or the workflow author configured.  A name
that is not configured is ``invalid_args`` (correctable, fed back to the
model) with the configured names listed -- the same shape as ``unknown_tool``
for tool ids: the model chose a value outside a closed set it can be told
about, which no guardrail had to refuse (none of the fixed deny reasons
fits, and a ``tool_denied`` would end the turn over a typo).  With no servers
configured at all the capability is ``tool_unavailable``.

Sessions are opened on first use and kept for the host's life (``aclose``
ends them).  Each call is time-limited by its server's ``timeoutMs``; a call
that times out or is cancelled closes its server's session (for stdio: the
process tree is killed), because the server may still be working on it and
the next call should start from a known state.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.errors import (
    InvalidArgsError,
    ToolError,
    ToolFailedError,
    ToolUnavailableError,
)
from relavium_desktop.engine.host import LogSink, ProgressSink
from relavium_desktop.host.mcp.config import (
    CONFIG_FILE,
    HttpServer,
    McpConfigError,
    StdioServer,
    load_servers,
    parse_servers,
)
from relavium_desktop.host.secrets import SecretStore, SecretStoreError

if TYPE_CHECKING:
    from relavium_desktop.host.mcp.connection import McpConnection

ServerEntry = StdioServer | HttpServer


def _first_tool_error(exc: BaseException) -> ToolError | None:
    if isinstance(exc, ToolError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _first_tool_error(inner)
            if found is not None:
                return found
    cause = exc.__cause__
    return _first_tool_error(cause) if cause is not None and cause is not exc else None


def _short(exc: BaseException, secrets: Sequence[str] = ()) -> str:
    """A secret-free description of a failure: the SDK's protocol message, an HTTP status or the type.

    Exception text from transports can carry resolved addresses or request
    lines, so only the MCP error's own message (bounded, with the entry's
    credential masked) or the exception's type is used.
    """
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status:
        return f"HTTP {status}"
    message = getattr(exc, "message", None) if type(exc).__name__ == "MCPError" else None
    if not message:
        return type(exc).__name__
    detail = str(message)[:500]
    for secret in secrets:
        if secret:
            detail = detail.replace(secret, "****")
    return detail


class McpHost:
    def __init__(
        self,
        *,
        home: Path,
        default_cwd: Path,
        search_path: Sequence[str],
        secrets: SecretStore | None = None,
        servers: Mapping[str, Any] | None = None,
        http_options: Mapping[str, Any] | None = None,
    ) -> None:
        """``servers`` is a workflow's injected ``{name: entry}`` mapping, added to mcp.yaml's.

        ``http_options`` (``ssl_context``, ``resolver``, ``check``) exists for
        tests against a local TLS server; production passes none.
        """
        self._home = home
        self._default_cwd = default_cwd
        self._search_path = tuple(search_path)
        self._secrets = secrets
        self._injected = servers
        self._http_options = dict(http_options or {})
        self._servers: dict[str, ServerEntry] | None = None
        self._connections: dict[str, McpConnection] = {}
        self._credentials: dict[str, str] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    # -- registry ------------------------------------------------------------------

    def servers(self) -> dict[str, ServerEntry]:
        """Every configured server (loaded once); raises ``tool_unavailable`` for a broken config."""
        if self._servers is None:
            try:
                found = load_servers(self._home)
                if self._injected:
                    extra = parse_servers(self._injected, source="workflow mcp servers")
                    clash = sorted(set(found) & set(extra))
                    if clash:
                        raise McpConfigError(
                            f"workflow mcp servers: {', '.join(clash)} already configured in {CONFIG_FILE}; "
                            "a workflow may add servers, not replace the user's"
                        )
                    found.update(extra)
            except McpConfigError as exc:
                raise ToolUnavailableError(f"MCP servers are misconfigured: {exc}") from None
            self._servers = found
        return self._servers

    def _entry(self, server: str) -> ServerEntry:
        servers = self.servers()
        if not servers:
            raise ToolUnavailableError(
                f"no MCP servers are configured (add them to {CONFIG_FILE} in the Relavium data folder)"
            )
        entry = servers.get(server)
        if entry is None:
            names = ", ".join(sorted(servers))
            raise InvalidArgsError(f"server: {server[:64]!r} is not a configured MCP server; configured: {names}")
        return entry

    # -- transports ----------------------------------------------------------------

    def _stdio(self, entry: StdioServer) -> AbstractAsyncContextManager[Any]:
        from relavium_desktop.host.mcp.stdio import prepare_launch, stdio_transport

        cwd = str(Path(entry.cwd).expanduser()) if entry.cwd else str(self._default_cwd)
        if not os.path.isdir(cwd):
            raise ToolFailedError("the MCP server's working folder does not exist")
        launch = prepare_launch(entry.command, entry.args, entry.env, cwd, self._search_path)
        return stdio_transport(launch)

    async def _credential_header(self, name: str, entry: HttpServer) -> dict[str, str]:
        if entry.credential_ref is None:
            return {}
        if self._secrets is None:
            raise ToolUnavailableError("this host has no secret store, so a credentialRef cannot be resolved")
        try:
            _, value = await asyncio.to_thread(self._secrets.resolve_ref, entry.credential_ref)
        except SecretStoreError as exc:
            raise ToolFailedError(str(exc)) from None
        self._credentials[name] = value
        scheme = entry.credential_scheme
        return {entry.credential_header: f"{scheme} {value}" if scheme else value}

    async def _http(self, name: str, entry: HttpServer) -> AbstractAsyncContextManager[Any]:
        from mcp.client.streamable_http import streamable_http_client

        from relavium_desktop.host.egress import check_base_url
        from relavium_desktop.host.mcp.http import guarded_mcp_client

        opts = self._http_options
        kw = {k: opts[k] for k in ("resolver", "check") if k in opts}
        # Refuse before any connection: https (or http with allowLocal) to a permitted address.
        await check_base_url(entry.url, allow_local=entry.allow_local, **kw)
        headers = {**entry.headers, **await self._credential_header(name, entry)}
        client = guarded_mcp_client(
            headers=headers, allow_local=entry.allow_local, timeout_s=entry.connect_timeout_ms / 1000,
            ssl_context=opts.get("ssl_context"), **kw,
        )

        @asynccontextmanager
        async def transport() -> AsyncIterator[Any]:
            async with client, streamable_http_client(entry.url, http_client=client) as streams:
                yield streams

        return transport()

    # -- sessions --------------------------------------------------------------------

    async def _connect(self, name: str, entry: ServerEntry) -> McpConnection:
        lock = self._locks.setdefault(name, asyncio.Lock())
        async with lock:
            conn = self._connections.get(name)
            if conn is not None and conn.alive:
                return conn
            if conn is not None:
                self._connections.pop(name, None)
                await conn.close()
            from relavium_desktop.host.mcp.connection import McpConnection  # the SDK, on first use

            transport = self._stdio(entry) if isinstance(entry, StdioServer) else await self._http(name, entry)
            conn = McpConnection(transport)
            try:
                await conn.open(entry.connect_timeout_ms / 1000)
            except TimeoutError:
                raise ToolFailedError(
                    f"MCP server {name!r} did not complete the handshake within {entry.connect_timeout_ms} ms"
                ) from None
            except Exception as exc:  # noqa: BLE001 - an SDK/transport failure of any kind is tool_failed
                found = _first_tool_error(exc)
                if found is not None:
                    raise found from None
                detail = _short(exc, tuple(self._credentials.values()))
                raise ToolFailedError(f"could not connect to MCP server {name!r} ({detail})") from None
            self._connections[name] = conn
            return conn

    async def _drop(self, name: str) -> None:
        conn = self._connections.pop(name, None)
        if conn is not None:
            await conn.close()

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        on_progress: ProgressSink | None = None,
        on_log: LogSink | None = None,
    ) -> Any:
        """Call ``tool`` on ``server``; the result JSON, or a ToolError."""
        entry = self._entry(server)
        try:
            conn = await self._connect(server, entry)
            client = conn.client
            assert client is not None
            async with asyncio.timeout(entry.timeout_ms / 1000):
                result = await client.call_tool(tool, dict(arguments))
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._drop(server))
            raise
        except TimeoutError:
            await self._drop(server)
            raise ToolFailedError(f"MCP server {server!r}: tool {tool!r} timed out after {entry.timeout_ms} ms") from None
        except ToolError:
            raise
        except Exception as exc:  # noqa: BLE001 - the session is in an unknown state: drop it
            await self._drop(server)
            detail = _short(exc, tuple(self._credentials.values()))
            raise ToolFailedError(f"MCP server {server!r}: calling {tool!r} failed ({detail})") from None
        from relavium_desktop.host.mcp.results import result_json, tool_error

        if result.is_error:
            raise tool_error(server, tool, result, tuple(self._credentials.values()))
        return result_json(result)

    async def aclose(self) -> None:
        """End every session (kill stdio servers); the host stays usable and reconnects on demand."""
        names = list(self._connections)
        for name in names:
            await self._drop(name)
        self._credentials.clear()

