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

Every session declares roots, elicitation and sampling (answered per request
by :mod:`.client_callbacks` through the surface's :class:`McpClientHooks`),
asks for log messages, and routes a call's progress and logs to that call's
sinks.  Servers a workflow or agent declared (``servers=``) are "workflow"
origin: a stdio one is not spawned until ``hooks.consent`` approves its
fingerprint (once per host per fingerprint); the user's own ``mcp.yaml``
servers never ask.  :meth:`McpHost.discover` lists every server concurrently,
each under its own deadline, and reports instead of raising.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
import warnings
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from relavium_desktop.engine.errors import (
    DenyReason,
    InvalidArgsError,
    ToolDeniedError,
    ToolError,
    ToolFailedError,
    ToolUnavailableError,
)
from relavium_desktop.engine.host import LogSink, ProgressSink
from relavium_desktop.engine.mcp_reports import DISCOVERY_TIMEOUT_S, ServerReport
from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.host.mcp.config import (
    CONFIG_FILE,
    HttpServer,
    McpConfigError,
    StdioServer,
    load_servers,
    parse_servers,
)
from relavium_desktop.host.mcp.fingerprint import stdio_fingerprint
from relavium_desktop.host.mcp.hooks import ConsentRequest, McpClientHooks
from relavium_desktop.host.media import MediaStore
from relavium_desktop.host.secrets import SecretStore, SecretStoreError

if TYPE_CHECKING:
    from relavium_desktop.host.mcp.client_callbacks import SessionCallbacks
    from relavium_desktop.host.mcp.connection import McpConnection
    from relavium_desktop.host.mcp.stdio import StdioFault

ServerEntry = StdioServer | HttpServer
Origin = Literal["user", "workflow"]
log = logging.getLogger("relavium.mcp")


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


def _progress_callback(sink: ProgressSink) -> Any:
    """The SDK's async progress callback, feeding a plain sink (whose failures never end the call)."""

    async def progress(value: float, total: float | None, message: str | None) -> None:
        try:
            sink(value, total, message)
        except Exception:
            log.exception("an MCP progress sink failed")

    return progress


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
    detail = str(message)
    for secret in secrets:
        if secret:
            detail = detail.replace(secret, "****")
    return mask_text(detail)[:500]  # masked before the cut, which could halve a key


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
        roots: Sequence[Path] = (),
        hooks: McpClientHooks | None = None,
        media: MediaStore | None = None,
    ) -> None:
        """``servers`` is a workflow's injected ``{name: entry}`` mapping, added to mcp.yaml's.

        ``roots`` are the folders servers may ask for (the project folder and
        granted extras); ``hooks`` is what this surface can answer (forms,
        sampling, consent) -- none means every such request is refused.
        ``media`` receives binary result content (default: ``home/"media"``).
        ``http_options`` (``ssl_context``, ``resolver``, ``check``) exists for
        tests against a local TLS server; production passes none.
        """
        self._home = home
        self._roots: tuple[Path, ...] = tuple(roots)
        self._hooks = hooks or McpClientHooks()
        self._media = media if media is not None else MediaStore(home / "media")
        self._user_names: frozenset[str] = frozenset()
        self._consents: dict[str, bool] = {}
        self._consent_lock = asyncio.Lock()
        self._callbacks: dict[str, SessionCallbacks] = {}
        self._notify_tasks: set[asyncio.Task[None]] = set()
        self._default_cwd = default_cwd
        self._search_path = tuple(search_path)
        self._secrets = secrets
        self._injected = servers
        self._http_options = dict(http_options or {})
        self._servers: dict[str, ServerEntry] | None = None
        self._connections: dict[str, McpConnection] = {}
        self._faults: dict[str, StdioFault] = {}  # per stdio server: why its reader ended the stream
        self._credentials: dict[str, str] = {}
        self._sign_ins: dict[str, Any] = {}  # per OAuth server: its SignInWatch (a sign-in refused mid-call)
        self._locks: dict[str, asyncio.Lock] = {}

    # -- registry ------------------------------------------------------------------

    def _load(self) -> dict[str, ServerEntry]:
        """Every configured server (loaded once); raises ``McpConfigError`` for a broken config."""
        if self._servers is None:
            found = load_servers(self._home)
            user = frozenset(found)
            if self._injected:
                extra = parse_servers(self._injected, source="workflow mcp servers")
                clash = sorted(set(found) & set(extra))
                if clash:
                    raise McpConfigError(
                        f"workflow mcp servers: {', '.join(clash)} already configured in {CONFIG_FILE}; "
                        "a workflow may add servers, not replace the user's"
                    )
                found.update(extra)
            self._user_names = user
            self._servers = found
        return self._servers

    def servers(self) -> dict[str, ServerEntry]:
        """Every configured server (loaded once); raises ``tool_unavailable`` for a broken config."""
        try:
            return self._load()
        except McpConfigError as exc:
            raise ToolUnavailableError(f"MCP servers are misconfigured: {exc}") from None

    def server_names(self) -> list[str]:
        """The configured servers' names (user and workflow), sorted; raises ``McpConfigError``."""
        return sorted(self._load())

    def origin(self, server: str) -> Origin:
        """``user`` for the user's own mcp.yaml servers, ``workflow`` for injected ones."""
        self._load()
        return "user" if server in self._user_names else "workflow"

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

    def _cwd(self, entry: StdioServer) -> str:
        return str(Path(entry.cwd).expanduser()) if entry.cwd else str(self._default_cwd)

    async def _ensure_consent(self, name: str, entry: StdioServer) -> None:
        """A workflow-declared stdio server runs only after the user approved this exact launch."""
        if self.origin(name) == "user":
            return
        fingerprint = stdio_fingerprint(entry)
        async with self._consent_lock:
            decided = self._consents.get(fingerprint)
            if decided is None:
                consent = self._hooks.consent
                if consent is None:
                    decided = False
                else:
                    request = ConsentRequest(
                        server=name, fingerprint=fingerprint, command=entry.command, args=tuple(entry.args),
                        env_names=tuple(sorted(entry.env)), cwd=self._cwd(entry),
                        sandbox=entry.sandbox_for(self.origin(name)),
                    )
                    try:
                        decided = bool(await consent(request))
                    except Exception:  # a prompt that failed is no approval; ask again next time
                        log.exception("the MCP consent prompt failed for server %s", name)
                        decided = None
                if decided is not None:
                    self._consents[fingerprint] = decided
        if not decided:
            reason = DenyReason.NO_APPROVAL_HOOK if self._hooks.consent is None else DenyReason.USER_REJECTED
            raise ToolDeniedError(
                f"MCP server {name!r} was declared by a workflow or agent and runs a local command "
                f"({Path(entry.command).name}); it has not been approved, so it was not started. "
                f"Approve it with '--approve-mcp {name}' on the command line, or in the consent prompt in the app",
                reason=reason,
            )

    def _stdio(self, name: str, entry: StdioServer) -> AbstractAsyncContextManager[Any]:
        from relavium_desktop.host.mcp.stdio import StdioFault, prepare_launch, stdio_transport

        cwd = self._cwd(entry)
        if not os.path.isdir(cwd):
            raise ToolFailedError("the MCP server's working folder does not exist")
        launch = prepare_launch(entry.command, entry.args, entry.env, cwd, self._search_path)
        fault = self._faults[name] = StdioFault()
        origin = self.origin(name)
        return stdio_transport(launch, fault, sandbox_mode=entry.sandbox_for(origin), user_server=origin == "user")

    def _sandbox_hint(self, name: str, entry: ServerEntry) -> str:
        """For a confined stdio server that would not start: the sandbox may be why, and how to loosen it."""
        if not isinstance(entry, StdioServer):
            return ""
        mode = entry.sandbox_for(self.origin(name))
        if mode == "off":
            return ""
        return (f"; it runs in the {mode!r} sandbox (writes only its working folder and a private temp folder"
                f"{', no network' if mode == 'strict' else ''}): if it needs more, set 'sandbox: off' on its "
                f"entry ('relavium doctor' shows each server's mode)")

    def _detail(self, name: str, exc: BaseException) -> str:
        """Why a request to ``name`` failed: a stream fault the transport saw, else the exception's short form."""
        fault = self._faults.get(name)
        if fault is not None and fault.reason:
            return f"{fault.reason}; the server was stopped"
        return _short(exc, tuple(self._credentials.values()))

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

    def _person_slack(self, entry: ServerEntry) -> float:
        """Extra time for a call that may wait on a person signing in (only when one can be asked)."""
        if isinstance(entry, HttpServer) and entry.uses_oauth and self._hooks.open_browser is not None:
            return self._hooks.sign_in_timeout_s
        return 0.0

    async def _oauth(self, name: str, entry: HttpServer) -> Any:
        """The server's OAuth sign-in (tokens from the keyring), or None when it uses none."""
        if not entry.uses_oauth or self._secrets is None:
            return None
        from relavium_desktop.host.mcp.config import OAuthSettings
        from relavium_desktop.host.mcp.oauth.provider import RelaviumOAuthProvider
        from relavium_desktop.host.mcp.oauth.store import OAuthTokenStore

        settings = entry.oauth if isinstance(entry.oauth, OAuthSettings) else OAuthSettings()
        resolved: dict[str, str] = {}
        for field, ref in (("secret", settings.client_secret), ("key", settings.client_key)):
            if ref is None:
                continue
            try:
                _, resolved[field] = await asyncio.to_thread(self._secrets.resolve_ref, ref)
            except SecretStoreError as exc:
                raise ToolFailedError(str(exc)) from None
            self._credentials[f"{name}#oauth-{field}"] = resolved[field]
        client_secret = resolved.get("secret")
        store = OAuthTokenStore(self._secrets, name, entry.url)
        if settings.grant == "client_credentials":
            from relavium_desktop.host.mcp.oauth.machine import machine_provider

            return machine_provider(entry, settings, store, secret=client_secret, key=resolved.get("key"))
        from relavium_desktop.host.mcp.sign_in_watch import SignInWatch

        watch = self._sign_ins[name] = SignInWatch(RelaviumOAuthProvider(
            server=name, entry=entry, store=store, client_secret=client_secret, open_browser=self._hooks.open_browser,
            sign_in_timeout_s=self._hooks.sign_in_timeout_s,
        ))
        return watch

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
            ssl_context=opts.get("ssl_context"), auth=await self._oauth(name, entry), **kw,
        )

        @asynccontextmanager
        async def transport() -> AsyncIterator[Any]:
            async with client, streamable_http_client(entry.url, http_client=client) as streams:
                yield streams

        return transport()

    # -- sessions --------------------------------------------------------------------

    def _session_callbacks(self, name: str, entry: ServerEntry) -> SessionCallbacks:
        from relavium_desktop.host.mcp.client_callbacks import SessionCallbacks

        callbacks = self._callbacks.get(name)
        if callbacks is None or callbacks.entry is not entry:
            callbacks = SessionCallbacks(name, entry, roots=lambda: self._roots, hooks=self._hooks)
            self._callbacks[name] = callbacks
        return callbacks

    async def _connect(self, name: str, entry: ServerEntry, timeout_s: float | None = None) -> McpConnection:
        lock = self._locks.setdefault(name, asyncio.Lock())
        async with lock:
            conn = self._connections.get(name)
            if conn is not None and conn.alive:
                return conn
            if conn is not None:
                self._connections.pop(name, None)
                await conn.close()
            from relavium_desktop.host.mcp.connection import McpConnection  # the SDK, on first use

            if isinstance(entry, StdioServer):
                await self._ensure_consent(name, entry)  # before anything is spawned
                transport = self._stdio(name, entry)
            else:
                transport = await self._http(name, entry)
            conn = McpConnection(transport, self._session_callbacks(name, entry).client_kwargs())
            wait_s = (entry.connect_timeout_ms / 1000 if timeout_s is None else timeout_s) + self._person_slack(entry)
            try:
                await conn.open(wait_s)
            except TimeoutError:
                raise ToolFailedError(
                    f"MCP server {name!r} did not answer within {wait_s:g} s (no handshake)"
                ) from None
            except Exception as exc:  # noqa: BLE001 - an SDK/transport failure of any kind is tool_failed
                found = _first_tool_error(exc)
                if found is not None:
                    raise found from None
                detail = self._detail(name, exc)
                raise ToolFailedError(f"could not connect to MCP server {name!r} ({detail}){self._sandbox_hint(name, entry)}") from None
            self._connections[name] = conn
            await self._subscribe_logs(conn)
            return conn

    @staticmethod
    async def _subscribe_logs(conn: McpConnection) -> None:
        """Ask a handshake-era server for its log messages (newer ones opt in per request)."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        client = conn.client
        if client is None or client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        if client.server_capabilities.logging is None:
            return
        with warnings.catch_warnings(), contextlib.suppress(Exception):
            warnings.simplefilter("ignore")
            async with asyncio.timeout(5):
                await client.set_logging_level("info")

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
        """Call ``tool`` on ``server``; the result JSON, or a ToolError.

        ``on_progress`` receives the server's progress notifications for this
        call; ``on_log`` the server's log messages while it runs.
        """
        entry = self._entry(server)
        callbacks = self._session_callbacks(server, entry)
        if on_log is not None:
            callbacks.log_sinks.append(on_log)
        try:
            result = await self._call(server, entry, tool, arguments, on_progress)
        finally:
            if on_log is not None:
                callbacks.log_sinks.remove(on_log)
        from relavium_desktop.host.mcp.results import result_json, tool_error

        if result.is_error:
            raise tool_error(server, tool, result, tuple(self._credentials.values()))
        return await asyncio.to_thread(result_json, result, self._media)

    async def _call(
        self, server: str, entry: ServerEntry, tool: str, arguments: Mapping[str, Any], on_progress: ProgressSink | None
    ) -> Any:
        progress = _progress_callback(on_progress) if on_progress is not None else None
        try:
            conn = await self._connect(server, entry)
            client = conn.client
            assert client is not None
            async with asyncio.timeout(entry.timeout_ms / 1000 + self._person_slack(entry)):
                if not conn.tools_listed:
                    from relavium_desktop.host.mcp.discovery import prime_tool_listing

                    await prime_tool_listing(client)
                    conn.tools_listed = True
                return await client.call_tool(tool, dict(arguments), progress_callback=progress)
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
            watch = self._sign_ins.get(server)
            if watch is not None and watch.refused is not None:
                raise watch.refused from None  # the server wants a sign-in: said so, not "Connection closed"
            detail = self._detail(server, exc)
            raise ToolFailedError(f"MCP server {server!r}: calling {tool!r} failed ({detail})") from None

    # -- resources and prompts -------------------------------------------------------

    async def _request(self, server: str, what: str, send: Any) -> Any:
        """Run ``send(client)`` on ``server``'s session under its timeout, errors as ToolErrors."""
        entry = self._entry(server)
        try:
            conn = await self._connect(server, entry)
            assert conn.client is not None
            async with asyncio.timeout(entry.timeout_ms / 1000):
                return await send(conn.client)
        except TimeoutError:
            await self._drop(server)
            raise ToolFailedError(f"MCP server {server!r}: {what} timed out after {entry.timeout_ms} ms") from None
        except ToolError:
            raise
        except Exception as exc:  # noqa: BLE001 - protocol errors name themselves; others drop the session
            fault = self._faults.get(server)
            if type(exc).__name__ != "MCPError" or (fault is not None and fault.reason):
                await self._drop(server)
            detail = self._detail(server, exc)
            raise ToolFailedError(f"MCP server {server!r}: {what} failed ({detail})") from None

    async def read_resource(self, server: str, uri: str) -> dict[str, Any]:
        """``{uri, contents: [...]}``: text contents as sent, blobs as media handles or placeholders."""
        from relavium_desktop.host.mcp.results import convert_resource_contents

        result = await self._request(server, f"reading resource {uri[:200]!r}", lambda c: c.read_resource(uri))
        raw = [item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in result.contents]

        def convert() -> list[dict[str, Any]]:
            return [convert_resource_contents(item, self._media) for item in raw]

        return {"uri": uri, "contents": await asyncio.to_thread(convert)}

    async def get_prompt(self, server: str, name: str, arguments: Mapping[str, str]) -> list[dict[str, str]]:
        """The prompt's messages as ``[{role, text}]``; non-text parts become a short placeholder."""
        from relavium_desktop.host.mcp.results import convert_part

        result = await self._request(
            server, f"getting prompt {name[:100]!r}", lambda c: c.get_prompt(name, dict(arguments))
        )
        messages: list[dict[str, str]] = []
        for message in result.messages:
            part = message.content.model_dump(mode="json", by_alias=True, exclude_none=True)
            if part.get("type") == "text":
                text = str(part.get("text", ""))
            elif part.get("type") == "resource" and isinstance(part.get("resource", {}).get("text"), str):
                text = part["resource"]["text"]
            else:
                converted = await asyncio.to_thread(convert_part, part, self._media)
                ref = converted.get("media") or converted.get("note") or converted.get("uri") or ""
                text = f"[{converted.get('type')} {converted.get('mimeType', '')} {ref}]".replace("  ", " ")
            messages.append({"role": str(message.role), "text": text})
        return messages

    # -- roots -----------------------------------------------------------------------

    def set_roots(self, roots: Sequence[str | Path]) -> None:
        """Replace the roots; live handshake-era sessions get ``notifications/roots/list_changed``."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        self._roots = tuple(Path(r) for r in roots)
        for conn in list(self._connections.values()):
            client, loop = conn.client, conn.loop
            if client is None or loop is None or loop.is_closed():
                continue
            # 2026-07-28 has no client-to-server notifications: a server there asks for roots per request.
            if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                continue
            loop.call_soon_threadsafe(self._notify_roots_changed, conn)

    def _notify_roots_changed(self, conn: McpConnection) -> None:
        async def send() -> None:
            client = conn.client
            if client is None or not conn.alive:
                return
            with warnings.catch_warnings(), contextlib.suppress(Exception):
                warnings.simplefilter("ignore")
                await client.session.send_roots_list_changed()

        task = asyncio.get_running_loop().create_task(send())
        self._notify_tasks.add(task)
        task.add_done_callback(self._notify_tasks.discard)

    # -- discovery -------------------------------------------------------------------

    async def discover(
        self, servers: Collection[str] | None = None, *, timeout_s: float = DISCOVERY_TIMEOUT_S
    ) -> list[ServerReport]:
        """One report per server, all concurrently, each under its own ``timeout_s``; never raises.

        A broken mcp.yaml is a single report for ``mcp.yaml``; a server that
        hangs, crashes, is refused consent or answers garbage is ``ok=False``
        with the reason, and never delays the other servers' reports.
        """
        try:
            configured = self._load()
        except McpConfigError as exc:
            return [ServerReport(server=CONFIG_FILE, origin="user", ok=False, error=str(exc))]
        names = sorted(configured) if servers is None else list(dict.fromkeys(servers))
        return list(await asyncio.gather(*(self._discover_one(name, timeout_s) for name in names)))

    async def _discover_one(self, name: str, timeout_s: float) -> ServerReport:
        from relavium_desktop.host.mcp.discovery import list_server

        entry = self._load().get(name)
        if entry is None:
            return ServerReport(server=name, origin="workflow", ok=False, error=f"{name!r} is not a configured MCP server")
        origin = self.origin(name)
        if isinstance(entry, StdioServer):
            # The user's answer is not part of the server's deadline: a person reading the consent
            # prompt must not make the server "not answer in time".
            try:
                await self._ensure_consent(name, entry)
            except ToolError as exc:
                return ServerReport(server=name, origin=origin, ok=False, error=str(exc))
        started = time.monotonic()
        try:
            async with asyncio.timeout(timeout_s + 2 * self._person_slack(entry)):
                conn = await self._connect(name, entry, timeout_s=min(timeout_s, entry.connect_timeout_ms / 1000))
                assert conn.client is not None
                listing = await list_server(conn.client, name, entry)
                conn.tools_listed = True
        except TimeoutError:
            await self._drop(name)
            return ServerReport(server=name, origin=origin, ok=False, error=f"MCP server {name!r} did not answer within {timeout_s:g} s")
        except ToolError as exc:
            return ServerReport(server=name, origin=origin, ok=False, error=str(exc))
        except Exception as exc:  # noqa: BLE001 - a broken server is a report, never a crash
            await self._drop(name)
            detail = self._detail(name, exc)
            return ServerReport(server=name, origin=origin, ok=False, error=f"MCP server {name!r}: listing failed ({detail})")
        return ServerReport(
            server=name, origin=origin, ok=True, tools=listing.tools, all_tool_names=listing.all_tool_names,
            resources=listing.resources, prompts=listing.prompts, warnings=listing.warnings,
            skipped=listing.skipped, latency_ms=int((time.monotonic() - started) * 1000),
        )

    async def aclose(self) -> None:
        """End every session (kill stdio servers); the host stays usable and reconnects on demand."""
        names = list(self._connections)
        for name in names:
            await self._drop(name)
        self._credentials.clear()

