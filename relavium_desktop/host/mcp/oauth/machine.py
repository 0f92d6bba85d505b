"""Machine accounts: the OAuth client_credentials grant, for servers a script (not a person) signs in to.

An entry with ``oauth: {grant: client_credentials, clientId, clientSecret | clientKey}``
gets its tokens without a browser: the client secret (``client_secret_basic``)
or a JWT signed with the key from the keyring (``private_key_jwt``, SEP-1046).
The SDK's providers do the exchange; the tokens land in the same keyring
store as a person's sign-in.  The SDK warns when no issuer is pinned; the
entry's URL (through discovery) is what decides the authorization server
here, exactly as for a person's sign-in, so that warning is not shown.
"""

from __future__ import annotations

import warnings
from typing import Any

from relavium_desktop.host.mcp.config import HttpServer, OAuthSettings
from relavium_desktop.host.mcp.oauth.store import OAuthTokenStore


def machine_provider(
    entry: HttpServer, settings: OAuthSettings, store: OAuthTokenStore, *, secret: str | None, key: str | None
) -> Any:
    """The SDK's client_credentials provider (an ``httpx2.Auth``) for ``entry``."""
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
        PrivateKeyJWTOAuthProvider,
        SignedJWTParameters,
    )

    assert settings.client_id is not None  # the config requires it for this grant
    scope = " ".join(settings.scopes) if settings.scopes else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if key is not None:
            assertion = SignedJWTParameters(
                issuer=settings.client_id,
                subject=settings.client_id,
                signing_key=key,
                signing_algorithm=settings.signing_algorithm,
            ).create_assertion_provider()
            return PrivateKeyJWTOAuthProvider(
                server_url=entry.url,
                storage=store,
                client_id=settings.client_id,
                assertion_provider=assertion,
                scope=scope,
            )
        assert secret is not None
        return ClientCredentialsOAuthProvider(
            server_url=entry.url,
            storage=store,
            client_id=settings.client_id,
            client_secret=secret,
            scope=scope,
        )
