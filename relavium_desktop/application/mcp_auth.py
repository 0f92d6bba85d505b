"""Signing in to remote MCP servers: the one use case the CLI and the app both call.

- :meth:`McpAuth.status` -- every configured server's sign-in state in words
  (signed in as whom, needs sign-in, no sign-in for a local program) and when
  its token expires, in local time.  Reads the keyring: call it off the UI thread.
- :meth:`McpAuth.login` -- opens the server's sign-in page through the
  caller's ``open_browser`` (the CLI: ``$BROWSER``/xdg-open or a printed URL;
  the app: ``QDesktopServices``), waits on the loopback redirect, stores the
  tokens in the keyring and proves them with a real MCP handshake.
- :meth:`McpAuth.logout` -- removes that server's tokens from the keyring.

Tokens are never returned: results carry the account name and expiry only.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from relavium_desktop.host.mcp.config import HttpServer, StdioServer
    from relavium_desktop.host.secrets import SecretStore

AuthState = Literal["signed_in", "expired", "needs_sign_in", "credential", "no_sign_in"]
DEFAULT_SIGN_IN_TIMEOUT_S = 300.0


class McpAuthError(Exception):
    """A sign-in request that cannot be carried out (unknown server, a stdio server...); the message says why."""


def local_when(epoch: float, now: float | None = None) -> str:
    """A time in the user's words and local zone: "Today 14:02", "Tomorrow 09:10", "3 Dec 14:02"."""
    at = datetime.fromtimestamp(epoch).astimezone()
    today = datetime.fromtimestamp(time.time() if now is None else now).astimezone().date()
    clock = at.strftime("%H:%M")
    if at.date() == today:
        return f"Today {clock}"
    if at.date() == today + timedelta(days=1):
        return f"Tomorrow {clock}"
    if at.date() == today - timedelta(days=1):
        return f"Yesterday {clock}"
    day = f"{at.day} {at.strftime('%b')}"
    return f"{day} {clock}" if at.year == today.year else f"{day} {at.year}"


@dataclass(frozen=True, slots=True)
class ServerAuthState:
    """One server's sign-in, ready to show: ``words`` is the line a person reads."""

    server: str
    transport: Literal["http", "stdio"]
    state: AuthState
    words: str
    account: str | None = None
    expires_at: float | None = None  # epoch seconds
    expires_words: str | None = None  # local and human, e.g. "Today 14:02"
    can_sign_in: bool = False  # offer "Sign in" (or "Sign in again")

    def to_json(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "transport": self.transport,
            "state": self.state,
            "status": self.words,
            "account": self.account,
            "expiresAt": datetime.fromtimestamp(self.expires_at).astimezone().isoformat(timespec="seconds")
            if self.expires_at is not None
            else None,
            "expires": self.expires_words,
            "canSignIn": self.can_sign_in,
        }


@dataclass(frozen=True, slots=True)
class SignInResult:
    server: str
    signed_in: bool
    message: str  # a sentence for a person: "Signed in to docs as ada@example.com."
    account: str | None = None
    expires_at: float | None = None
    required: bool = True  # False: the server never asked for a sign-in (it works without one)


