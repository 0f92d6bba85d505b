"""The window's chat turns get their events from the same EventBus as ``relavium chat``.

Real window, real project host, the scripted provider over HTTP.  The page's
own event handler is wrapped to record what it is handed (a spy: the handler
still runs and the transcript still fills).
"""

from __future__ import annotations

from typing import Any

from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import ROUTE, type_and_enter


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


def test_a_refused_first_message_leaves_no_session_in_the_list(chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    """The agent's input_schema refuses the first message: the banner says why, no empty chat is listed."""
    from relavium_desktop.ui.chat.backend import AgentChoice

    spec = chat.agents[0].spec.model_copy(update={"id": "ticket", "tools": [],
                                                  "input_schema": {"type": "string", "maxLength": 5}})
    chat.agents.append(AgentChoice(spec, "ticket.agent.yaml"))
    chat.agent_combo.addItem("ticket", "ticket")
    chat.agent_combo.setCurrentIndex(1)
    chat.set_route(ROUTE)
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        type_and_enter(qtbot, chat, "far too long for this agent")
    assert done.args == ["failed"]
    assert chat.banner.code == "validation" and not chat.banner.isHidden()
    assert chat.session_id is None and chat.backend.store.list_sessions() == []
    assert chat.sessions.ids() == []  # the list was refreshed: the session made for it is gone
    assert llm_server.requests == []
