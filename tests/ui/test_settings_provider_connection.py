"""Settings → Providers → Test connection, against the scripted local provider server.

Real parts: the scripted server (real HTTP on 127.0.0.1), the same provider
classes a chat turn uses, the SSRF-guarded egress client and the env key
resolver (``providers.yaml`` names the key as ``env:``; the keyring is
disabled here so opening the page never touches D-Bus).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.fixtures.llm_server import Reply, ScriptedLLMServer

KEY = "sk-test-CONNTEST0123456789abcdefghijkl"


@pytest.fixture
def page(make_window, relavium_home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setenv("RELAVIUM_TEST_KEY", KEY)
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {"openai": {
        "kind": "openai", "base_url": "https://api.openai.com/v1", "api_key": "env:RELAVIUM_TEST_KEY",
    }}}))
    return make_window().show_settings("providers").providers


def run_test(qtbot, page, url: str, *, allow_local: bool):
    row = page.rows["openai"]
    row.base_url.setText(url)
    row.allow_local.setChecked(allow_local)
    with qtbot.waitSignal(page.connection_tested, timeout=30_000) as blocker:
        row.test_button.click()
    assert blocker.args[0] == "openai"
    assert row.test_button.isEnabled()
    assert KEY not in row.test_status.text() and "CONNTEST" not in row.test_status.text()
    return blocker.args[1], row.test_status.text()


def test_success_sends_one_minimal_request_with_the_key(qtbot, page, llm_server: ScriptedLLMServer) -> None:
    llm_server.script(Reply.say("ok"))
    result, shown = run_test(qtbot, page, llm_server.base_url + "/v1", allow_local=True)
    assert result.outcome == "ok", shown
    assert shown.startswith("Connected: openai answered")
    assert page.rows["openai"].test_status.property("tone") == "success"  # shown in the success colour
    assert len(llm_server.requests) == 1
    sent = llm_server.requests[0]
    assert sent.headers.get("authorization") == f"Bearer {KEY}"
    assert sent.body["max_tokens"] == 1 and len(sent.body["messages"]) == 1
    # The fields were tested, not saved.
    assert page._settings.value("providers/openai/base_url") is None


def test_a_401_is_an_auth_error_that_says_what_to_fix(qtbot, page, llm_server: ScriptedLLMServer) -> None:
    llm_server.script(Reply.error(401))
    result, shown = run_test(qtbot, page, llm_server.base_url + "/v1", allow_local=True)
    assert result.outcome == "auth"
    assert "Authentication failed" in shown and "HTTP 401" in shown and "API key" in shown
    assert shown.endswith("Add or replace the API key below.")  # the page's own words; the CLI has its own
    assert page.rows["openai"].editor.isVisibleTo(page)  # the card's editor opened, with the key field


def test_a_missing_key_is_an_auth_error_naming_the_reference(
    qtbot, page, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RELAVIUM_TEST_KEY")
    result, shown = run_test(qtbot, page, llm_server.base_url + "/v1", allow_local=True)
    assert result.outcome == "auth" and "RELAVIUM_TEST_KEY" in shown
    assert llm_server.requests == []


def test_local_endpoint_without_the_opt_in_is_refused_before_connecting(
    qtbot, page, llm_server: ScriptedLLMServer
) -> None:
    port = llm_server.base_url.rsplit(":", 1)[1]
    # Plain http to the local server, then https to a name resolving to loopback (the SSRF client's
    # check at connect time), then an https loopback literal (the base-URL gate's check).
    for url in (llm_server.base_url + "/v1", f"https://localhost:{port}/v1", f"https://127.0.0.1:{port}/v1"):
        result, shown = run_test(qtbot, page, url, allow_local=False)
        assert result.outcome == "opt_in", (url, shown)
        assert "Allow a local endpoint" in shown
    assert llm_server.requests == []


def test_nothing_listening_is_unreachable(qtbot, page) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result, shown = run_test(qtbot, page, f"http://127.0.0.1:{port}/v1", allow_local=True)
    assert result.outcome == "unreachable"
    assert shown.startswith("Unreachable:") and "connection failed" in shown
    assert page.rows["openai"].test_status.property("tone") == "danger"
