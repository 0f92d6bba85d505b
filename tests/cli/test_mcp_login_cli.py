"""Signing in to a remote MCP server end to end, through the real CLI, keyring and an OAuth-protected server.

Real parts: ``tests/fixtures/mcp_oauth_server.py`` (the SDK's MCP server
behind a 401 challenge, with its own authorization server: discovery, dynamic
registration, PKCE, refresh); the real ``relavium`` console script; a
scripted browser (``$BROWSER``) that follows the authorization redirect back
to the CLI's loopback listener; gnome-keyring on a private session bus.
Tokens live only 4 seconds here, so a refresh is needed within the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from relavium_desktop.host.secrets import SecretStore
from tests.conftest import relavium_cmd
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401
from tests.fixtures.llm_server import Reply, ScriptedLLMServer

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
BROWSER = Path(__file__).resolve().parents[1] / "conformance" / "browser.py"
TTL_S = 4


@dataclass
class OAuthServer:
    port: int
    issued: Path
    proc: subprocess.Popen[bytes]

    def tokens(self) -> list[str]:
        if not self.issued.exists():
            return []
        return [line.split(" ", 1)[1] for line in self.issued.read_text().splitlines() if " " in line]


@pytest.fixture
def oauth_server(tmp_path: Path) -> Iterator[OAuthServer]:
    port_file, issued = tmp_path / "port", tmp_path / "issued.txt"
    proc = subprocess.Popen([sys.executable, str(FIXTURES / "mcp_oauth_server.py"), str(port_file), str(issued)],
                            env={**os.environ, "MCP_OAUTH_TTL_S": str(TTL_S)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while not port_file.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the OAuth MCP fixture server did not start")
        time.sleep(0.05)
    yield OAuthServer(int(port_file.read_text()), issued, proc)
    proc.kill()
    proc.wait()


def _cli(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*relavium_cmd(), *argv], env=env, capture_output=True, text=True, timeout=120,
                          check=False, stdin=subprocess.DEVNULL)


def test_sign_in_use_refresh_and_sign_out_with_no_token_left_anywhere(
    desktop_bus_env: dict[str, str], cli_env: dict[str, str], relavium_home: Path, oauth_server: OAuthServer,
    tmp_path: Path,
) -> None:
    browser_log = tmp_path / "browser.log"
    env = {**cli_env, **desktop_bus_env, "RELAVIUM_HOME": str(relavium_home),
           "BROWSER": f"{sys.executable} {BROWSER} %s", "SCRIPTED_BROWSER_LOG": str(browser_log)}
    (relavium_home / "mcp.yaml").write_text(
        f"servers:\n  tracker:\n    transport: http\n    url: http://127.0.0.1:{oauth_server.port}/mcp\n"
        "    allowLocal: true\n"
    )
    outputs: list[str] = []

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        done = _cli(*argv, env=env)
        outputs.extend([done.stdout, done.stderr])
        return done

    before = run("mcp", "status", "--json")
    assert before.returncode == 0, before.stderr
    (state,) = json.loads(before.stdout)["servers"]
    assert state["state"] == "needs_sign_in" and state["status"] == "Needs sign-in"

    # Without a sign-in, a tool call says how to sign in (and opens no browser: no terminal here).
    refused = run("tool", "call", "mcp_tracker_echo", "--args", '{"text": "hi"}', "--json")
    assert refused.returncode == 1
    assert "relavium mcp login tracker" in json.loads(refused.stdout)["error"]["message"]

    login = run("mcp", "login", "tracker")
    assert login.returncode == 0, login.stderr
    assert "Signed in to tracker as ada@example.test." in login.stdout
    assert browser_log.read_text().splitlines() == ["200"]  # the browser came back to our listener
    stored = SecretStore().get_item("relavium-mcp-oauth", "tracker")  # the real keyring
    assert stored is not None and any(t in stored for t in oauth_server.tokens())

    status = json.loads(run("mcp", "status", "--json").stdout)["servers"][0]
    assert status["state"] == "signed_in" and status["account"] == "ada@example.test"
    assert status["status"].startswith("Signed in as ada@example.test")

    called = run("tool", "call", "mcp_tracker_echo", "--args", '{"text": "hi"}', "--json")
    assert called.returncode == 0, called.stdout + called.stderr
    assert "echo: hi" in called.stdout

    issued_before = len(oauth_server.tokens())
    deadline = time.time() + TTL_S + 1
    while time.time() < deadline:  # let the access token expire on the server's clock
        time.sleep(0.25)
    again = run("tool", "call", "mcp_tracker_echo", "--args", '{"text": "again"}', "--json")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "echo: again" in again.stdout
    assert len(oauth_server.tokens()) > issued_before  # refreshed...
    assert browser_log.read_text().splitlines() == ["200"]  # ...without a second sign-in

    # A token whose lifetime the client does not know is refreshed when the server answers 401.
    record = json.loads(SecretStore().get_item("relavium-mcp-oauth", "tracker") or "{}")
    record["expires_at"] = None
    SecretStore().set_item("relavium-mcp-oauth", "tracker", json.dumps(record))
    issued_before = len(oauth_server.tokens())
    deadline = time.time() + TTL_S + 1
    while time.time() < deadline:
        time.sleep(0.25)
    on_401 = run("tool", "call", "mcp_tracker_echo", "--args", '{"text": "after 401"}', "--json")
    assert on_401.returncode == 0, on_401.stdout + on_401.stderr
    assert "echo: after 401" in on_401.stdout
    assert len(oauth_server.tokens()) > issued_before
    assert browser_log.read_text().splitlines() == ["200"]

    logout = run("mcp", "logout", "tracker")
    assert logout.returncode == 0 and "Signed out of tracker." in logout.stdout
    assert SecretStore().get_item("relavium-mcp-oauth", "tracker") is None
    after = json.loads(run("mcp", "status", "--json").stdout)["servers"][0]
    assert after["state"] == "needs_sign_in"
    gone = run("tool", "call", "mcp_tracker_echo", "--args", '{"text": "hi"}', "--json")
    assert gone.returncode == 1

    tokens = oauth_server.tokens()
    assert len(tokens) >= 4
    leaked = [str(p) for p in relavium_home.rglob("*") if p.is_file()
              for t in tokens if t.encode() in p.read_bytes()]
    assert leaked == []  # every file: history.db, logs, settings, runs
    assert not [t for t in tokens for text in outputs if t in text]


def test_a_chat_turn_calls_a_tool_with_the_signed_in_token(
    desktop_bus_env: dict[str, str], env: dict[str, str], llm_server: ScriptedLLMServer, relavium_home: Path,
    oauth_server: OAuthServer, tmp_path: Path,
) -> None:
    """After ``relavium mcp login``, ``relavium chat`` (no terminal: nobody to sign in) uses the stored token."""
    run_env = {**env, **desktop_bus_env, "RELAVIUM_HOME": str(relavium_home),
               "BROWSER": f"{sys.executable} {BROWSER} %s"}
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {"anthropic": {
        "kind": "anthropic", "base_url": llm_server.base_url, "api_key": "env:RELAVIUM_TEST_KEY",
        "allow_local": True}}}))
    (relavium_home / "mcp.yaml").write_text(
        f"servers:\n  tracker:\n    transport: http\n    url: http://127.0.0.1:{oauth_server.port}/mcp\n"
        "    allowLocal: true\n"
    )
    login = _cli("mcp", "login", "tracker", env=run_env)
    assert login.returncode == 0, login.stderr
    llm_server.script(Reply.call("mcp_tracker_echo", {"text": "from chat"}), Reply.say("Done."))
    chat = subprocess.run([*relavium_cmd(), "chat", "--mode", "auto", "--workspace", str(tmp_path)],
                          input="echo something\n/exit\n", env=run_env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False)
    assert chat.returncode == 0, chat.stderr
    assert "Done." in chat.stdout
    assert "echo: from chat" in json.dumps(llm_server.requests[1].body["messages"])  # the tool really ran
    tokens = oauth_server.tokens()
    assert tokens
    assert not [str(p) for p in relavium_home.rglob("*") if p.is_file() for t in tokens if t.encode() in p.read_bytes()]
    assert not [t for t in tokens if t in chat.stdout + chat.stderr + login.stdout + login.stderr]
    assert not [t for t in tokens if t in json.dumps([r.body for r in llm_server.requests])]  # nor to the model


def test_login_to_a_server_that_needs_none_says_so_and_stores_nothing(
    desktop_bus_env: dict[str, str], cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    from tests.host.mcp.conftest import start_http_server

    server = start_http_server(tmp_path)
    try:
        (relavium_home / "mcp.yaml").write_text(
            f"servers:\n  open:\n    transport: http\n    url: {server.url()}\n    allowLocal: true\n")
        env = {**cli_env, **desktop_bus_env, "RELAVIUM_HOME": str(relavium_home), "BROWSER": "/bin/false %s"}
        done = _cli("mcp", "login", "open", "--json", env=env)
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        assert (out["ok"], out["server"], out["signedIn"]) == (True, "open", False)
        assert out["message"] == "open did not ask for a sign-in; it works without one."
        assert SecretStore().get_item("relavium-mcp-oauth", "open") is None
    finally:
        server.proc.kill()
        server.proc.wait()
