"""A server's sign-in in the OS keyring: tokens, expiry, account and client registration.

One keyring entry per server (service ``relavium-mcp-oauth``, key = the
server's name) holds the account signed in there, so signing in as someone
else replaces it and signing out removes it.  Nothing of it is ever written
to a file, an event, a log or history.db; every token read or written here is
registered with the app's masking, so it is masked on every channel.

The record is bound to the server's URL: a server whose entry now points
somewhere else starts signed out rather than sending its old token there.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from relavium_desktop.engine.tools.masking import remember_secret
from relavium_desktop.host.secrets import SecretStore, SecretStoreError

SERVICE = "relavium-mcp-oauth"


@dataclass(frozen=True, slots=True)
class SignIn:
    """What the keyring holds for one server (never shown: only its words and times are)."""

    url: str
    tokens: OAuthToken | None
    expires_at: float | None  # epoch seconds; None: the server gave no lifetime
    client: OAuthClientInformationFull | None
    account: str | None
    scopes: str | None

    @property
    def signed_in(self) -> bool:
        return self.tokens is not None and bool(self.tokens.access_token)


def _remember(tokens: OAuthToken | None, client: OAuthClientInformationFull | None) -> None:
    for value in (
        tokens.access_token if tokens else None,
        tokens.refresh_token if tokens else None,
        client.client_secret if client else None,
    ):
        if value:
            remember_secret(value)


def _parse(raw: str | None, url: str) -> SignIn | None:
    if not raw:
        return None
    try:
        doc = json.loads(raw)
        if not isinstance(doc, dict) or doc.get("url") != url:
            return None  # another server's sign-in (the entry's URL changed): never sent here
        tokens = OAuthToken.model_validate(doc["tokens"]) if doc.get("tokens") else None
        client = OAuthClientInformationFull.model_validate(doc["client"]) if doc.get("client") else None
    except (ValueError, KeyError, TypeError):
        return None
    _remember(tokens, client)
    expires = doc.get("expires_at")
    return SignIn(
        url=url,
        tokens=tokens,
        expires_at=float(expires) if isinstance(expires, int | float) else None,
        client=client,
        account=doc.get("account") if isinstance(doc.get("account"), str) else None,
        scopes=tokens.scope if tokens else None,
    )


class OAuthTokenStore:
    """The SDK's ``TokenStorage`` for one server, backed by the keyring; blocking calls run in a thread."""

    def __init__(self, secrets: SecretStore, server: str, url: str) -> None:
        self._secrets = secrets
        self.server = server
        self.url = url

    # -- blocking ----------------------------------------------------------------------

    def load(self) -> SignIn | None:
        """The stored sign-in for this server and URL, or None.

        Looks first without reading (:meth:`SecretStore.has_item`): reading through the
        Secret Service creates or unlocks the default keyring, which would pop a password
        prompt just for connecting to a server nobody signed in to.
        """
        if not self._secrets.has_item(SERVICE, self.server):
            return None
        return _parse(self._secrets.get_item(SERVICE, self.server), self.url)

    def _save(self, **changes: Any) -> None:
        current = self.load()
        doc: dict[str, Any] = {
            "url": self.url,
            "tokens": current.tokens.model_dump(mode="json", exclude_none=True)
            if current and current.tokens
            else None,
            "expires_at": current.expires_at if current else None,
            "client": current.client.model_dump(mode="json", exclude_none=True)
            if current and current.client
            else None,
            "account": current.account if current else None,
        }
        doc.update(changes)
        self._secrets.set_item(SERVICE, self.server, json.dumps(doc))

    def save_tokens(self, tokens: OAuthToken) -> None:
        _remember(tokens, None)
        expires_at = time.time() + tokens.expires_in if tokens.expires_in else None
        self._save(tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=expires_at)

    def save_client(self, client: OAuthClientInformationFull) -> None:
        _remember(None, client)
        self._save(client=client.model_dump(mode="json", exclude_none=True))

    def save_account(self, account: str | None) -> None:
        self._save(account=account)

    def forget_client(self) -> None:
        """Drop a dynamically registered client (its redirect URI named an old loopback port)."""
        self._save(client=None)

    def clear(self) -> bool:
        """Sign out: remove everything stored for this server; False when nothing was."""
        return self._secrets.delete_item(SERVICE, self.server)

    # -- the SDK's TokenStorage -----------------------------------------------------------

    def load_quietly(self) -> SignIn | None:
        """For the connection: no usable keyring means nobody is signed in (a server that
        needs no sign-in still works); storing a sign-in will say what is wrong."""
        try:
            return self.load()
        except SecretStoreError:
            return None

    async def get_tokens(self) -> OAuthToken | None:
        found = await asyncio.to_thread(self.load_quietly)
        return found.tokens if found else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        await asyncio.to_thread(self.save_tokens, tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        found = await asyncio.to_thread(self.load_quietly)
        return found.client if found else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        await asyncio.to_thread(self.save_client, client_info)
