"""An http server's ``oauth:`` entry: what mcp.yaml may say about signing in, and what it may not."""

from __future__ import annotations

from typing import Any

import pytest

from relavium_desktop.host.mcp.config import HttpServer, McpConfigError, parse_servers


def _entry(**extra: Any) -> HttpServer:
    found = parse_servers({"tracker": {"transport": "http", "url": "https://tracker.example/mcp", **extra}})["tracker"]
    assert isinstance(found, HttpServer)
    return found


def test_a_server_without_a_credential_signs_in_when_asked_unless_turned_off() -> None:
    assert _entry().uses_oauth
    assert _entry(oauth=True).uses_oauth
    assert not _entry(oauth=False).uses_oauth
    assert not _entry(credentialRef="secret:tok").uses_oauth  # a stored key is sent instead


def test_a_pre_registered_client_names_its_secret_by_reference() -> None:
    oauth = _entry(oauth={"clientId": "relavium", "clientSecret": "secret:tracker-client", "scopes": ["read"]}).oauth
    assert oauth is not False and oauth is not True and oauth is not None
    assert (oauth.client_id, oauth.client_secret, oauth.scopes) == ("relavium", "secret:tracker-client", ("read",))


@pytest.mark.parametrize(("oauth", "words"), [
    ({"clientId": "a", "clientSecret": "s3cr3t-literal"}, "should match pattern"),
    ({"clientSecret": "secret:x"}, "need the clientId"),
    ({"clientId": "a", "grant": "client_credentials"}, "exactly one of clientSecret and clientKey"),
    ({"clientId": "a", "clientKey": "secret:k"}, "clientKey is for grant: client_credentials"),
    ({"clientId": "a", "colour": "blue"}, "Extra inputs are not permitted"),
])
def test_a_wrong_oauth_block_fails_loudly_without_echoing_values(oauth: dict[str, Any], words: str) -> None:
    with pytest.raises(McpConfigError, match=words) as raised:
        _entry(oauth=oauth)
    assert "s3cr3t-literal" not in str(raised.value)


def test_credential_ref_and_an_oauth_block_together_are_refused() -> None:
    with pytest.raises(McpConfigError, match="either with credentialRef or with oauth"):
        _entry(credentialRef="secret:tok", oauth={"clientId": "a"})
