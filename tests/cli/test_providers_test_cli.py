"""``relavium providers test`` against a server that serves its own models and fails in its own words.

In-process ``cli.main`` (the same code path as the console script) against
the scripted LLM server; keys are ``env:`` references, the keyring is the
"fail" backend.  What a person reads: the model tried (one the server
lists), the server's own reason, "Unreachable" only for a server that was
not reached, and CLI advice (never the app's "the API key above").
"""

from __future__ import annotations

import socket
from typing import Any

import pytest

from tests.cli.llm_cli import KEY
from tests.cli.test_providers_cli import add_local, main
from tests.fixtures.llm_server import Reply, ScriptedLLMServer


@pytest.fixture(autouse=True)
def _no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setenv("RELAVIUM_TEST_KEY", KEY)


def _test(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = main(capsys, "providers", "test", "box", "--json")
    assert code == (0 if out["ok"] else 1), err
    return out  # type: ignore[no-any-return]


def test_a_fresh_home_tests_the_first_chat_model_the_server_lists(
    capsys: pytest.CaptureFixture[str], llm_server: ScriptedLLMServer
) -> None:
    add_local(capsys, "box", llm_server.base_url)
    llm_server.models = ["text-embedding-3-small", "whisper-1", "house-model", "other-model"]
    llm_server.script(Reply.say("ok"))
    out = _test(capsys)
    assert out["ok"] and out["model"] == "house-model"
    assert out["message"] == "Connected: box answered a test request with model house-model."
    assert llm_server.requests[-1].body["model"] == "house-model"
    assert len(llm_server.list_requests) == 1  # the live list, asked once


def test_a_refused_key_gives_cli_advice_and_the_servers_reason(
    capsys: pytest.CaptureFixture[str], llm_server: ScriptedLLMServer
) -> None:
    add_local(capsys, "box", llm_server.base_url)
    llm_server.script(Reply.error(401, message="Authentication Error, Invalid proxy server token passed."))
    out = _test(capsys)
    assert out["outcome"] == "auth" and out["model"] == "scripted-large"
    assert "Invalid proxy server token passed" in out["message"]
    assert "RELAVIUM_TEST_KEY" in out["message"] and "above" not in out["message"]
    assert "(model scripted-large: the first chat model the server lists)" in out["message"]
    assert KEY not in out["message"]


def test_a_400_that_is_an_auth_failure_is_auth(
    capsys: pytest.CaptureFixture[str], llm_server: ScriptedLLMServer
) -> None:
    add_local(capsys, "box", llm_server.base_url)
    llm_server.script(Reply.error(400, message="Incorrect API key provided."))
    assert _test(capsys)["outcome"] == "auth"


def test_a_failing_server_is_reached_not_unreachable(
    capsys: pytest.CaptureFixture[str], llm_server: ScriptedLLMServer
) -> None:
    add_local(capsys, "box", llm_server.base_url)
    llm_server.script(Reply.error(500, message="upstream model crashed"))
    out = _test(capsys)
    assert out["outcome"] == "server_error"
    assert out["message"].startswith("Reached, but the request did not complete: box: HTTP 500: the server failed")
    assert "upstream model crashed" in out["message"] and "Unreachable" not in out["message"]

    llm_server.script(Reply.disconnect("Half of an"))
    out = _test(capsys)
    assert out["outcome"] == "server_error" and "the answer was cut off" in out["message"]


def test_only_a_server_not_reached_is_unreachable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    add_local(capsys, "box", f"http://127.0.0.1:{port}")
    out = _test(capsys)
    assert out["outcome"] == "unreachable" and out["message"].startswith("Unreachable:")
    assert "(model gpt-4o-mini: the kind's default: the server's model list could not be read)" in out["message"]


def test_a_key_missing_from_the_keyring_names_the_secret_command(
    capsys: pytest.CaptureFixture[str], llm_server: ScriptedLLMServer
) -> None:
    add_local(capsys, "box", llm_server.base_url, "--api-key", "secret:BOX_KEY", "--replace")
    out = _test(capsys)
    assert out["outcome"] == "auth" and out["nextStep"] == "set_key"
    assert out["message"].endswith("Store the key with 'relavium secret set BOX_KEY' and test again.")
    assert "above" not in out["message"]
    assert llm_server.requests == []  # no key, no request


def test_a_keyless_entry_is_told_the_commands_that_give_it_one(
    capsys: pytest.CaptureFixture[str], llm_server: ScriptedLLMServer
) -> None:
    code, _, err = main(capsys, "providers", "add", "my-box", "--kind", "openai", "--base-url",
                        llm_server.base_url + "/v1", "--allow-local", "--json")
    assert code == 0, err
    llm_server.script(Reply.error(401))
    code, out, err = main(capsys, "providers", "test", "my-box", "--model", "m")
    assert code == 1
    assert out.strip().endswith(
        f"Give it a key: 'relavium providers add my-box --kind openai --base-url {llm_server.base_url}/v1 "
        "--api-key secret:MY_BOX_API_KEY --allow-local --replace', then 'relavium secret set MY_BOX_API_KEY'.")
    assert "above" not in out and "my-box did not pass" in err


def test_a_local_address_without_the_opt_in_gives_the_allow_local_command(
    capsys: pytest.CaptureFixture[str], llm_server: ScriptedLLMServer
) -> None:
    """An https name that resolves to loopback is accepted by add, then refused by the guarded client."""
    port = llm_server.base_url.rsplit(":", 1)[1]
    url = f"https://localhost:{port}/v1"
    code, _, err = main(capsys, "providers", "add", "box", "--kind", "openai", "--base-url", url,
                        "--api-key", "env:RELAVIUM_TEST_KEY", "--json")
    assert code == 0, err
    code, out, _ = main(capsys, "providers", "test", "box", "--model", "m", "--json")
    assert code == 1 and out["outcome"] == "opt_in" and out["nextStep"] == "allow_local"
    assert out["message"].endswith(
        f"To allow it: 'relavium providers add box --kind openai --base-url {url} --api-key env:RELAVIUM_TEST_KEY "
        "--allow-local --replace'.")
    for window_words in ("Tick", "Allow a local endpoint", "above", "click", "button"):
        assert window_words not in out["message"]
    assert llm_server.requests == []
