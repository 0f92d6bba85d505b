"""The first-run flow, driven like a new user against the scripted local model server.

Real parts: a fresh ``RELAVIUM_HOME``, the scripted server (real HTTP on
127.0.0.1, speaking the OpenAI-compatible model list and chat stream), the
guarded egress client, providers.yaml on disk.  The keyring is the failing
backend here: a local server needs no key, and nothing in the flow may
depend on one.  The "usual ports" are the only thing swapped: the flow is
told to look on the test server's port instead of 11434.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from relavium_desktop.host.egress.local_servers import KNOWN_LOCAL_SERVERS, LocalServerKind
from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.qt import QPoint, QPushButton
from relavium_desktop.ui.theme.tokens import SPACE_5
from relavium_desktop.ui.welcome import STEP_MODEL, STEP_PROJECT, STEP_PROVIDER
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import finish, type_and_enter


@pytest.fixture(autouse=True)
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


def local_kind(server: ScriptedLLMServer) -> LocalServerKind:
    return LocalServerKind("Ollama", "ollama", int(server.base_url.rsplit(":", 1)[1]))


def test_the_usual_local_ports_are_ollama_and_lm_studio() -> None:
    assert [(k.name, k.port) for k in KNOWN_LOCAL_SERVERS] == [("ollama", 11434), ("lmstudio", 1234)]


def test_a_fresh_home_opens_the_welcome_flow_and_ends_in_a_streaming_chat(
    make_window, qtbot, relavium_home: Path, llm_server: ScriptedLLMServer,
) -> None:
    llm_server.models = ["llama3.2:3b", "qwen2.5-coder:7b"]
    window = make_window(welcome=True, local_servers=[local_kind(llm_server)])
    window.show()
    qtbot.waitExposed(window)
    welcome = window.welcome_view
    assert welcome is not None and window.pages.currentWidget() is welcome
    assert welcome.steps.currentIndex() == STEP_PROVIDER
    # Nothing local is contacted before the user asks.
    assert llm_server.requests == [] and llm_server.list_requests == []

    welcome.look_button.click()
    qtbot.waitUntil(lambda: welcome.local_list.count() == 1, timeout=10_000)
    assert "Ollama" in welcome.local_list.item(0).text() and "2 models" in welcome.local_list.item(0).text()
    welcome.pick_local(0)
    # No key needed for a local server: straight on to the model, listed by the server itself.
    assert welcome.steps.currentIndex() == STEP_MODEL
    qtbot.waitUntil(lambda: welcome.model_list.count() == 2, timeout=10_000)
    welcome.model_list.setCurrentRow(1)
    welcome.next_button.click()
    assert welcome.steps.currentIndex() == STEP_PROJECT
    welcome.next_button.click()  # "Start chatting", no project

    assert window.welcome_view is None and window.pages.currentWidget() is window.chat_view
    saved = YAML(typ="safe").load((relavium_home / "providers.yaml").read_text())
    ollama = saved["providers"]["ollama"]
    assert (ollama["kind"], ollama["base_url"], ollama.get("api_key"), ollama["allow_local"]) == (
        "openai", f"{llm_server.base_url}/v1", None, True)
    # The pick is the shared default model (defaults.json, which `relavium chat` reads), not a window setting.
    assert json.loads((relavium_home / "defaults.json").read_text()) == {"model": "ollama/qwen2.5-coder:7b"}
    assert window.context.settings.value("chat/model") is None
    view = window.chat_view
    qtbot.waitUntil(lambda: view.model_combo.route() == "ollama/qwen2.5-coder:7b", timeout=10_000)

    llm_server.script(Reply.say("Hello from your local model"))
    type_and_enter(qtbot, view, "hi")
    assert finish(qtbot, view) == "completed"
    assert "Hello from your local model" in view.transcript.plain_text()
    chat = [r for r in llm_server.requests if r.dialect == "openai"]
    assert chat[-1].body["model"] == "qwen2.5-coder:7b" and chat[-1].body["stream"] is True
    window.close()

    again = make_window(welcome=True)
    assert again.welcome_view is None and again.pages.currentWidget() is again.chat_view
    again.after_first_paint()
    qtbot.wait(200)
    assert again.welcome_view is None


def test_skipping_setup_is_one_button_and_still_gives_a_working_app(
    make_window, qtbot, relavium_home: Path, project: Path, folder_picker,
) -> None:
    window = make_window(welcome=True)
    welcome = window.welcome_view
    assert welcome is not None
    # One way to skip, one place: no per-step "Skip this step" beside it.
    labels = [b.text() for b in welcome.findChildren(QPushButton) if b.isVisibleTo(welcome)]
    assert [t for t in labels if "skip" in t.lower()] == ["Skip setup"]
    assert welcome.skip_all.property("variant") == "ghost"
    # Nothing chosen yet: Next cannot be pressed past the choice.
    assert not welcome.next_button.isEnabled()
    welcome.next_button.click()
    assert welcome.steps.currentIndex() == STEP_PROVIDER
    welcome.skip_all.click()
    assert window.welcome_view is None and window.pages.currentWidget() is window.chat_view
    assert window.context.settings.value(keys.KEY_WELCOME_DONE) == "skipped"
    # The app works: the header says tools are off, a project can be chosen, Settings opens.
    assert window.project_note.isVisibleTo(window)
    folder_picker.answers.append(str(project))
    window.project_button.click()
    assert not window.project_note.isVisibleTo(window)
    settings = window.show_settings("providers")
    assert set(settings.providers.rows) == {"anthropic", "openai", "gemini"}
    window.close()
    assert make_window(welcome=True).welcome_view is None  # skipped once: not forced on the user again


def test_the_flow_can_be_run_again_from_settings(make_window, qtbot) -> None:
    window = make_window()
    assert window.welcome_view is None
    page = window.show_settings("providers").providers
    page.setup_button.click()
    assert window.welcome_view is not None and window.pages.currentWidget() is window.welcome_view
    window.welcome_view.skip_all.click()
    assert window.pages.currentWidget() is window.chat_view


def test_an_existing_provider_with_a_key_skips_the_flow(
    make_window, qtbot, relavium_home: Path, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RELAVIUM_FIRST_RUN_KEY", "sk-test-FIRSTRUN0123456789abcdef")
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {"work": {
        "kind": "openai", "base_url": llm_server.base_url + "/v1", "api_key": "env:RELAVIUM_FIRST_RUN_KEY",
        "allow_local": True}}}))
    window = make_window(welcome=True)
    assert window.welcome_view is None
    window.after_first_paint()
    qtbot.waitUntil(lambda: window.context.settings.value(keys.KEY_WELCOME_DONE) == "done", timeout=10_000)
    assert window.welcome_view is None


def test_a_provider_file_without_a_usable_key_opens_the_flow_after_the_first_paint(
    make_window, qtbot, relavium_home: Path,
) -> None:
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {"anthropic": {
        "kind": "anthropic", "base_url": "https://api.anthropic.com", "api_key": "env:RELAVIUM_UNSET_KEY"}}}))
    window = make_window(welcome=True)
    assert window.welcome_view is None
    window.after_first_paint()
    qtbot.waitUntil(lambda: window.welcome_view is not None, timeout=10_000)
    assert window.pages.currentWidget() is window.welcome_view


def test_looking_for_a_local_server_when_none_runs_says_so(make_window, qtbot) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    window = make_window(welcome=True, local_servers=[LocalServerKind("Ollama", "ollama", port)])
    welcome = window.welcome_view
    welcome.look_button.click()
    qtbot.waitUntil(lambda: "No local model server answered" in welcome.local_status.text(), timeout=10_000)
    assert welcome.local_list.count() == 0 and welcome.look_button.isEnabled()


def test_a_found_local_server_leads_to_step_2_with_its_sole_model_already_picked(
    make_window, qtbot, relavium_home: Path, llm_server: ScriptedLLMServer,
) -> None:
    llm_server.models = ["llama3.2:3b"]
    window = make_window(welcome=True, local_servers=[local_kind(llm_server)])
    window.show()
    qtbot.waitExposed(window)
    welcome = window.welcome_view
    assert welcome.step_label.text() == "Step 1 of 3 · Connect a model"
    welcome.look_button.click()
    qtbot.waitUntil(lambda: welcome.local_list.count() == 1, timeout=10_000)
    welcome.pick_local(0)
    # The model step, counted as step 2 of the same three (not "step 3 of 4" because the key was skipped).
    assert welcome.steps.currentIndex() == STEP_MODEL
    assert welcome.step_label.text() == "Step 2 of 3 · Pick a model"
    qtbot.waitUntil(lambda: welcome.model_list.count() == 1, timeout=10_000)
    assert welcome.model_list.currentRow() == 0 and welcome.next_button.isEnabled()
    assert json.loads((relavium_home / "defaults.json").read_text()) == {"model": "ollama/llama3.2:3b"}
    # Compact: one model is one row, not a tall empty list.
    assert welcome.model_list.height() < 4 * welcome.model_list.sizeHintForRow(0)
    # ... and the buttons sit right under it, not under the tallest step's room.
    list_bottom = welcome.model_list.mapTo(welcome, QPoint(0, welcome.model_list.height())).y()
    assert 0 < welcome.next_button.mapTo(welcome, QPoint(0, 0)).y() - list_bottom <= 2 * SPACE_5
    assert welcome.next_button.property("variant") == "primary"
    welcome.next_button.click()
    assert welcome.step_label.text() == "Step 3 of 3 · Ready to chat"
    assert welcome.next_button.text() == "Start chatting"


def test_next_waits_for_a_model_to_be_picked_when_there_are_several(
    make_window, qtbot, llm_server: ScriptedLLMServer,
) -> None:
    llm_server.models = ["llama3.2:3b", "qwen2.5-coder:7b"]
    window = make_window(welcome=True, local_servers=[local_kind(llm_server)])
    welcome = window.welcome_view
    welcome.look_button.click()
    qtbot.waitUntil(lambda: welcome.local_list.count() == 1, timeout=10_000)
    welcome.pick_local(0)
    qtbot.waitUntil(lambda: welcome.model_list.count() == 2, timeout=10_000)
    assert welcome.model_list.currentRow() == -1
    assert not welcome.next_button.isEnabled()
    welcome.next_button.click()
    assert welcome.steps.currentIndex() == STEP_MODEL
    welcome.model_list.setCurrentRow(1)
    assert welcome.next_button.isEnabled()
    welcome.back_button.click()  # a keyless server: back to choosing how, not to a key page
    assert welcome.steps.currentIndex() == STEP_PROVIDER
    assert welcome.next_button.isEnabled()  # the server chosen earlier is still the choice