class McpAuth:
    """Sign-in for the servers of ``home/mcp.yaml``, tokens in ``secrets`` (the OS keyring)."""

    def __init__(
        self, home: Path, secrets: SecretStore, *, http_options: Mapping[str, Any] | None = None
    ) -> None:
        """``http_options`` (``ssl_context``, ``resolver``, ``check``) exists for tests, as on McpHost."""
        self._home = home
        self._secrets = secrets
        self._http_options = dict(http_options or {})

    def _servers(self) -> dict[str, StdioServer | HttpServer]:
        from relavium_desktop.host.mcp.config import load_servers

        return load_servers(self._home)

    def _http(self, name: str) -> HttpServer:
        from relavium_desktop.host.mcp.config import HttpServer

        servers = self._servers()
        entry = servers.get(name)
        if entry is None:
            known = ", ".join(sorted(servers)) or "none"
            raise McpAuthError(f"{name!r} is not a configured MCP server (configured: {known})")
        if not isinstance(entry, HttpServer):
            raise McpAuthError(
                f"MCP server {name!r} is a program on this computer (stdio); it has no sign-in"
            )
        if entry.credential_ref is not None:
            raise McpAuthError(
                f"MCP server {name!r} uses the stored key {entry.credential_ref}, not a sign-in; "
                "remove credentialRef from its entry to sign in instead"
            )
        if entry.oauth is False:
            raise McpAuthError(f"MCP server {name!r} has sign-in turned off (oauth: false in mcp.yaml)")
        return entry

    def _store(self, name: str, entry: HttpServer) -> Any:
        from relavium_desktop.host.mcp.oauth.store import OAuthTokenStore

        return OAuthTokenStore(self._secrets, name, entry.url)

    # -- status ------------------------------------------------------------------------------

    def status(self, now: float | None = None) -> list[ServerAuthState]:
        """Every configured server's sign-in state; blocking (keyring), never raises for one server."""
        from relavium_desktop.host.mcp.config import HttpServer

        now = time.time() if now is None else now
        states = []
        for name, entry in sorted(self._servers().items()):
            if not isinstance(entry, HttpServer):
                states.append(
                    ServerAuthState(name, "stdio", "no_sign_in", "No sign-in (a program on this computer)")
                )
                continue
            if entry.credential_ref is not None:
                states.append(
                    ServerAuthState(name, "http", "credential", f"Uses the stored key {entry.credential_ref}")
                )
                continue
            if entry.oauth is False:
                states.append(
                    ServerAuthState(name, "http", "no_sign_in", "No sign-in (turned off in mcp.yaml)")
                )
                continue
            states.append(self._http_state(name, entry, now))
        return states

    def _http_state(self, name: str, entry: HttpServer, now: float) -> ServerAuthState:
        from relavium_desktop.host.secrets import SecretStoreError

        try:
            record = self._store(name, entry).load()
        except SecretStoreError as exc:
            reason = str(exc).split(". ")[0][:160]
            return ServerAuthState(
                name,
                "http",
                "needs_sign_in",
                f"Unknown: the keyring cannot be read ({reason})",
                can_sign_in=False,
            )
        if record is None or not record.signed_in:
            return ServerAuthState(name, "http", "needs_sign_in", "Needs sign-in", can_sign_in=True)
        expires = record.expires_at
        when = local_when(expires, now) if expires is not None else None
        who = f" as {record.account}" if record.account else ""
        if expires is not None and expires <= now:
            refresh = record.tokens is not None and record.tokens.refresh_token
            words = f"Signed in{who}; the token expired {when}" + (
                " and is renewed on next use" if refresh else ", sign in again"
            )
            state: AuthState = "signed_in" if refresh else "expired"
        else:
            words = f"Signed in{who}" + (f", until {when}" if when else "")
            state = "signed_in"
        return ServerAuthState(
            name,
            "http",
            state,
            words,
            account=record.account,
            expires_at=expires,
            expires_words=when,
            can_sign_in=True,
        )

    # -- sign in / out -------------------------------------------------------------------------

    async def login(
        self, name: str, open_browser: Callable[[str], None], *, timeout_s: float = DEFAULT_SIGN_IN_TIMEOUT_S
    ) -> SignInResult:
        """Sign in to ``name`` anew: ``open_browser(url)`` shows the page; waits up to ``timeout_s``.

        Raises :class:`McpAuthError` for a server that has no sign-in; a sign-in
        that fails (refused, timed out, the server's error) is a result with
        ``signed_in=False`` and the reason.
        """
        from relavium_desktop.host.mcp import McpHost
        from relavium_desktop.host.mcp.hooks import McpClientHooks

        entry = self._http(name)
        store = self._store(name, entry)
        await asyncio.to_thread(store.clear)  # a new sign-in replaces whoever was signed in
        hooks = McpClientHooks(open_browser=open_browser, sign_in_timeout_s=timeout_s)
        host = McpHost(
            home=self._home,
            default_cwd=self._home,
            search_path=(),
            secrets=self._secrets,
            hooks=hooks,
            http_options=self._http_options,
        )
        try:
            (report,) = await host.discover([name], timeout_s=entry.connect_timeout_ms / 1000)
        finally:
            await host.aclose()
        record = await asyncio.to_thread(store.load)
        if not report.ok:
            return SignInResult(name, False, f"Signing in to {name} failed: {report.error}")
        if record is None or not record.signed_in:
            return SignInResult(
                name, False, f"{name} did not ask for a sign-in; it works without one.", required=False
            )
        who = f" as {record.account}" if record.account else ""
        return SignInResult(
            name, True, f"Signed in to {name}{who}.", account=record.account, expires_at=record.expires_at
        )

    def logout(self, name: str) -> bool:
        """Remove ``name``'s tokens from the keyring; False when it was not signed in. Blocking."""
        entry = self._http(name)
        removed: bool = self._store(name, entry).clear()
        return removed


def terminal_browser(write: Callable[[str], object]) -> Callable[[str], None]:
    """The command line's ``open_browser``: the standard browser, else the URL printed to open by hand."""
    from relavium_desktop.host.mcp.oauth.browser import open_browser

    def show(url: str) -> None:
        if open_browser(url):
            write("relavium: opened your browser to sign in; waiting for it to come back here...")
        else:
            write("relavium: open this address in a browser to sign in (waiting for it to come back here):")
            write(url)

    return show
