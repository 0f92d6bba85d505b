"""Settings → Providers edits providers.yaml, the one file the CLI and workflows read.

Real parts: providers.yaml on disk (edited round-trip), the real ``relavium``
console script as a subprocess, the scripted LLM server.  The keyring is the
failing backend (no D-Bus here): local servers need no key, and the key-less
path is what these tests exercise.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.qt import QLabel
from relavium_desktop.ui.settings.provider_migration import KEY_MIGRATED
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli

HAND_WRITTEN = """\
# My providers -- kept by hand, please keep this comment.
providers:
  # the team's gateway
  gateway:
    kind: openai
    base_url: https://gateway.example.com/v1
    api_key: env:GATEWAY_KEY   # set in my shell profile
"""


@pytest.fixture(autouse=True)
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


def add_local(page, name: str, url: str) -> None:
    page.add_name.setText(name)
    page.add_kind.setCurrentIndex(page.add_kind.findData("openai"))
    page.add_url.setText(url)
    page.add_local.setChecked(True)
    page.add_button.click()


def test_a_provider_added_in_settings_is_what_the_cli_uses_and_comments_survive(
    make_window, qtbot, relavium_home: Path, llm_server: ScriptedLLMServer, cli_env: dict[str, str],
    tmp_path: Path,
) -> None:
    (relavium_home / "providers.yaml").write_text(HAND_WRITTEN)
    window = make_window()
    page = window.show_settings("providers").providers
    assert list(page.rows) == ["gateway"]  # the file is the whole truth: no hidden defaults
    add_local(page, "work", llm_server.base_url + "/v1")
    assert "Added work" in page.add_status.text(), page.add_status.text()
    assert list(page.rows) == ["gateway", "work"]
    text = (relavium_home / "providers.yaml").read_text()
    for kept in ("# My providers -- kept by hand", "# the team's gateway", "# set in my shell profile"):
        assert kept in text
    assert "api_key" not in text.split("work:", 1)[1] or "null" in text.split("work:", 1)[1]

    # The same file drives `relavium agent run` ...
    agent = tmp_path / "a.agent.yaml"
    agent.write_text("id: a\nprovider: work\nmodel: local-model\nsystem_prompt: Be brief.\ntools: []\n")
    llm_server.script(Reply.say("from the CLI"), Reply.say("from the workflow"))
    code, events, err = run_cli("agent", "run", str(agent), "--prompt", "hi", "--json", env=cli_env)
    assert code == 0, err
    assert events[-1]["output"] == "from the CLI"
    # ... and `relavium run`.
    flow = tmp_path / "flow.yaml"
    flow.write_text(
        "schema_version: '1.0'\nworkflow:\n  id: f\n  agents:\n"
        "    - {id: a, provider: work, model: local-model, system_prompt: Be brief., tools: []}\n"
        "  nodes:\n    - {id: start, type: input}\n    - {id: a, type: agent, agent_ref: a, prompt_template: hi}\n"
        "    - {id: out, type: output}\n  edges: [{from: start, to: a}, {from: a, to: out}]\n")
    code, events, err = run_cli("run", str(flow), "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 0, err
    assert events[-1]["type"] == "run:completed"
    chat = [r for r in llm_server.requests if r.dialect == "openai"]
    assert [r.body["model"] for r in chat] == ["local-model", "local-model"]


def test_an_endpoint_edit_and_a_removal_are_saved_to_the_file(make_window, relavium_home: Path) -> None:
    (relavium_home / "providers.yaml").write_text(HAND_WRITTEN)
    window = make_window()
    page = window.show_settings("providers").providers
    row = page.rows["gateway"]
    row.base_url.setText("http://127.0.0.1:8080/v1")
    row.save_endpoint.click()
    assert "allow_local" in page.rows["gateway"].endpoint_status.text()  # refused before saving
    assert "https://gateway.example.com/v1" in (relavium_home / "providers.yaml").read_text()
    row.allow_local.setChecked(True)
    row.save_endpoint.click()
    assert page.rows["gateway"].endpoint_status.text() == "Saved."
    text = (relavium_home / "providers.yaml").read_text()
    assert "http://127.0.0.1:8080/v1" in text and "# the team's gateway" in text
    assert window.context.settings.value("providers/gateway/base_url") is None  # never the ini
    page.rows["gateway"].remove_provider.click()
    assert page.rows == {}
    assert "gateway:" not in (relavium_home / "providers.yaml").read_text()
    assert page.findChild(QLabel, "providersEmpty") is not None


def test_an_edit_on_disk_is_picked_up_without_a_restart(make_window, qtbot, relavium_home: Path) -> None:
    (relavium_home / "providers.yaml").write_text(HAND_WRITTEN)
    window = make_window()
    page = window.show_settings("providers").providers
    with qtbot.waitSignal(window.context.providers_changed, timeout=10_000):
        (relavium_home / "providers.yaml").write_text(HAND_WRITTEN + """\
  ollama:
    kind: openai
    base_url: http://127.0.0.1:11434/v1
    api_key: null
    allow_local: true
""")
    assert list(page.rows) == ["gateway", "ollama"]


def test_a_broken_file_is_named_not_a_crash(make_window, relavium_home: Path) -> None:
    (relavium_home / "providers.yaml").write_text("providers:\n  x: {kind: nope, base_url: https://a}\n")
    page = make_window().show_settings("providers").providers
    assert page.file_error.isVisibleTo(page) and "providers.yaml" in page.file_error.text()
    assert page.rows == {}


def test_the_ini_endpoints_of_an_earlier_version_move_to_the_file_once(make_window, relavium_home: Path) -> None:
    settings = keys.ui_settings(relavium_home)
    settings.setValue("providers/openai/base_url", "http://127.0.0.1:1234/v1")
    settings.setValue("providers/openai/allow_local", "true")
    settings.sync()
    window = make_window()
    store = window.context.provider_store()
    entries = store.entries()
    assert (entries["openai"].base_url, entries["openai"].allow_local) == ("http://127.0.0.1:1234/v1", True)
    assert set(entries) == {"anthropic", "openai", "gemini"}  # seeded with the defaults, then changed
    assert window.context.settings.value("providers/openai/base_url") is None
    assert window.context.settings.value(KEY_MIGRATED) in (True, "true")
    window.close()
    # Once: a later change in the file is not overwritten by anything left behind.
    store.update("openai", base_url="https://api.openai.com/v1", allow_local=False)
    again = make_window()
    assert again.context.provider_store().entries()["openai"].base_url == "https://api.openai.com/v1"
    assert json.dumps(again.context.settings.allKeys()).count("providers/openai") == 0
