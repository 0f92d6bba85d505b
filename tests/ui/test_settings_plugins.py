"""Settings → Plugins: the installed example plugin, enabled and disabled through plugins.yaml, and a refusal shown.

Real parts: the pip-installed example plugin (examples/relavium-plugin-wordcount),
broken distributions on sys.path (tests/fixtures/plugin_dists.py) and
plugins.yaml on disk.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from relavium_desktop.host.plugins import enabled_names
from tests.fixtures.plugin_dists import make_plugin_site


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_plugin_site(tmp_path / "site")
    monkeypatch.syspath_prepend(str(root))
    yield root
    for name in [m for m in sys.modules if m.startswith("relavium_test_plugin_")]:
        del sys.modules[name]


def open_page(make_window):
    window = make_window()
    return window.show_settings("plugins").plugins


def test_toggling_enables_and_disables_and_a_refusal_is_shown(
    make_window, qtbot, relavium_home: Path, site: Path
) -> None:
    page = open_page(make_window)
    qtbot.waitUntil(lambda: "wordcount" in page.checks)
    assert not page.checks["wordcount"].isChecked()
    assert page.notes["wordcount"].text() == "Disabled (not loaded)"
    assert not [m for m in sys.modules if m.startswith("relavium_test_plugin_")]  # listing imports nothing

    page.checks["wordcount"].setChecked(True)
    qtbot.waitUntil(lambda: page.notes["wordcount"].text().startswith("Enabled"))
    assert page.notes["wordcount"].text() == "Enabled: plugin_wordcount, plugin_wordcount_file"
    assert enabled_names(relavium_home) == ["wordcount"]

    page.checks["broken"].setChecked(True)
    qtbot.waitUntil(lambda: page.notes["broken"].text().startswith("Refused"))
    assert page.notes["broken"].text() == "Refused: failed to import (ImportError: needs libfoo)"
    assert page.notes["broken"].property("tone") == "danger"
    assert page.checks["broken"].isChecked()  # still the user's choice; it just cannot load

    page.checks["wordcount"].setChecked(False)
    qtbot.waitUntil(lambda: page.notes["wordcount"].text() == "Disabled (not loaded)")
    assert enabled_names(relavium_home) == ["broken"]


def test_a_plugin_enabled_in_settings_is_offered_and_runs_in_chat(
    chat, qtbot, llm_server, project: Path, relavium_home: Path
) -> None:
    from tests.fixtures.llm_server import Reply
    from tests.ui.chat_driver import type_and_enter

    window = chat.window()
    page = window.show_settings("plugins").plugins
    qtbot.waitUntil(lambda: "wordcount" in page.checks)
    page.checks["wordcount"].setChecked(True)
    qtbot.waitUntil(lambda: page.notes["wordcount"].text().startswith("Enabled"))
    window.nav.setCurrentRow(0)
    llm_server.script(Reply.call("plugin_wordcount", {"text": "one two two", "top": 1}), Reply.say("done"))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "count these words")
    offered = [t["function"]["name"] for t in llm_server.requests[0].body.get("tools", [])]
    assert "plugin_wordcount" in offered and "plugin_wordcount_file" in offered
    (card,) = chat.transcript.cards()
    assert card.status == "done" and "words: 3" in card.result_view.toPlainText()
