"""The sign-in store: the real keyring, one entry per server, and every token masked once seen."""

from __future__ import annotations

import uuid

from mcp.shared.auth import OAuthToken

from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.host.mcp.oauth.store import SERVICE, OAuthTokenStore
from relavium_desktop.host.secrets import SecretStore
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401

URL = "https://tracker.example/mcp"


def test_tokens_live_in_the_keyring_and_are_masked_on_every_channel(desktop_bus_env: dict[str, str]) -> None:
    access, refresh = f"opaque{uuid.uuid4().hex}", f"opaque{uuid.uuid4().hex}"
    store = OAuthTokenStore(SecretStore(), "tracker", URL)
    assert store.load() is None
    store.save_tokens(OAuthToken(access_token=access, refresh_token=refresh, expires_in=600, scope="read"))
    store.save_account("ada@example.test")
    # A new process would read it back from the keyring: do so through a fresh store.
    found = OAuthTokenStore(SecretStore(), "tracker", URL).load()
    assert found is not None and found.signed_in and found.account == "ada@example.test"
    assert found.tokens is not None and found.tokens.access_token == access and found.scopes == "read"
    assert found.expires_at is not None
    assert SecretStore().get_item(SERVICE, "tracker") is not None
    # Opaque tokens match no credential pattern; they are masked because the store saw them.
    line = f"server said {access} and {refresh}"
    assert access not in mask_text(line) and refresh not in mask_text(line)
    # Not listed among the user's secrets: a sign-in is not a secret the user named.
    assert "tracker" not in [e.name for e in SecretStore().list()]
    assert store.clear() is True
    assert store.load() is None and store.clear() is False
