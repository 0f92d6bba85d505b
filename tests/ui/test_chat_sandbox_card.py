"""The chat's Sandbox-for-commands choice reaches the command, and the tool card says when it ran unconfined.

A real window, the scripted model server, and a real ``touch`` of a file
outside the project: Strict (the default) blocks it through the kernel's
Landlock sandbox; Off (picked on Settings -> Chat tools) lets it through, and
the card carries the "ran unconfined" line.
"""

from __future__ import annotations

import json
from pathlib import Path

from relavium_desktop.ui.chat.backend import KEY_POLICY
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import type_and_enter


def touch_outside(qtbot, chat, llm_server: ScriptedLLMServer, target: Path):
    chat.new_session()
    llm_server.script(
        Reply.call("run_command", {"command": "touch", "args": [str(target)]}), Reply.say("done")
    )
    with qtbot.waitSignal(chat.turn_finished, timeout=20_000):
        type_and_enter(qtbot, chat, "touch the file")
    (card,) = chat.transcript.cards()
    return card


def test_off_in_settings_runs_unconfined_and_the_card_says_so(
    chat, qtbot, project: Path, llm_server: ScriptedLLMServer
) -> None:
    target = project.parent / "outside.txt"
    settings = chat.context.settings
    settings.setValue(KEY_POLICY, json.dumps({"allowedCommands": [f"touch {target}"]}))
    chat.context.set_mode("auto")

    card = touch_outside(qtbot, chat, llm_server, target)
    assert not target.exists()  # strict: the kernel refused the write
    text = card.result_view.toPlainText()
    assert "unconfined" not in text and "exit 1" in text

    page = chat.window().show_settings("chat_tools").chat_tools
    page.sandbox.mode.setCurrentIndex(page.sandbox.mode.findData("off"))
    assert json.loads(settings.value(KEY_POLICY))["sandbox"] == "off"
    assert page.sandbox.off_warning.isVisibleTo(page)
    chat.window().nav.setCurrentRow(0)

    card = touch_outside(qtbot, chat, llm_server, target)
    assert target.exists()
    text = card.result_view.toPlainText()
    assert "exit 0" in text
    assert "sandbox off: ran unconfined" in text
