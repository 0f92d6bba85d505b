"""Settings → Providers reads as a list: one card per provider with its state in words.

Real parts: providers.yaml in a temporary RELAVIUM_HOME, the real window's
Settings page, an env-referenced key (the keyring is disabled so the page
never touches D-Bus), a real closed port for "can't reach" and the scripted
provider server for "Ready".
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from relavium_desktop.ui.qt import QPushButton
from relavium_desktop.ui.theme.tokens import PAD_MAIN
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.words import assert_words_for_people

KEY = "sk-test-LOOKTEST0123456789abcdefghijkl"


@pytest.fixture
def page(make_window, relavium_home: Path, monkeypatch: pytest.MonkeyPatch, qtbot):
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setenv("RELAVIUM_LOOK_KEY", KEY)
    monkeypatch.delenv("RELAVIUM_MISSING_KEY", raising=False)
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {
        "work": {"kind": "openai", "base_url": "https://api.openai.com/v1", "api_key": "env:RELAVIUM_LOOK_KEY"},
        "claude": {"kind": "anthropic", "base_url": "https://api.anthropic.com", "api_key": "env:RELAVIUM_MISSING_KEY"},
        "ollama": {"kind": "openai", "base_url": "http://localhost:11434/v1", "allow_local": True},
    }}))
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    page = window.show_settings("providers").providers
    qtbot.waitUntil(lambda: page.rows["work"].state.text() != "…")
    return page


def test_every_provider_is_a_card_with_its_state_in_words(page) -> None:
    assert list(page.rows) == ["work", "claude", "ollama"]
    states = {name: row.state.text() for name, row in page.rows.items()}
    assert states == {"work": "Ready", "claude": "Needs a key", "ollama": "Local server · not tested yet"}
    assert page.rows["work"].state.property("tone") == "success"
    assert page.rows["claude"].state.property("tone") == "warning"
    for row in page.rows.values():
        assert row.box.property("surface") == "card" and row.box.isVisible()
        assert row.test_button.isVisible() and row.edit_button.isVisible()
        assert not row.editor.isVisible(), "the editor opens on demand"
    margins = page.layout().contentsMargins()
    assert (margins.left(), margins.top(), margins.right()) == (PAD_MAIN, PAD_MAIN, PAD_MAIN)
    assert_words_for_people(page, "providers page")


def test_edit_and_add_open_on_demand_and_there_is_one_primary_button(page, qtbot) -> None:
    row = page.rows["claude"]
    row.edit_button.click()
    assert row.editor.isVisible() and row.key_edit.isVisible() and row.edit_button.text() == "Done"
    row.edit_button.click()
    assert not row.editor.isVisible()

    assert not page.add_box.isVisible()
    page.add_toggle.click()
    assert page.add_box.isVisible() and page.add_name.hasFocus()
    primaries = [b for b in page.findChildren(QPushButton) if b.property("variant") == "primary" and b.isVisible()]
    assert primaries == [page.add_button]
    qtbot.keyClicks(page.add_name, "groq")
    page.add_url.setText("https://api.groq.com/openai/v1")
    with qtbot.waitSignal(page.changed, timeout=10_000):
        page.add_button.click()
    qtbot.waitUntil(lambda: "groq" in page.rows and page.rows["groq"].box.isVisible())  # shown by the layout
    assert page.rows["groq"].state.text() in ("Needs a key", "Keys can't be stored right now", "…")
    assert "Added groq" in page.add_status.text()


def test_a_failing_provider_says_it_cannot_reach_its_host_in_words(page, qtbot) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    row = page.rows["ollama"]
    row.base_url.setText(f"http://127.0.0.1:{port}/v1")
    with qtbot.waitSignal(page.connection_tested, timeout=30_000):
        row.test_button.click()
    assert row.state.text() == f"Can't reach 127.0.0.1:{port}"
    assert row.state.property("tone") == "danger" and row.test_status.isVisible()
    assert_words_for_people(page, "providers page with a failing provider")


def test_a_tested_provider_is_ready(page, qtbot, llm_server: ScriptedLLMServer) -> None:
    llm_server.script(Reply.say("ok"))
    row = page.rows["ollama"]
    row.base_url.setText(llm_server.base_url + "/v1")
    with qtbot.waitSignal(page.connection_tested, timeout=30_000):
        row.test_button.click()
    assert row.state.text() == "Ready" and row.state.property("tone") == "success"
