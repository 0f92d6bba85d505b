"""The SDK's OAuth client, completed: what ``OAuthClientProvider`` does not do on its own.

The SDK's provider (``mcp.client.auth.OAuthClientProvider``, an ``httpx2.Auth``)
already implements the spec's discovery (protected-resource metadata from
``WWW-Authenticate`` or the well-known paths, RFC 8414 / OpenID metadata in the
spec's order, the 2025-03-26 fallbacks), client ID metadata documents, dynamic
registration, PKCE S256, the ``resource`` parameter, the scope choice and the
token endpoint's auth methods.  Used as is.  Written here, because the SDK
lacks it or decides it differently than this app must:

- **Refresh on 401, and ahead of expiry**: the SDK runs a whole new sign-in on
  a 401 and refreshes only after expiry; a stored token that the server
  rejects is refreshed first, and one that expires within a minute is refreshed
  before it is sent.  The expiry survives a restart (the SDK forgets it).
- **No surprise sign-in**: without a browser to open (the app's chat, a
  headless command) a server that needs sign-in fails with
  :class:`SignInRequired`, which says how to sign in, instead of registering
  clients and waiting for a redirect nobody will make.
- **Bounded step-up**: ``insufficient_scope`` re-authorizes at most
  ``MAX_STEP_UPS`` times per session.
- **Pre-registered clients** from the entry's ``oauth:`` block, with the token
  endpoint auth method the server advertises (basic, post or none).
- **Configured scopes** (``oauth.scopes``) replace the server's suggestion.
- **The account**: the name the server gives in an OpenID ``id_token``.
- **The authorization page must be https** (plain http only under ``allowLocal``)
  before the browser is sent there, and the redirect's ``state`` is checked by
  the loopback listener, which refuses a mismatch in words.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from collections.abc import AsyncGenerator, Callable
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.exceptions import OAuthFlowError, OAuthRegistrationError, OAuthTokenError
from mcp.client.auth.utils import extract_field_from_www_auth
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata
from pydantic import AnyUrl

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError, ToolFailedError
from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.host.egress.base_url import check_base_url_scheme
from relavium_desktop.host.mcp.config import HttpServer, OAuthSettings
from relavium_desktop.host.mcp.oauth.loopback import DEFAULT_TIMEOUT_S, LoopbackListener, SignInRefused
from relavium_desktop.host.mcp.oauth.store import OAuthTokenStore

# The SDK logs every failed sign-in with its traceback and the server's answer, unmasked; the
# failure is reported here instead, masked and in words, so its logger keeps quiet.
logging.getLogger("mcp.client.auth.oauth2").setLevel(logging.CRITICAL)

MAX_STEP_UPS = 2
REFRESH_AHEAD_S = 60.0
CLIENT_NAME = "Relavium Desktop"
# Where this app's own client ID metadata document would live; unused until one is published.
DEFAULT_CLIENT_METADATA_URL: str | None = None


class SignInRequired(ToolFailedError):
    """The server needs a (new) sign-in and nobody is here to do it; the message says how.

    It carries the ``sign_in_required`` reason from birth, so a surface can offer a sign-in
    from the reason instead of from the message's wording."""

    def __init__(self, message: str, *, reason: str | None = "sign_in_required") -> None:
        super().__init__(message, reason=reason)


def login_hint(server: str) -> str:
    return f"sign in with 'relavium mcp login {server}' or Settings → MCP servers → Sign in"


def _account_from_id_token(id_token: str) -> str | None:
    """The display name an OpenID ``id_token`` carries (only shown, never trusted for anything)."""
    try:
        payload = id_token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return None
    if not isinstance(claims, dict):
        return None
    for key in ("email", "preferred_username", "name", "sub"):
        value = claims.get(key)
        if isinstance(value, str) and value:
            return value[:200]
    return None


