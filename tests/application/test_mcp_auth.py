"""McpAuth.status/logout and the words they show: what the CLI prints and the app's Settings will show.

The keyring is real (gnome-keyring on a private bus); tokens are put there
through the same store a sign-in uses.
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path

import pytest
from mcp.shared.auth import OAuthToken

from relavium_desktop.application.mcp_auth import McpAuth, McpAuthError, local_when
from relavium_desktop.host.mcp.oauth.store import OAuthTokenStore
from relavium_desktop.host.secrets import SecretStore
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401

pytestmark = pytest.mark.spawns  # the keyring daemon

URL = "https://tracker.example/mcp"


def _config(home: Path) -> None:
    (home / "mcp.yaml").write_text(
        "servers:\n"
        "  files:\n    transport: stdio\n    command: /bin/true\n"
        "  keyed:\n    transport: http\n    url: https://keyed.example/mcp\n    credentialRef: secret:keyed-token\n"
        "  off:\n    transport: http\n    url: https://off.example/mcp\n    oauth: false\n"
        f"  tracker:\n    transport: http\n    url: {URL}\n"
    )


def test_status_says_each_servers_sign_in_in_words(desktop_bus_env: dict[str, str], relavium_home: Path) -> None:
    _config(relavium_home)
    auth = McpAuth(relavium_home, SecretStore())
    words = {s.server: (s.state, s.words) for s in auth.status()}
    assert words == {
        "files": ("no_sign_in", "No sign-in (a program on this computer)"),
        "keyed": ("credential", "Uses the stored key secret:keyed-token"),
        "off": ("no_sign_in", "No sign-in (turned off in mcp.yaml)"),
        "tracker": ("needs_sign_in", "Needs sign-in"),
    }

    store = OAuthTokenStore(SecretStore(), "tracker", URL)
    store.save_tokens(OAuthToken(access_token="at-secret-value-123456", refresh_token="rt-secret-value-123456",
                                 expires_in=3600))
    store.save_account("ada@example.test")
    (tracker,) = [s for s in auth.status() if s.server == "tracker"]
    assert tracker.state == "signed_in" and tracker.account == "ada@example.test"
    assert tracker.words.startswith("Signed in as ada@example.test, until ")
    assert tracker.expires_words is not None and tracker.words.endswith(tracker.expires_words)
    dumped = json.dumps([s.to_json() for s in auth.status()])
    assert "secret-value" not in dumped  # no token in what surfaces show

    assert auth.logout("tracker") is True
    assert auth.logout("tracker") is False
    assert [s.words for s in auth.status() if s.server == "tracker"] == ["Needs sign-in"]


def test_an_expired_token_without_refresh_asks_to_sign_in_again(
    desktop_bus_env: dict[str, str], relavium_home: Path,
) -> None:
    _config(relavium_home)
    OAuthTokenStore(SecretStore(), "tracker", URL).save_tokens(OAuthToken(access_token="a" * 20, expires_in=1))
    (tracker,) = [s for s in McpAuth(relavium_home, SecretStore()).status(now=time.time() + 60) if s.server == "tracker"]
    assert tracker.state == "expired" and tracker.words.endswith("sign in again")


def test_a_sign_in_moved_to_another_url_is_not_used(desktop_bus_env: dict[str, str], relavium_home: Path) -> None:
    OAuthTokenStore(SecretStore(), "tracker", "https://old.example/mcp").save_tokens(OAuthToken(access_token="b" * 20))
    assert OAuthTokenStore(SecretStore(), "tracker", URL).load() is None


async def test_servers_without_a_sign_in_are_refused_in_words(
    desktop_bus_env: dict[str, str], relavium_home: Path,
) -> None:
    _config(relavium_home)
    auth = McpAuth(relavium_home, SecretStore())
    for name, words in (("files", "program on this computer"), ("keyed", "uses the stored key"),
                        ("off", "sign-in turned off"), ("nope", "configured: files, keyed, off, tracker")):
        with pytest.raises(McpAuthError, match=words):
            await auth.login(name, lambda url: None)


def test_times_are_local_and_human() -> None:
    now = datetime(2026, 12, 2, 12, 0).timestamp()
    at = datetime(2026, 12, 2, 14, 2).timestamp()
    assert local_when(at, now) == "Today 14:02"
    assert local_when(at + 86400, now) == "Tomorrow 14:02"
    assert local_when(at - 86400, now) == "Yesterday 14:02"
    assert local_when(datetime(2026, 12, 9, 9, 5).timestamp(), now) == "9 Dec 09:05"
    assert local_when(datetime(2027, 1, 3, 9, 5).timestamp(), now) == "3 Jan 2027"
