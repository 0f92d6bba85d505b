"""The quick panel as designed: numbered tiles run by their keys, Markdown results, Esc, Continue in chat.

The panel-only tests give it a runner coroutine (the model's part is what the
scripted provider tests in test_quick_panel_run.py cover); Continue in chat
runs against the real window, its chat store and the scripted local server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relavium_desktop.ui.clipboard_actions import ClipboardAction
from relavium_desktop.ui.qt import QApplication, Qt
from relavium_desktop.ui.quick_panel import QuickPanel
from tests.fixtures.llm_server import Reply, ScriptedLLMServer

MARKDOWN = "**Ship** on *Friday*.\n\n- Ana: `pricing`\n- Marco: notes\n\n```python\nprint('done')\n```\n"


def _actions(count: int) -> list[ClipboardAction]:
    return [ClipboardAction(f"a{i}", f"Action {i}", f"Does {i}", "Do {{clipboard}}") for i in range(1, count + 1)]


def _panel(qtbot, actions: list[ClipboardAction], answer: str = "ok") -> tuple[QuickPanel, list[str]]:
    ran: list[str] = []

    async def runner(action: ClipboardAction, _text: str) -> str:
        ran.append(action.id)
        return answer

    panel = QuickPanel("Meeting notes: ship on Friday\nAna reviews pricing\nMarco notes", actions, runner)
    qtbot.addWidget(panel)
    panel.show()
    panel.activateWindow()
    qtbot.waitExposed(panel)
    return panel, ran


def test_the_actions_are_numbered_tiles_and_each_number_key_runs_its_tile(qtbot, qloop) -> None:
    panel, ran = _panel(qtbot, _actions(10))
    tiles = [panel.action_list.item(i) for i in range(panel.action_list.count())]
    assert [t.property("variant") for t in tiles] == ["tile"] * 10
    assert tiles[0].accessibleName() == "Action 1 (key 1)" and tiles[9].accessibleName() == "Action 10"
    # Two columns: the second tile sits beside the first, the third below it.
    assert tiles[1].y() == tiles[0].y() and tiles[1].x() > tiles[0].x() and tiles[2].y() > tiles[0].y()
    assert panel.kind_label.text() == "You copied · 3 lines of text"
    assert panel.sheet.width() == 640

    for key, expected in ((Qt.Key.Key_3, "a3"), (Qt.Key.Key_9, "a9"), (Qt.Key.Key_1, "a1")):
        done = len(ran)
        qtbot.keyClick(panel, key)
        qtbot.waitUntil(lambda d=done: len(ran) == d + 1 and panel.copy_button.isEnabled(), timeout=5_000)
        assert ran[-1] == expected
        assert panel.action_list.currentRow() == int(expected[1:]) - 1
        assert panel.action_list.item(panel.action_list.currentRow()).isChecked()


def test_the_result_is_rendered_markdown_in_a_tall_area(qtbot, qloop) -> None:
    panel, _ran = _panel(qtbot, _actions(2), answer=MARKDOWN)
    panel.action_list.item(0).click()
    qtbot.waitUntil(panel.copy_button.isEnabled, timeout=5_000)
    shown = panel.result_view.toPlainText()
    assert "Ship on Friday." in shown and "Ana: pricing" in shown and "print('done')" in shown
    for raw in ("**", "```", "- Ana", "`pricing`", "*Friday*"):
        assert raw not in shown, raw
    assert panel.result_view.height() >= 200  # a real reading area, not a four-line box
    assert panel.copy_button.property("variant") == "primary"
    assert panel.chat_button.text() == "Continue in chat"
    panel.copy_button.click()
    assert QApplication.clipboard().text() == MARKDOWN  # Copy gives what the model wrote


def test_a_checklist_shows_boxes_not_brackets(qtbot, qloop) -> None:
    panel, _ran = _panel(qtbot, _actions(1), answer="- [ ] Ship on Friday\n- [x] Ana: pricing\n")
    panel.action_list.item(0).click()
    qtbot.waitUntil(panel.copy_button.isEnabled, timeout=5_000)
    shown = panel.result_view.toPlainText()
    assert "☐ Ship on Friday" in shown and "☑ Ana: pricing" in shown and "[ ]" not in shown


def test_escape_closes_the_panel(qtbot, qloop) -> None:
    panel, ran = _panel(qtbot, _actions(2))
    qtbot.keyClick(panel, Qt.Key.Key_Escape)
    assert not panel.isVisible() and ran == []


@pytest.fixture
def window(make_window, relavium_home: Path, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("RELAVIUM_TEST_KEY", "sk-test-QUICKDESIGN0123456789abcdefgh")
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {"scripted-openai": {
        "kind": "openai", "base_url": llm_server.base_url + "/v1", "api_key": "env:RELAVIUM_TEST_KEY",
        "allow_local": True,
    }}}))
    w = make_window()
    w.chat_view.ensure_loaded()
    w.chat_view.set_route("scripted-openai/gpt-4o-mini")
    return w


def test_continue_in_chat_closes_the_panel_and_brings_the_chat_to_the_front(
    window, qtbot, qapp, llm_server: ScriptedLLMServer
) -> None:
    window.show()
    qtbot.waitExposed(window)
    qapp.clipboard().setText("Meeting notes: ship on Friday")
    window.process_clipboard()
    qtbot.waitUntil(lambda: window.quick_panel is not None and window.quick_panel.isVisible())
    panel = window.quick_panel
    llm_server.script(Reply.say("A **short** summary."))
    titles = [panel.action_list.item(i).text() for i in range(panel.action_list.count())]
    panel.action_list.item(titles.index("Summarize")).click()
    qtbot.waitUntil(panel.chat_button.isEnabled, timeout=15_000)

    panel.chat_button.click()
    assert not panel.isVisible()  # out of the way: the chat is what the user sees now
    qtbot.waitUntil(window.isActiveWindow, timeout=5_000)
    chat = window.chat_view
    assert window.pages.currentWidget() is chat
    # (The composer's own focus is the window's part: MainWindow.open_in_chat focuses it after
    # bring_to_front; the panel's part is to hand over and close, which is what is checked here.)
    assert "short summary" in chat.transcript.messages()[-1].shown_text()
