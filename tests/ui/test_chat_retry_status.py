"""The chat's status line while a rate-limited request waits (a real window, the scripted server)."""

from __future__ import annotations

import time

from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import type_and_enter


def test_a_rate_limited_turn_says_it_is_waiting_then_answers(chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    llm_server.script(Reply.error(429, retry_after="2"), Reply.say("Worth the wait."))
    started = time.monotonic()
    with qtbot.waitSignal(chat.turn_finished, timeout=20_000) as done:
        type_and_enter(qtbot, chat, "hello?")
        # Shown while the engine waits, before the second request goes out.
        qtbot.waitUntil(lambda: chat.status.text() == "Rate limited, retrying in 2 s…", timeout=5_000)
        assert len(llm_server.requests) == 1
    assert done.args == ["completed"]
    assert time.monotonic() - started >= 2.0
    assert [m.shown_text().strip() for m in chat.transcript.messages()] == ["hello?", "Worth the wait."]
    assert chat.status.text() != "Rate limited, retrying in 2 s…"  # gone once the answer arrived
    assert not chat.banner.isVisible()


def test_an_empty_answer_is_said_as_such_with_try_again(chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    llm_server.script(Reply.say(""), Reply.say("Now with words."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "hello?")
    assert chat.banner.isVisible()
    assert "The model returned an empty answer." in chat.banner.label.text()
    assert "could not be reached" not in chat.banner.label.text()
    assert chat.banner.button.text() == "Try again"
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        chat.banner.button.click()
    assert done.args == ["completed"]
    # The empty answer was never sent back as an assistant message without content.
    sent = llm_server.requests[-1].body["messages"]
    assert all(m.get("content") is not None or m.get("tool_calls") for m in sent)
    assert [m.shown_text().strip() for m in chat.transcript.messages()] == ["hello?", "Now with words."]
