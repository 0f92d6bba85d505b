"""OAuth sign-in refusals that say why: SSRF in metadata, a plain-http token endpoint, a forged redirect.

Real parts: a local HTTPS server (trustme CA) plays the protected MCP endpoint
and its authorization server; the real McpHost runs the real sign-in through
the server's own SSRF-guarded client; the loopback listener is real and the
"browser" is an HTTP GET to it; the keyring is gnome-keyring on a private bus.
"""

from __future__ import annotations

import asyncio
import threading
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

from relavium_desktop.host.mcp import McpHost
from relavium_desktop.host.mcp.hooks import McpClientHooks
from relavium_desktop.host.secrets import SecretStore
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401
from tests.fixtures.oauth_https import OAuthHttps, oauth_https_fixture  # noqa: F401

PRM = "/.well-known/oauth-protected-resource/mcp"


def _write_config(home: Path, server: OAuthHttps) -> None:
    (home / "mcp.yaml").write_text(
        f"servers:\n  tracker:\n    transport: http\n    url: {server.url('/mcp')}\n    connectTimeoutMs: 20000\n"
    )


def _protect(server: OAuthHttps, metadata_url: str) -> None:
    server.routes["/mcp"] = (401, {"error": "invalid_token"},
                             {"WWW-Authenticate": f'Bearer resource_metadata="{metadata_url}"'})


def _authorization_server(server: OAuthHttps, token_endpoint: str) -> None:
    server.routes[PRM] = (200, {"resource": server.url("/mcp"), "authorization_servers": [server.url("")]}, {})
    server.routes["/.well-known/oauth-authorization-server"] = (200, {
        "issuer": server.url(""),
        "authorization_endpoint": server.url("/authorize"),
        "token_endpoint": token_endpoint,
        "registration_endpoint": server.url("/register"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
    }, {})
    server.routes["/register"] = (201, {"client_id": "client-1", "redirect_uris": ["http://127.0.0.1/callback"],
                                        "token_endpoint_auth_method": "none"}, {})


class _Browser:
    """Answers the sign-in page the way an authorization server's redirect would, with a chosen state."""

    def __init__(self, forge_state: bool = False) -> None:
        self.forge_state = forge_state
        self.opened: list[str] = []
        self.page_status: list[int] = []

    def __call__(self, url: str) -> None:
        self.opened.append(url)
        query = parse_qs(urlsplit(url).query)
        state = "forged-by-another-page" if self.forge_state else query["state"][0]
        back = f"{query['redirect_uri'][0]}?{urlencode({'code': 'code-1', 'state': state})}"

        def visit() -> None:
            try:
                with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(back, timeout=10) as r:
                    self.page_status.append(r.status)
            except urllib.error.HTTPError as exc:
                self.page_status.append(exc.code)

        threading.Thread(target=visit, daemon=True).start()


def _host(home: Path, server: OAuthHttps, browser: _Browser) -> McpHost:
    return McpHost(home=home, default_cwd=home, search_path=(), secrets=SecretStore(),
                   hooks=McpClientHooks(open_browser=browser, sign_in_timeout_s=20),
                   http_options=server.http_options())


async def test_metadata_pointing_at_a_private_address_is_refused_with_the_reason(
    desktop_bus_env: dict[str, str], relavium_home: Path, oauth_https: OAuthHttps,
) -> None:
    oauth_https.names["meta.internal.test"] = ["10.20.30.40"]
    _protect(oauth_https, f"https://meta.internal.test:{oauth_https.port}{PRM}")
    _write_config(relavium_home, oauth_https)
    browser = _Browser()
    host = _host(relavium_home, oauth_https, browser)
    try:
        (report,) = await host.discover(["tracker"], timeout_s=30)
    finally:
        await host.aclose()
    assert not report.ok
    assert "meta.internal.test" in str(report.error)
    assert "10.20.30.40" in str(report.error) or "private" in str(report.error).lower()
    assert "allowLocal" in str(report.error), report.error
    assert browser.opened == []  # no sign-in page was ever shown


async def test_a_token_endpoint_on_plain_http_is_refused(
    desktop_bus_env: dict[str, str], relavium_home: Path, oauth_https: OAuthHttps,
) -> None:
    _protect(oauth_https, oauth_https.url(PRM))
    _authorization_server(oauth_https, oauth_https.url("/token", scheme="http"))
    _write_config(relavium_home, oauth_https)
    browser = _Browser()
    host = _host(relavium_home, oauth_https, browser)
    try:
        (report,) = await host.discover(["tracker"], timeout_s=30)
    finally:
        await host.aclose()
    assert not report.ok
    assert len(browser.opened) == 1  # the sign-in got as far as the browser...
    assert "POST /token" not in oauth_https.seen  # ...but the code was never sent to plain http
    assert f"http://{'mcp.example.test'}/token" in str(report.error)
    assert "https://" in str(report.error) and "allowLocal" in str(report.error)


async def test_a_redirect_whose_state_does_not_match_is_refused(
    desktop_bus_env: dict[str, str], relavium_home: Path, oauth_https: OAuthHttps,
) -> None:
    _protect(oauth_https, oauth_https.url(PRM))
    _authorization_server(oauth_https, oauth_https.url("/token"))
    _write_config(relavium_home, oauth_https)
    browser = _Browser(forge_state=True)
    host = _host(relavium_home, oauth_https, browser)
    try:
        (report,) = await host.discover(["tracker"], timeout_s=30)
    finally:
        await host.aclose()
    assert not report.ok
    assert "state does not match" in str(report.error)
    for _ in range(100):  # the browser thread reads the page after the listener settled
        if browser.page_status:
            break
        await asyncio.sleep(0.05)
    assert browser.page_status == [400]  # the page said so too
    assert "POST /token" not in oauth_https.seen


async def test_a_sign_in_page_on_plain_http_is_never_opened(
    desktop_bus_env: dict[str, str], relavium_home: Path, oauth_https: OAuthHttps,
) -> None:
    _protect(oauth_https, oauth_https.url(PRM))
    _authorization_server(oauth_https, oauth_https.url("/token"))
    status, metadata, headers = oauth_https.routes["/.well-known/oauth-authorization-server"]
    oauth_https.routes["/.well-known/oauth-authorization-server"] = (
        status, {**metadata, "authorization_endpoint": oauth_https.url("/authorize", scheme="http")}, headers)
    _write_config(relavium_home, oauth_https)
    browser = _Browser()
    host = _host(relavium_home, oauth_https, browser)
    try:
        (report,) = await host.discover(["tracker"], timeout_s=30)
    finally:
        await host.aclose()
    assert not report.ok
    assert browser.opened == []
    assert "sign-in page" in str(report.error) and "is not https://" in str(report.error)
