"""A server that stops accepting the app's sign-in in the middle of a session says so on the next call.

Real parts: ``tests/fixtures/mcp_oauth_server.py`` (restarted on the same
address, so it forgets every token it issued and refuses the refresh too),
the real host and OAuth provider, gnome-keyring on a private bus, and the
scripted browser through ``$BROWSER`` for the sign-ins.

Without this the SDK's HTTP writer swallows the provider's refusal and the
call only says "Connection closed"; the surfaces need the reason to offer
"Sign in" in place.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from relavium_desktop.application.browser import open_in_browser
from relavium_desktop.application.mcp_auth import McpAuth
from relavium_desktop.application.secrets import SecretStore
from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.host.mcp import McpHost
from relavium_desktop.host.mcp.hooks import McpClientHooks
from relavium_desktop.host.mcp.sign_in_watch import SIGN_IN_REQUIRED
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401
from tests.fixtures.mcp_oauth_process import OAuthMcpProcess

pytestmark = pytest.mark.spawns

BROWSER = Path(__file__).resolve().parents[2] / "conformance" / "browser.py"


@pytest.fixture
def oauth_server(tmp_path: Path) -> Iterator[OAuthMcpProcess]:
    server = OAuthMcpProcess(tmp_path)
    server.start()
    yield server
    server.stop()


async def test_a_refused_sign_in_mid_session_is_reported_as_such_and_a_new_sign_in_carries_on(
    desktop_bus_env: dict[str, str], relavium_home: Path, oauth_server: OAuthMcpProcess,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BROWSER", f"{sys.executable} {BROWSER} %s")
    (relavium_home / "mcp.yaml").write_text(
        f"servers:\n  tracker:\n    transport: http\n    url: http://127.0.0.1:{oauth_server.port}/mcp\n"
        "    allowLocal: true\n"
    )
    auth = McpAuth(relavium_home, SecretStore())
    assert (await auth.login("tracker", open_in_browser)).signed_in
    # The chat's kind of host: nobody can be sent to a browser from inside a call.
    host = McpHost(home=relavium_home, default_cwd=relavium_home, search_path=(), secrets=SecretStore(),
                   hooks=McpClientHooks())
    try:
        first = await host.call("tracker", "echo", {"text": "one"})
        assert "echo: one" in str(first)

        oauth_server.restart()  # same address; the tokens (the refresh token too) are no longer accepted
        with pytest.raises(ToolFailedError) as refused:
            await host.call("tracker", "echo", {"text": "two"})
        assert refused.value.reason == SIGN_IN_REQUIRED
        assert "MCP server 'tracker' needs you to sign in" in refused.value.message
        assert "Connection closed" not in refused.value.message

        assert (await auth.login("tracker", open_in_browser)).signed_in
        again = await host.call("tracker", "echo", {"text": "three"})  # the same host: no restart of the chat
        assert "echo: three" in str(again)
    finally:
        await host.aclose()
