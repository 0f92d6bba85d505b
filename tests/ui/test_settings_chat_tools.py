"""Settings → Chat tools: command and domain allowlists edited in the UI, validated, used by chat.

The chat turn runs against the scripted provider server and a real process
host in a temporary project (the `chat` fixture, tests/ui/conftest.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from relavium_desktop.ui.chat.backend import KEY_POLICY, policy_from
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import type_and_enter


def add(allow_list, text: str) -> str:
    allow_list.edit.setText(text)
    allow_list.add_button.click()
    return allow_list.error.text()


def labels(allow_list) -> list[str]:
    return [allow_list.list.item(i).text() for i in range(allow_list.list.count())]


def test_entries_are_validated_shown_as_argv_and_normalised(make_window, monkeypatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    window = make_window()
    page = window.show_settings("chat_tools").chat_tools
    assert window.settings_view.tabs.currentWidget() is page
    commands, domains = page.commands, page.domains

    assert add(commands, "npm   test") == ""
    assert add(commands, 'git commit -m "two words"') == ""
    assert labels(commands) == [
        'npm test    →  argv ["npm", "test"]',
        "git commit -m 'two words'    →  argv [\"git\", \"commit\", \"-m\", \"two words\"]",
    ]
    assert "cannot split" in add(commands, 'echo "unbalanced')
    assert "shell operator" in add(commands, "npm test && rm -rf ~")
    assert "shell operator" in add(commands, "cat a | sh")
    assert "already" in add(commands, "npm 'test'")
    assert "type a command" in add(commands, "   ")
    assert commands.values() == ["npm test", "git commit -m 'two words'"]

    assert add(domains, "API.GitHub.com.") == ""
    assert add(domains, "https://example.org/") == ""
    assert add(domains, "example.org:8443") == ""
    assert add(domains, "bücher.de") == ""
    assert "wildcards" in add(domains, "*.example.com")
    assert "HTTPS only" in add(domains, "http://plain.example.com")
    assert "not a host name" in add(domains, "user@evil.example")
    assert "not a host name" in add(domains, "example.com/path")
    assert "already" in add(domains, "EXAMPLE.org")
    assert domains.values() == ["api.github.com", "example.org", "example.org:8443", "xn--bcher-kva.de"]

    # Saved on every change, in the key the chat reads each turn.
    stored = json.loads(window.context.settings.value(KEY_POLICY))
    assert stored == {"allowedCommands": ["npm test", "git commit -m 'two words'"],
                      "allowedDomains": ["api.github.com", "example.org", "example.org:8443", "xn--bcher-kva.de"]}
    policy = policy_from(window.context.settings)
    assert policy.allowed_commands == ("npm test", "git commit -m 'two words'")

    # Remove one of each; a restart shows the same lists.
    commands.list.setCurrentRow(0)
    commands.remove_button.click()
    domains.list.setCurrentRow(3)
    domains.remove_button.click()
    window.close()
    again = make_window().show_settings("chat_tools").chat_tools
    assert again.commands.values() == ["git commit -m 'two words'"]
    assert again.domains.values() == ["api.github.com", "example.org", "example.org:8443"]
    # Emptying a list disables the tool again (the key is absent, not an empty list).
    again.commands.list.setCurrentRow(0)
    again.commands.remove_button.click()
    assert "allowedCommands" not in json.loads(again._settings.value(KEY_POLICY))
    assert policy_from(again._settings).allowed_commands is None


def test_a_broken_stored_policy_is_reported_and_replaced_on_save(make_window, monkeypatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    window = make_window()
    window.context.settings.setValue(KEY_POLICY, "{not json")
    page = window.show_settings("chat_tools").chat_tools
    assert page.warning.isVisibleTo(page) and "not valid JSON" in page.warning.text()
    add(page.commands, "ls")
    assert json.loads(window.context.settings.value(KEY_POLICY)) == {"allowedCommands": ["ls"]}


def test_a_command_allowed_in_settings_runs_from_chat_and_others_stay_refused(
    chat, qtbot, llm_server: ScriptedLLMServer, project: Path
) -> None:
    window = chat.window()
    page = window.show_settings("chat_tools").chat_tools
    assert add(page.commands, "echo 'allowed by settings'") == ""
    window.nav.setCurrentRow(0)
    window.context.set_mode("auto")
    llm_server.script(
        Reply.call("run_command", {"command": "echo", "args": ["allowed by settings"]}),
        Reply.call("run_command", {"command": "echo", "args": ["allowed", "by", "settings"]}),
        Reply.say("done"),
    )
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "echo something")
    first, second = chat.transcript.cards()
    assert first.status == "done" and "allowed by settings" in first.result_view.toPlainText()
    # Same words, different argument vector: not what the entry allows.
    assert second.status == "failed" and "not in allowedCommands" in second.result_view.toPlainText()
