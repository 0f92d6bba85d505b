"""Settings → Chat tools: the search provider, per-host credentials and run_command settings chat uses.

The chat turn runs against the scripted provider server, a local
SearXNG-shaped server (plain HTTP, reached through the production egress rule
with the page's "local network" opt-in) and the real keyring on a private bus.
"""

from __future__ import annotations

import json

from relavium_desktop.host.secrets import SecretStore
from relavium_desktop.ui.chat.backend import KEY_POLICY, KEY_TOOL_CONFIG, policy_from, tool_configs_from
from relavium_desktop.ui.settings.chat_tool_config import ToolConfigSection
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.fixtures.searxng_server import SearxngServer, searxng_server_fixture  # noqa: F401
from tests.ui.chat_driver import type_and_enter

SEARCH_KEY = "searx-token-TYPEDINTHEPAGE-0123"


def save(qtbot, section: ToolConfigSection) -> str:
    with qtbot.waitSignal(section.saved, timeout=15_000):
        section.save_button.click()
    return section.error.text()


def test_a_chat_turn_searches_through_the_searxng_set_in_settings(
    desktop_bus_env, chat, qtbot, llm_server: ScriptedLLMServer, searxng_server: SearxngServer,
) -> None:
    window = chat.window()
    section = window.show_settings("chat_tools").chat_tools.tool_config
    section.provider.setCurrentIndex(section.provider.findData("searxng"))
    section.search_url.setText(searxng_server.base_url)
    # Plain http to 127.0.0.1 is refused until the user says the server is local.
    assert "https://" in save(qtbot, section)
    assert window.context.settings.value(KEY_TOOL_CONFIG) is None
    section.allow_local.setChecked(True)
    qtbot.keyClicks(section.search_key, SEARCH_KEY)
    assert save(qtbot, section) == ""
    assert section.search_key.text() == ""  # the key left the widget
    assert "secret:CHAT_WEB_SEARCH_KEY" in section.search_key_state.text()
    stored = window.context.settings.value(KEY_TOOL_CONFIG)
    assert SEARCH_KEY not in stored
    assert json.loads(stored) == {"web_search": {"parameters": {
        "provider": "searxng", "baseUrl": searxng_server.base_url, "allowLocal": True,
        "credentialRef": "secret:CHAT_WEB_SEARCH_KEY"}}}
    assert SecretStore().get("CHAT_WEB_SEARCH_KEY") == SEARCH_KEY

    window.nav.setCurrentRow(0)
    window.context.set_mode("auto")
    llm_server.script(Reply.call("web_search", {"query": "desktop chat search"}), Reply.say("found"))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "search the web")
    # The built-in agent was offered web_search because a provider is configured...
    offered = {t["function"]["name"] for t in llm_server.requests[0].body["tools"]}
    assert "web_search" in offered
    (card,) = chat.transcript.cards()
    assert card.status == "done" and "SearXNG result for desktop chat search" in card.result_view.toPlainText()
    # ...the request reached the configured server with the key from the keyring...
    assert searxng_server.searches() == ["desktop chat search"]
    assert searxng_server.requests[0]["headers"]["Authorization"] == SEARCH_KEY
    # ...and the answer went back to the model, without the key.
    follow_up = json.dumps(llm_server.requests[1].body["messages"])
    assert "SearXNG result for desktop chat search" in follow_up and SEARCH_KEY not in follow_up

    # Forgetting the key removes the keyring entry the page made and the reference to it.
    window.show_settings("chat_tools")
    with qtbot.waitSignal(section.saved, timeout=15_000):
        section.search_key_forget.click()
    assert SecretStore().get("CHAT_WEB_SEARCH_KEY") is None
    params = json.loads(window.context.settings.value(KEY_TOOL_CONFIG))["web_search"]["parameters"]
    assert "credentialRef" not in params and params["provider"] == "searxng"
    assert section.search_key_state.text() == "No key set" and not section.search_key_forget.isEnabled()


