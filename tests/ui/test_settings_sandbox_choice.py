"""Settings -> Chat tools: "Sandbox for commands" is stored in the chat policy and read by chat's policy_from.

The page writes desktop-settings.ini (a real QSettings file), and the chat's
per-turn reader (policy_from) turns it into the engine's ToolPolicy, so what
the user picks is what the next turn's commands run under.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from relavium_desktop.ui.chat.backend import KEY_POLICY, policy_from


@pytest.fixture
def settings(tmp_path: Path):
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "desktop-settings.ini"), QSettings.Format.IniFormat)


def make_page(qtbot, settings):
    from relavium_desktop.ui.settings.chat_tools import ChatToolsPage

    page = ChatToolsPage(SimpleNamespace(settings=settings))  # type: ignore[arg-type]
    qtbot.addWidget(page)
    return page


def pick(page, mode: str) -> None:
    page.sandbox.mode.setCurrentIndex(page.sandbox.mode.findData(mode))


def stored(settings) -> dict:
    raw = settings.value(KEY_POLICY)
    return json.loads(raw) if raw else {}


def test_strict_is_the_default_and_each_choice_is_saved_for_chat(qtbot, settings) -> None:
    page = make_page(qtbot, settings)
    assert page.sandbox.value() == "strict"
    assert page.sandbox.mode.currentText() == "Strict"
    assert not page.sandbox.off_warning.isVisibleTo(page)
    assert policy_from(settings).sandbox == "strict"

    page.commands.edit.setText("npm test")
    page.commands.add_button.click()
    pick(page, "network")
    assert stored(settings) == {"allowedCommands": ["npm test"], "sandbox": "network"}
    assert policy_from(settings).sandbox == "network"
    assert "TCP connections are allowed" in page.sandbox.allows.text()

    pick(page, "off")
    assert stored(settings)["sandbox"] == "off"
    policy = policy_from(settings)
    assert policy.sandbox == "off" and policy.allowed_commands == ("npm test",)
    # Off says, on the page, that commands then run unconfined.
    assert page.sandbox.off_warning.isVisibleTo(page)
    assert "NOT confined" in page.sandbox.off_warning.text()
    assert "unconfined" in page.sandbox.mode.currentText()

    pick(page, "strict")
    assert stored(settings) == {"allowedCommands": ["npm test"]}  # the default is not written
    assert policy_from(settings).sandbox == "strict"
    assert not page.sandbox.off_warning.isVisibleTo(page)


def test_a_stored_choice_is_shown_when_the_page_opens(qtbot, settings) -> None:
    settings.setValue(KEY_POLICY, json.dumps({"allowedCommands": ["make"], "sandbox": "off"}))
    page = make_page(qtbot, settings)
    assert page.sandbox.value() == "off"
    assert page.sandbox.off_warning.isVisibleTo(page)
    # Adding a command keeps the stored choice.
    page.commands.edit.setText("npm test")
    page.commands.add_button.click()
    assert stored(settings) == {"allowedCommands": ["make", "npm test"], "sandbox": "off"}


def test_a_stored_choice_the_engine_refuses_is_explained_and_chat_stays_strict(qtbot, settings) -> None:
    settings.setValue(KEY_POLICY, json.dumps({"allowedCommands": ["make"], "sandbox": "unconfined"}))
    page = make_page(qtbot, settings)
    assert page.warning.isVisibleTo(page) and "sandbox choice" in page.warning.text()
    assert page.sandbox.value() == "strict"
    policy = policy_from(settings)  # the engine refuses the whole stored policy: nothing allowed, strict
    assert policy.allowed_commands is None and policy.sandbox == "strict"


def test_missing_protections_are_shown_on_the_page(qtbot, settings, monkeypatch: pytest.MonkeyPatch) -> None:
    # This kernel has Landlock ABI 7: nothing is missing, and the page says nothing.
    page = make_page(qtbot, settings)
    assert not page.sandbox.missing.isVisibleTo(page)
    # An older kernel is simulated with the host's own ABI cap (it can only lower what the probe reports).
    monkeypatch.setenv("RELAVIUM_SANDBOX_ABI_CAP", "3")
    page.load()
    assert page.sandbox.missing.isVisibleTo(page)
    text = page.sandbox.missing.text()
    assert "TCP connect/bind rules (Landlock ABI 4)" in text
    assert "strict sandbox will refuse to run" in text and "Off" in text
