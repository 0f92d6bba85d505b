"""The welcome flow's model and the window's old chat settings land in defaults.json, which the CLI reads.

Real parts: the window started on a fresh ``RELAVIUM_HOME``, its INI settings
file on disk, and the scripted local model server answering the model list.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relavium_desktop.application.defaults import Defaults
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.host.egress.local_servers import LocalServerKind
from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.welcome import STEP_MODEL
from tests.fixtures.llm_server import Reply, ScriptedLLMServer


@pytest.fixture(autouse=True)
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


def defaults_of(home: Path) -> dict[str, str]:
    return json.loads((home / "defaults.json").read_text())  # type: ignore[no-any-return]


def old_settings(home: Path, **values: str) -> None:
    """The window's INI file in ``home`` as an earlier version left it."""
    settings = keys.ui_settings(home)
    for key, value in values.items():
        settings.setValue(key.replace("__", "/"), value)
    settings.sync()


def test_the_welcome_flows_model_is_the_default_model_in_defaults_json(
    make_window, qtbot, relavium_home: Path, llm_server: ScriptedLLMServer
) -> None:
    # An agent chosen earlier (by the CLI or the chat's picker) is kept: the flow chooses only the model.
    (relavium_home / "defaults.json").write_text(json.dumps({"agent": "reviewer"}))
    llm_server.models = ["llama3.2:3b", "qwen2.5-coder:7b"]
    port = int(llm_server.base_url.rsplit(":", 1)[1])
    window = make_window(welcome=True, local_servers=[LocalServerKind("Ollama", "ollama", port)])
    welcome = window.welcome_view
    welcome.look_button.click()
    qtbot.waitUntil(lambda: welcome.local_list.count() == 1, timeout=10_000)
    welcome.pick_local(0)
    assert welcome.steps.currentIndex() == STEP_MODEL
    qtbot.waitUntil(lambda: welcome.model_list.count() == 2, timeout=10_000)

    welcome.model_list.setCurrentRow(0)
    assert defaults_of(relavium_home) == {"model": "ollama/llama3.2:3b", "agent": "reviewer"}
    welcome.model_list.setCurrentRow(1)  # changing one's mind replaces it
    assert defaults_of(relavium_home) == {"model": "ollama/qwen2.5-coder:7b", "agent": "reviewer"}
    assert keys.ui_settings(relavium_home).value("chat/model") is None  # not a window-only setting any more

    # What `relavium chat` reads (application/defaults.py) is the window's pick.
    assert Defaults(AppPaths(relavium_home)).model() == "ollama/qwen2.5-coder:7b"

def test_an_old_window_setting_is_moved_to_defaults_json_once_at_start_up(
    make_window, relavium_home: Path
) -> None:
    old_settings(relavium_home, chat__model="anthropic/claude-sonnet-4", chat__agent="reviewer")
    window = make_window()
    assert defaults_of(relavium_home) == {"model": "anthropic/claude-sonnet-4", "agent": "reviewer"}
    assert window.context.settings.value("chat/model") is None
    assert window.context.settings.value("chat/agent") is None
    window.context.settings.sync()
    on_disk = (relavium_home / keys.FILE_NAME).read_text()
    assert "claude-sonnet-4" not in on_disk and "reviewer" not in on_disk

    # Once: a later choice (here by the CLI's side, in the file) is not undone by the next start.
    (relavium_home / "defaults.json").write_text(json.dumps({"model": "openai/gpt-4o-mini"}))
    make_window()
    assert defaults_of(relavium_home) == {"model": "openai/gpt-4o-mini"}


def test_a_default_already_in_defaults_json_wins_over_the_old_setting(make_window, relavium_home: Path) -> None:
    (relavium_home / "defaults.json").write_text(json.dumps({"model": "openai/gpt-4o-mini"}))
    old_settings(relavium_home, chat__model="anthropic/claude-sonnet-4", chat__agent="reviewer")
    window = make_window()
    assert defaults_of(relavium_home) == {"model": "openai/gpt-4o-mini", "agent": "reviewer"}
    assert window.context.settings.value("chat/model") is None


def test_an_unreadable_defaults_json_is_left_alone_and_the_old_setting_kept(
    make_window, relavium_home: Path
) -> None:
    (relavium_home / "defaults.json").write_text("{not json")
    old_settings(relavium_home, chat__model="anthropic/claude-sonnet-4")
    window = make_window()
    assert (relavium_home / "defaults.json").read_text() == "{not json"
    assert window.context.settings.value("chat/model") == "anthropic/claude-sonnet-4"


def test_settings_tests_a_provider_with_the_default_model_when_it_is_on_that_provider(
    make_window, qtbot, relavium_home: Path, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RELAVIUM_TEST_KEY", "sk-test-DEFAULTS0123456789abcdefghij")
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {"box": {
        "kind": "openai", "base_url": llm_server.base_url + "/v1", "api_key": "env:RELAVIUM_TEST_KEY",
        "allow_local": True}}}))
    (relavium_home / "defaults.json").write_text(json.dumps({"model": "box/house-default"}))
    llm_server.script(Reply.say("ok"))
    page = make_window().show_settings("providers").providers
    with qtbot.waitSignal(page.connection_tested, timeout=30_000) as blocker:
        page.rows["box"].test_button.click()
    assert blocker.args[1].ok and blocker.args[1].model == "house-default"
    assert llm_server.requests[-1].body["model"] == "house-default"


def test_an_mcp_servers_sampling_request_offers_the_default_model(
    make_window, qtbot, relavium_home: Path
) -> None:
    import asyncio

    from relavium_desktop.host.mcp.hooks import SamplingRequest
    from relavium_desktop.ui.mcp.hooks import app_mcp_hooks

    (relavium_home / "defaults.json").write_text(json.dumps({"model": "box/house-default"}))
    window = make_window()
    hooks = app_mcp_hooks(window.context)
    opened: list[object] = []
    window.context.mcp_hooks.dialog_opened.connect(opened.append)
    request = SamplingRequest(server="writer", messages=(("user", "Hi?"),), system_prompt=None, max_tokens=8)
    task = asyncio.ensure_future(hooks.sample(request))
    qtbot.waitUntil(lambda: bool(opened))
    assert opened[0].model_label.text() == "box/house-default"
    opened[0].refuse_button.click()
    qtbot.waitUntil(task.done)
    assert isinstance(task.exception(), PermissionError)