class RelaviumOAuthProvider(OAuthClientProvider):
    """One HTTP server's sign-in; interactive only when given a ``listener`` and a browser opener."""

    def __init__(
        self,
        *,
        server: str,
        entry: HttpServer,
        store: OAuthTokenStore,
        client_secret: str | None = None,
        open_browser: Callable[[str], None] | None = None,
        sign_in_timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        """``open_browser`` makes this sign-in interactive (a person is there); without it a
        server that needs sign-in raises :class:`SignInRequired`."""
        self.server = server
        self._entry = entry
        self._store = store
        self._settings = entry.oauth if isinstance(entry.oauth, OAuthSettings) else OAuthSettings()
        self._client_secret = client_secret
        self._listener: LoopbackListener | None = None
        self._open_browser = open_browser
        self._timeout_s = sign_in_timeout_s
        self._step_ups = 0
        redirect = "http://127.0.0.1/callback"  # the real port is set when a sign-in starts its listener
        metadata = OAuthClientMetadata(
            client_name=CLIENT_NAME,
            redirect_uris=[redirect],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            scope=" ".join(self._settings.scopes) if self._settings.scopes else None,
        )
        super().__init__(
            server_url=entry.url,
            client_metadata=metadata,
            storage=store,
            redirect_handler=self._redirect,
            callback_handler=self._callback,
            client_metadata_url=self._settings.client_metadata_url or DEFAULT_CLIENT_METADATA_URL,
        )

    @property
    def interactive(self) -> bool:
        return self._open_browser is not None

    # -- state ---------------------------------------------------------------------------

    async def _initialize(self) -> None:
        await super()._initialize()
        record = await asyncio.to_thread(self._store.load_quietly)
        if record is not None and record.expires_at is not None:
            self.context.token_expiry_time = record.expires_at
        if self._settings.client_id is not None:
            # Pre-registered: from the entry, never stored; the auth method is settled once metadata is known.
            self.context.client_info = OAuthClientInformationFull(
                client_id=self._settings.client_id,
                client_secret=self._client_secret,
                redirect_uris=self.context.client_metadata.redirect_uris,
                token_endpoint_auth_method="client_secret_basic" if self._client_secret else "none",
            )

    def _expiring(self) -> bool:
        expiry = self.context.token_expiry_time
        return expiry is not None and time.time() >= expiry - REFRESH_AHEAD_S

    def _pick_auth_method(self) -> None:
        """A pre-registered client authenticates the way the server advertises (basic, post or none)."""
        info = self.context.client_info
        if info is None or self._settings.client_id is None or info.client_id != self._settings.client_id:
            return
        advertised = (
            self.context.oauth_metadata.token_endpoint_auth_methods_supported
            if self.context.oauth_metadata is not None
            else None
        ) or []
        if not self._client_secret:
            method = "none"
        elif "client_secret_basic" in advertised or not advertised:
            method = "client_secret_basic"  # RFC 6749's default
        elif "client_secret_post" in advertised:
            method = "client_secret_post"
        else:
            method = "none"
        self.context.client_info = info.model_copy(update={"token_endpoint_auth_method": method})

    async def _exchange_token_authorization_code(self, auth_code: str, code_verifier: str) -> httpx2.Request:
        self._pick_auth_method()
        return await super()._exchange_token_authorization_code(auth_code, code_verifier)

    async def _refresh_token(self) -> httpx2.Request:
        self._pick_auth_method()
        return await super()._refresh_token()

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        account = None
        if response.status_code in {200, 201}:
            try:
                body = json.loads(await response.aread())
            except ValueError:
                body = None
            if isinstance(body, dict) and isinstance(body.get("id_token"), str):
                account = _account_from_id_token(body["id_token"])
        await super()._handle_token_response(response)
        await asyncio.to_thread(self._store.save_account, account)

    # -- the browser step -------------------------------------------------------------------

    async def _perform_authorization_code_grant(self) -> tuple[str, str]:
        if self._settings.scopes:
            configured = " ".join(self._settings.scopes)
            if self._step_ups:
                from mcp.client.auth.utils import union_scopes

                configured = union_scopes(configured, self.context.client_metadata.scope) or configured
            self.context.client_metadata.scope = configured
        return await super()._perform_authorization_code_grant()

    async def _redirect(self, url: str) -> None:
        if not self.interactive:
            raise SignInRequired(
                f"MCP server {self.server!r} needs you to sign in: {login_hint(self.server)}"
            )
        try:
            check_base_url_scheme(url, allow_local=self._entry.allow_local)
        except ToolDeniedError:
            parts = urlsplit(url)
            raise ToolDeniedError(
                f"the sign-in page of MCP server {self.server!r} ({parts.scheme}://{parts.hostname}{parts.path}) "
                "is not https://, so the browser was not sent there (plain http only with allowLocal: true)",
                reason=DenyReason.HTTPS_REQUIRED,
            ) from None
        assert self._listener is not None and self._open_browser is not None
        state = parse_qs(urlsplit(url).query).get("state", [""])[0]
        self._listener.expect_state(state)
        self._open_browser(url)

    async def _callback(self) -> AuthorizationCodeResult:
        assert self._listener is not None
        answer = await self._listener.wait()
        return AuthorizationCodeResult(code=answer.code, state=answer.state, iss=answer.iss)

    # -- the flow ----------------------------------------------------------------------------

    @staticmethod
    def _needs_auth(response: httpx2.Response) -> bool:
        return response.status_code == 401 or (
            response.status_code == 403
            and extract_field_from_www_auth(response, "error") == "insufficient_scope"
        )

    def _drop_stale_registration(self) -> None:
        """A dynamically registered client whose redirect URI names another loopback port registers anew."""
        info = self.context.client_info
        if (
            info is None
            or self._settings.client_id is not None
            or info.client_id == self.context.client_metadata_url
        ):
            return
        wanted = [str(u) for u in self.context.client_metadata.redirect_uris or []]
        if [str(u) for u in info.redirect_uris or []] != wanted:
            self.context.client_info = None

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if not self._initialized:
            await self._initialize()
        refreshed = False
        if self.context.current_tokens is not None and self._expiring() and self.context.can_refresh_token():
            refreshed = True
            if not await self._handle_refresh_response((yield await self._refresh_token())):
                self.context.clear_tokens()
        if self.context.current_tokens is not None and self.context.current_tokens.access_token:
            self._add_auth_header(request)
        response = yield request
        if response.status_code == 401 and not refreshed and self.context.can_refresh_token():
            if await self._handle_refresh_response((yield await self._refresh_token())):
                self._add_auth_header(request)
                response = yield request
            else:
                self.context.clear_tokens()
        if not self._needs_auth(response):
            return
        step_up = response.status_code == 403
        if not self.interactive:
            more = " with more permissions" if step_up else ""
            raise SignInRequired(
                f"MCP server {self.server!r} needs you to sign in{more}: {login_hint(self.server)}"
            )
        if step_up:
            if self._step_ups >= MAX_STEP_UPS:
                return  # the 403 stands: the server keeps asking for scopes it never grants
            self._step_ups += 1
        listener = self._listener = LoopbackListener(self._timeout_s)
        await listener.start()
        self.context.client_metadata.redirect_uris = [AnyUrl(listener.redirect_uri)]
        self._drop_stale_registration()
        # Hand the SDK's flow the response we already have instead of sending the request again.
        flow = super()._auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            if outgoing is request:
                outgoing = await flow.asend(response)
            while True:
                outgoing = await flow.asend((yield outgoing))
        except StopAsyncIteration:
            return
        except (OAuthFlowError, OAuthTokenError, OAuthRegistrationError) as exc:
            raise ToolFailedError(
                f"signing in to MCP server {self.server!r} failed: {mask_text(str(exc))[:300]}"
            ) from None
        finally:
            self._listener = None
            await listener.close()
            await flow.aclose()


__all__ = ["MAX_STEP_UPS", "RelaviumOAuthProvider", "SignInRefused", "SignInRequired", "login_hint"]
