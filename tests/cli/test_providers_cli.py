"""``relavium providers`` against the scripted LLM server: the store, the test request, the model list.

The round trip runs the real console script (a subprocess, the way a user
runs it) and then ``relavium agent run`` on the provider it added, through
the same file.  The rest call ``cli.main`` in-process on the same code path,
for speed.  The keyring is the "fail" backend, so ``secret:`` references are
"unavailable" and nothing touches D-Bus; keys are ``env:`` references.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop import cli
from tests.cli.llm_cli import KEY, scan_for_secret
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli

RAW_KEY = "sk-proj-RAWCLIKEY0123456789abcdefghijkl"


@pytest.fixture(autouse=True)
def _no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setenv("RELAVIUM_TEST_KEY", KEY)


def main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    """``relavium ARGV`` in-process: (exit code, parsed JSON stdout or text, stderr)."""
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if "--json" in argv and out.strip() else out), err


def add_local(capsys: pytest.CaptureFixture[str], name: str, url: str, *extra: str) -> dict[str, Any]:
    code, out, err = main(capsys, "providers", "add", name, "--kind", "openai", "--base-url", url + "/v1",
                          "--api-key", "env:RELAVIUM_TEST_KEY", "--allow-local", *extra, "--json")
    assert code == 0, err
    return out  # type: ignore[no-any-return]


def test_add_list_test_models_then_an_agent_run_uses_it_then_remove(
    cli_env: dict[str, str], relavium_home: Path, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    env = {**cli_env, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", "RELAVIUM_TEST_KEY": KEY}
    code, out, err = run_cli("providers", "add", "box", "--kind", "openai", "--base-url",
                             llm_server.base_url + "/v1", "--api-key", "env:RELAVIUM_TEST_KEY", "--allow-local",
                             "--timeout", "30", "--json", env=env)
    assert code == 0, err
    assert out == {"ok": True, "name": "box", "entry": {
        "kind": "openai", "baseUrl": llm_server.base_url + "/v1", "apiKey": "env:RELAVIUM_TEST_KEY",
        "allowLocal": True, "timeoutS": 30.0}}

    code, listed, err = run_cli("providers", "list", "--json", env=env)
    assert code == 0, err
    by_name = {p["name"]: p for p in listed}
    assert list(by_name) == ["anthropic", "openai", "gemini", "box"]  # the first edit seeded the defaults
    assert by_name["box"]["key"] == "present" and by_name["box"]["apiKey"] == "env:RELAVIUM_TEST_KEY"
    assert by_name["anthropic"]["key"] == "unavailable"

    llm_server.script(Reply.say("ok"))
    code, tested, err = run_cli("providers", "test", "box", "--json", env=env)
    assert code == 0, err
    # A fresh home: the test asks for a model the server lists (it serves no gpt-4o-mini).
    assert tested["ok"] is True and tested["outcome"] == "ok" and tested["model"] == "scripted-large"
    assert "with model scripted-large" in tested["message"]
    sent = llm_server.requests[-1]
    assert sent.headers["authorization"] == f"Bearer {KEY}" and sent.body["max_tokens"] == 1

    llm_server.models = ["llama3.2", "qwen2.5"]
    # The test above listed (and cached) the server's models; --refresh asks again for the new list.
    code, models, err = run_cli("providers", "models", "box", "--refresh", "--json", env=env)
    assert code == 0, err
    assert models["source"] == "live" and models["note"] is None and models["provider"] == "box"
    assert [m["id"] for m in models["models"]] == ["llama3.2", "qwen2.5"]

    agent = tmp_path / "a.agent.yaml"
    agent.write_text("id: a\nname: A\nprovider: box\nmodel: llama3.2\nsystem_prompt: Be brief.\ntools: []\n")
    llm_server.script(Reply.say("Hello from the box."))
    code, events, err = run_cli("agent", "run", str(agent), "--prompt", "hi", "--json", env=env)
    assert code == 0, err
    assert events[-1]["type"] == "run:completed" and events[-1]["output"] == "Hello from the box."
    assert llm_server.requests[-1].body["model"] == "llama3.2"

    code, removed, err = run_cli("providers", "remove", "box", "--json", env=env)
    assert code == 0 and removed == {"ok": True, "name": "box", "removed": True}, err
    code, listed, _ = run_cli("providers", "list", "--json", env=env)
    assert [p["name"] for p in listed] == ["anthropic", "openai", "gemini"]
    code, events, _ = run_cli("agent", "run", str(agent), "--prompt", "hi", "--json", env=env)
    assert code == 1 and "box" in json.dumps(events[-1])
    assert scan_for_secret(relavium_home, json.dumps(listed), json.dumps(events)) == []


def test_comments_in_the_file_survive_cli_add_and_remove(
    capsys: pytest.CaptureFixture[str], relavium_home: Path, llm_server: ScriptedLLMServer
) -> None:
    path = relavium_home / "providers.yaml"
    path.write_text("# mine, by hand\nproviders:\n  # cloud\n  openai:\n    kind: openai\n"
                    "    base_url: https://api.openai.com/v1   # the real one\n    api_key: secret:OPENAI_API_KEY\n")
    add_local(capsys, "box", llm_server.base_url)
    code, _, err = main(capsys, "providers", "remove", "openai", "--json")
    assert code == 0, err
    add_local(capsys, "openai", llm_server.base_url, "--replace")
    text = path.read_text()
    assert "# mine, by hand" in text and "# cloud" in text
    code, listed, _ = main(capsys, "providers", "list", "--json")
    assert [p["name"] for p in listed] == ["box", "openai"]


def test_a_raw_key_is_refused_and_never_repeated(capsys: pytest.CaptureFixture[str], relavium_home: Path) -> None:
    code, out, err = main(capsys, "providers", "add", "p", "--kind", "openai", "--api-key", RAW_KEY, "--json")
    assert code == 1
    assert out["ok"] is False and out["error"]["code"] == "provider_config"
    assert "never the key itself" in out["error"]["message"]
    assert RAW_KEY not in json.dumps(out) + err and "RAWCLIKEY" not in err
    assert not (relavium_home / "providers.yaml").exists()
    # Pasted into the file by hand: every action refuses the file, again without the value.
    (relavium_home / "providers.yaml").write_text(json.dumps({"p": {"kind": "openai", "base_url": "https://x/v1",
                                                                   "api_key": RAW_KEY}}))
    for action in (("list",), ("models", "p"), ("test", "p")):
        code, out, err = main(capsys, "providers", *action, "--json")
        assert code == 1 and out["error"]["code"] == "provider_config", action
        assert "'p'" in out["error"]["message"] and "api_key" in out["error"]["message"]
        assert RAW_KEY not in json.dumps(out) + err
        assert err.count("\n") == 1


def test_unknown_providers_bad_names_and_usage(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = main(capsys, "providers", "test", "nope", "--json")
    assert code == 1 and out["error"]["code"] == "unknown_provider" and out["error"]["name"] == "nope"
    assert "anthropic" in out["error"]["message"]
    code, out, _ = main(capsys, "providers", "remove", "nope", "--json")
    assert code == 1 and out["error"]["code"] == "unknown_provider"
    code, out, _ = main(capsys, "providers", "add", "a/b", "--kind", "openai", "--json")
    assert code == 1 and "invalid provider name" in out["error"]["message"]
    code, out, _ = main(capsys, "providers", "add", "openai", "--kind", "openai", "--json")
    assert code == 1 and "already exists" in out["error"]["message"]
    code, out, _ = main(capsys, "providers", "add", "p", "--kind", "openai", "--base-url", "http://10.0.0.5/v1",
                        "--json")
    assert code == 1 and "allow_local" in out["error"]["message"]
    for argv in (("add", "p"), ("remove",), ("list", "x"), ("list", "--model", "m"), ("models", "p", "--kind",
                 "openai"), ("add", "p", "--kind", "openai", "--timeout", "0")):
        code, out, err = main(capsys, "providers", *argv)
        assert code == 2 and err.startswith("relavium: usage error:"), argv


def test_a_failing_test_exits_1_with_the_reason(
    capsys: pytest.CaptureFixture[str], llm_server: ScriptedLLMServer
) -> None:
    add_local(capsys, "box", llm_server.base_url)
    llm_server.script(Reply.error(401))
    code, out, _ = main(capsys, "providers", "test", "box", "--model", "llama3.2", "--json")
    assert code == 1
    assert out["ok"] is False and out["outcome"] == "auth" and out["model"] == "llama3.2"
    assert llm_server.requests[-1].body["model"] == "llama3.2"
    code, _, err = main(capsys, "providers", "test", "box")
    assert code == 1 and "did not pass" in err


def test_models_offline_fall_back_with_a_note_then_cache_and_refresh(
    capsys: pytest.CaptureFixture[str], llm_server: ScriptedLLMServer
) -> None:
    dead = ScriptedLLMServer().start()
    dead_url = dead.base_url
    dead.stop()
    add_local(capsys, "gone", dead_url)
    code, text, err = main(capsys, "providers", "models", "gone")
    assert code == 0
    assert text.split() == ["gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-4.1"]
    assert err.startswith("Offline: showing the known models") and "unreachable" in err

    add_local(capsys, "box", llm_server.base_url)
    code, first, _ = main(capsys, "providers", "models", "box", "--json")
    assert first["source"] == "live" and len(llm_server.list_requests) == 1
    llm_server.models = ["newer"]
    code, cached, _ = main(capsys, "providers", "models", "box", "--json")
    assert cached["source"] == "cache" and cached["fetchedAt"] == first["fetchedAt"]
    assert len(llm_server.list_requests) == 1  # no network for a fresh cache
    code, fresh, _ = main(capsys, "providers", "models", "box", "--refresh", "--json")
    assert fresh["source"] == "live" and [m["id"] for m in fresh["models"]] == ["newer"]
    assert len(llm_server.list_requests) == 2
    llm_server.models_status = 401
    code, rejected, _ = main(capsys, "providers", "models", "box", "--refresh", "--json")
    assert code == 0 and rejected["source"] == "cache" and "key was rejected" in rejected["note"]


def test_another_file_with_providers_option(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                            relavium_home: Path) -> None:
    other = tmp_path / "team-providers.yaml"
    code, _, err = main(capsys, "providers", "add", "team", "--kind", "gemini", "--api-key", "env:TEAM_KEY",
                        "--providers", str(other), "--json")
    assert code == 0, err
    code, listed, _ = main(capsys, "providers", "list", "--providers", str(other), "--json")
    team = next(p for p in listed if p["name"] == "team")
    assert team["baseUrl"] == "https://generativelanguage.googleapis.com" and team["key"] == "missing"
    assert not (relavium_home / "providers.yaml").exists()
    code, text, _ = main(capsys, "providers", "list", "--providers", str(other))
    assert code == 0 and text.splitlines()[0].split() == ["NAME", "KIND", "BASE", "URL", "KEY", "KEY", "STATE"]


def test_without_a_model_the_test_asks_for_one_the_server_listed(
    capsys: pytest.CaptureFixture[str], llm_server: ScriptedLLMServer
) -> None:
    add_local(capsys, "box", llm_server.base_url)
    llm_server.models = ["llama3.2", "qwen2.5"]
    code, _, _ = main(capsys, "providers", "models", "box", "--json")
    assert code == 0
    llm_server.script(Reply.say("ok"))
    code, out, err = main(capsys, "providers", "test", "box", "--json")
    assert code == 0 and out["model"] == "llama3.2", err
    assert llm_server.requests[-1].body["model"] == "llama3.2"
    # A listed cheap default of the kind is still preferred.
    llm_server.models = ["llama3.2", "gpt-4o-mini"]
    main(capsys, "providers", "models", "box", "--refresh", "--json")
    llm_server.script(Reply.say("ok"))
    code, out, _ = main(capsys, "providers", "test", "box", "--json")
    assert code == 0 and out["model"] == "gpt-4o-mini"


async def test_the_settings_page_test_of_a_provider_no_longer_in_the_file_is_a_config_result(
    relavium_home: Path,
) -> None:
    from relavium_desktop.providers.check import run_connection_test

    (relavium_home / "providers.yaml").write_text("providers: {}\n")
    result = await run_connection_test(relavium_home, "gone", "https://api.example.com/v1", False)
    assert result.outcome == "config" and "'gone'" in result.message