def test_credentials_per_host_and_command_settings_are_validated_and_stored(
    desktop_bus_env, make_window, qtbot,
) -> None:
    window = make_window()
    page = window.show_settings("chat_tools").chat_tools
    section = page.tool_config

    section.cred_domain.setText("api.example.com/v1")
    section.cred_key.setText("k")
    section.cred_add.click()
    assert "not a host name" in section.error.text()
    section.cred_domain.setText("API.Example.com.")
    section.cred_key.setText("sk-http-TYPED-KEY-999")
    with qtbot.waitSignal(section.saved, timeout=15_000):
        section.cred_add.click()
    assert section.cred_key.text() == ""
    assert section.credentials.item(0).text() == "api.example.com  →  secret:CHAT_HTTP_API_EXAMPLE_COM"
    assert SecretStore().get("CHAT_HTTP_API_EXAMPLE_COM") == "sk-http-TYPED-KEY-999"
    # A reference to an existing secret is taken as is.
    section.cred_domain.setText("status.example.org:8443")
    section.cred_key.setText("secret:STATUS_TOKEN")
    with qtbot.waitSignal(section.saved, timeout=15_000):
        section.cred_add.click()

    section.env_edit.setText("LD_PRELOAD=/tmp/x.so")
    section.env_add.click()
    assert "'LD_PRELOAD' may not be passed" in section.error.text()
    # A hijack name can never be listed, in any case spelling; a harmless one must be listed first.
    section.allowed_env_edit.setText("ld_preload")
    section.allowed_env.clear()
    section.allowed_env_add.click()
    assert "can never be allowed" in section.error.text() and section.allowed_env.count() == 0
    section.env_edit.setText("GREETING=hi there")
    section.env_add.click()
    assert "'GREETING' is not on the allowlist" in section.error.text()
    assert "Allowed variables" in section.error.text()
    assert section.env.count() == 0
    section.allowed_env_edit.setText("GREETING")
    with qtbot.waitSignal(section.saved, timeout=15_000):
        section.allowed_env_add.click()
    assert json.loads(window.context.settings.value(KEY_POLICY))["allowedEnv"] == ["GREETING"]
    assert policy_from(window.context.settings).allowed_env == ("GREETING",)
    section.env_edit.setText("GREETING=hi there")
    section.env_add.click()
    # An inert name needs no listing.
    section.env_edit.setText("TZ=Europe/Berlin")
    section.env_add.click()
    assert section.error.text() == ""
    section.cwd.setText("/srv/build")
    section.timeout.setValue(30)
    assert save(qtbot, section) == ""
    stored = window.context.settings.value(KEY_TOOL_CONFIG)
    assert "sk-http-TYPED-KEY-999" not in stored
    assert json.loads(stored) == {
        "http_request": {"parameters": {"credentialRefs": {
            "api.example.com": "secret:CHAT_HTTP_API_EXAMPLE_COM", "status.example.org:8443": "secret:STATUS_TOKEN"}}},
        "run_command": {"parameters": {"cwd": "/srv/build", "timeoutMs": 30_000,
                                       "env": {"GREETING": "hi there", "TZ": "Europe/Berlin"}}},
    }
    # What the chat view hands the session each turn, checked by the engine's rules.
    registry_tools = {"http_request", "run_command", "web_search"}
    from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS

    lookup = {t.id: t for t in BUILTIN_TOOLS if t.id in registry_tools}.get
    configs = tool_configs_from(window.context.settings, lookup)
    assert configs["run_command"].parameters["cwd"] == "/srv/build"

    # A restart shows the same settings.
    window.close()
    again = make_window().show_settings("chat_tools").chat_tools.tool_config
    assert again.cwd.text() == "/srv/build" and again.timeout.value() == 30
    assert [again.allowed_env.item(i).text() for i in range(again.allowed_env.count())] == ["GREETING"]
    assert [again.credentials.item(i).text() for i in range(again.credentials.count())] == [
        "api.example.com  →  secret:CHAT_HTTP_API_EXAMPLE_COM", "status.example.org:8443  →  secret:STATUS_TOKEN"]
    assert again.env.item(0).text() == "GREETING=hi there"


def test_a_stored_config_the_engine_refuses_is_reported_and_ignored_by_chat(make_window, monkeypatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    window = make_window()
    window.context.settings.setValue(KEY_TOOL_CONFIG, json.dumps(
        {"web_search": {"parameters": {"provider": "bing", "credentialRef": "sk-hand-edited-KEY"}}}))
    section = window.show_settings("chat_tools").chat_tools.tool_config
    assert "web_search parameter provider" in section.error.text()
    assert "sk-hand-edited-KEY" not in section.error.text()
    from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS

    assert tool_configs_from(window.context.settings, {t.id: t for t in BUILTIN_TOOLS}.get) == {}

