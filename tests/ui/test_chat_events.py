"""The window's chat turns get their events from the same EventBus as ``relavium chat``.

Real window, real project host, the scripted provider over HTTP.  The page's
own event handler is wrapped to record what it is handed (a spy: the handler
still runs and the transcript still fills).
"""

from __future__ import annotations

from typing import Any

from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import type_and_enter


def test_the_windows_events_carry_the_envelope_and_gap_free_sequence_numbers(
    chat, qtbot, llm_server: ScriptedLLMServer,
) -> None:
    seen: list[dict[str, Any]] = []
    handler = chat._on_event

    def spy(event: dict[str, Any]) -> None:
        seen.append(event)
        handler(event)

    chat._on_event = spy
    llm_server.script(Reply.call("read_file", {"path": "src/app.py"}), Reply.say("It prints hello."),
                      Reply.say("Nothing else."))
    for question in ("What does src/app.py do?", "Anything else?"):
        with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
            type_and_enter(qtbot, chat, question)
        assert done.args == ["completed"]
    assert chat.session_id is not None
    assert [e["sequenceNumber"] for e in seen] == list(range(len(seen)))
    assert {e["sessionId"] for e in seen} == {chat.session_id}
    assert all(isinstance(e["timestamp"], str) and e["timestamp"].endswith("Z") for e in seen)
    kinds = [e["type"] for e in seen]
    assert "agent:tool_call" in kinds and kinds.count("chat:turn_completed") == 2
    assert chat.transcript.messages()[-1].shown_text().strip() == "Nothing else."
