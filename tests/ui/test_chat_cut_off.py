"""A cut-off answer in the chat view: kept, marked "Answer cut off", and Try again asks for it anew (pytest-qt)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.store.db import history_db_path
from relavium_desktop.store.runs import this_process
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import type_and_enter


def _clear_script(server: ScriptedLLMServer) -> None:
    with server._lock:  # whichever scripted refusals no retry used
        server._replies.clear()


def test_an_answer_cut_off_by_a_dead_stream_is_marked_and_try_again_asks_anew(
    chat, qtbot, llm_server: ScriptedLLMServer
) -> None:
    llm_server.script(Reply.disconnect("The first half of"), Reply.error(401), Reply.error(401))
    with qtbot.waitSignal(chat.turn_finished, timeout=30_000) as done:
        type_and_enter(qtbot, chat, "Tell me a story")
    assert done.args == ["failed"]
    answer = chat.transcript.messages()[-1]
    assert answer.role == "assistant" and answer.cut_off
    shown = answer.shown_text().strip()
    assert shown and "The first half of".startswith(shown)
    assert answer.try_again_button is not None
    qtbot.waitUntil(lambda: answer.try_again_button.isVisibleTo(answer), timeout=5_000)
    store = chat.backend.store
    assert [m.text for m in store.messages(chat.session_id)] == ["Tell me a story", answer.text]
    assert store.cut_off_indexes(chat.session_id) == {1}

    _clear_script(llm_server)
    llm_server.script(Reply.say("Once upon a time, the end."))
    with qtbot.waitSignal(chat.turn_finished, timeout=30_000) as done:
        answer.try_again_button.click()
    assert done.args == ["completed"]
    assert [m.shown_text().strip() for m in chat.transcript.messages()] == [
        "Tell me a story",
        "Once upon a time, the end.",
    ]
    sent = llm_server.requests[-1].body["messages"]
    assert [(m["role"], m["content"]) for m in sent if m["role"] != "system"] == [("user", "Tell me a story")]

    # Reopened: the cut-off answer is still there, marked; Try again belongs to the last answer only.
    session = chat.session_id
    chat.new_session()
    chat.open_session(session)
    blocks = chat.transcript.messages()
    assert [b.cut_off for b in blocks] == [False, True, False]
    assert not blocks[1].try_again_button.isVisibleTo(blocks[1])


def test_an_answer_cut_off_by_a_killed_app_shows_as_cut_off_when_reopened(
    chat, qtbot, llm_server: ScriptedLLMServer, relavium_home: Path
) -> None:
    store = chat.backend.store
    sid = store.create(title="Killed midway", agent_id="chat", mode="confirm").id
    store.append_message(sid, Message.user("What is a monad?"))
    store.save_partial(sid, "A monad is a")
    conn = sqlite3.connect(history_db_path(relavium_home))  # written by a process that is gone now
    conn.execute("UPDATE chat_partials SET owner_started = ?", (this_process().started - 3600,))
    conn.commit()
    conn.close()

    chat.open_session(sid)
    _question, answer = chat.transcript.messages()
    assert answer.shown_text().strip() == "A monad is a" and answer.cut_off
    assert answer.try_again_button.isVisibleTo(answer)
    llm_server.script(Reply.say("A monad is a monoid in the category of endofunctors."))
    with qtbot.waitSignal(chat.turn_finished, timeout=30_000):
        answer.try_again_button.click()
    assert chat.transcript.messages()[-1].shown_text().strip().endswith("endofunctors.")
    assert [
        (m["role"], m["content"]) for m in llm_server.requests[-1].body["messages"] if m["role"] != "system"
    ] == [("user", "What is a monad?")]
