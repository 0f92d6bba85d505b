"""Partial answers: saved as they stream, kept as cut off when the turn dies, never two user turns in a row.

Real ChatSession, real history store, the scripted wire-format server.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.application.stores import session_store
from relavium_desktop.application.tools import surface_host, tool_registry
from relavium_desktop.engine.agent.chat import ChatSession
from relavium_desktop.engine.agent.mode_ids import ChatMode
from relavium_desktop.engine.agent.modes import SessionApprovals
from relavium_desktop.engine.agent.session import NO_ANSWER_TEXT
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.events import RunEvent
from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.store.db import history_db_path
from relavium_desktop.store.runs import this_process
from relavium_desktop.store.sessions import SqliteSessionStore
from tests.engine.agent.conftest import Rig
from tests.fixtures.llm_server import Reply


@pytest.fixture
def store(relavium_home: Path) -> SqliteSessionStore:
    return session_store(relavium_home)


class CountingStore:
    """The real store, counting the draft writes (a spy, not a stand-in: every call goes through)."""

    def __init__(self, store: SqliteSessionStore) -> None:
        self._store = store
        self.saves: list[str] = []

    def save_partial(self, session_id: str, text: str) -> None:
        self.saves.append(text)
        self._store.save_partial(session_id, text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def _session(rig: Rig, store: Any, **kw: Any) -> ChatSession:
    spec = AgentSpec.model_validate(
        {
            "id": "chat",
            "provider": "openai",
            "model": "gpt-4o-mini",
            "system_prompt": "You help.",
            "tools": [],
        }
    )
    info = store.create(title="t", agent_id="chat", mode="auto")
    host = surface_host(rig.workspace, surface="chat", home=rig.home)
    return ChatSession(
        session_id=info.id,
        spec=spec,
        providers=rig.providers(),
        registry=tool_registry(host, home=rig.home),
        store=store,
        approvals=SessionApprovals(ChatMode.AUTO, None),
        emit=rig.record,
        **kw,
    )


def _tokens(rig: Rig) -> str:
    return "".join(e["token"] for e in rig.events if e["type"] == "agent:token")


def _sent(rig: Rig) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in rig.server.requests[-1].body["messages"]]


async def test_an_answer_cut_off_by_a_dead_stream_is_kept_marked_and_alternation_holds(
    rig: Rig, store: SqliteSessionStore
) -> None:
    # The stream dies after its first words; a retry (if any) is refused, so the turn fails.
    rig.server.script(Reply.disconnect("partial answer that never"), Reply.error(401), Reply.error(401))
    session = _session(rig, store)
    result = await session.send("tell me everything")
    assert result.status == "failed"
    shown = _tokens(rig)
    assert shown and "partial answer that never".startswith(shown)
    messages = store.messages(session.session_id)
    assert [(m.role, m.text) for m in messages] == [("user", "tell me everything"), ("assistant", shown)]
    assert store.cut_off_indexes(session.session_id) == {1} and store.partial(session.session_id) is None

    with rig.server._lock:  # whichever of the scripted refusals no retry used
        rig.server._replies.clear()
    rig.server.script(Reply.say("all of it"))
    again = await session.send("go on")
    assert again.status == "completed"
    assert _sent(rig) == [
        ("system", "You help."),
        ("user", "tell me everything"),
        ("assistant", shown),
        ("user", "go on"),
    ]
    assert store.cut_off_indexes(session.session_id) == {1}  # the finished answer is not cut off


async def test_a_question_without_an_answer_never_makes_two_user_turns_in_a_row(
    rig: Rig, store: SqliteSessionStore
) -> None:
    rig.server.script(Reply.error(401))  # fails before a word: nothing to keep
    session = _session(rig, store)
    assert (await session.send("first question")).status == "failed"
    assert [m.role for m in store.messages(session.session_id)] == ["user"]
    assert store.cut_off_indexes(session.session_id) == set()

    rig.server.script(Reply.say("answering the second"))
    assert (await session.send("second question")).status == "completed"
    assert _sent(rig) == [
        ("system", "You help."),
        ("user", "first question"),
        ("assistant", NO_ANSWER_TEXT),
        ("user", "second question"),
    ]
    # Only what was sent gets the placeholder: the stored history is as it happened.
    assert [m.role for m in store.messages(session.session_id)] == ["user", "user", "assistant"]


async def test_the_answer_is_saved_as_it_grows_at_most_once_a_second(
    rig: Rig, store: SqliteSessionStore
) -> None:
    rig.server.script(Reply.say("one two three four five six seven eight nine ten eleven twelve"))
    ticks = iter(x * 0.4 for x in range(1000))  # each token arrives 0.4 s after the last
    spy = CountingStore(store)
    seen: list[str | None] = []

    def emit(event: RunEvent) -> None:
        rig.record(event)
        if event.TYPE == "agent:token":
            seen.append(store.partial(session.session_id))

    session = _session(rig, spy, clock=lambda: next(ticks))
    session.emit = emit
    outcome = await session.send("count")
    assert outcome.status == "completed", outcome.failure
    tokens = [e["token"] for e in rig.events if e["type"] == "agent:token"]
    assert len(tokens) >= 3
    # The first token is saved at once; later ones only once a second has passed since the last save.
    assert spy.saves[0] == tokens[0]
    assert len(spy.saves) == len(range(0, len(tokens), 3))
    assert all(spy.saves[i + 1].startswith(spy.saves[i]) for i in range(len(spy.saves) - 1))
    # The finished answer replaced the draft.
    assert store.partial(session.session_id) is None
    assert store.messages(session.session_id)[-1].text == "".join(tokens)
    assert store.cut_off_indexes(session.session_id) == set()


def test_a_draft_of_a_live_process_streams_on_and_a_dead_ones_is_kept_cut_off(
    store: SqliteSessionStore, relavium_home: Path
) -> None:
    sid = store.create(title="t", agent_id="chat", mode="auto").id
    store.append_message(sid, Message.user("question"))
    store.save_partial(sid, "half an ans")
    store.save_partial(sid, "half an answer")
    assert [m.role for m in store.messages(sid)] == ["user"]  # this process is alive: still streaming
    assert store.partial(sid) == "half an answer"

    conn = sqlite3.connect(history_db_path(relavium_home))  # as if written by a process now gone
    conn.execute("UPDATE chat_partials SET owner_started = ?", (this_process().started - 3600,))
    conn.commit()
    conn.close()
    messages = store.messages(sid)
    assert [(m.role, m.text) for m in messages] == [("user", "question"), ("assistant", "half an answer")]
    assert store.cut_off_indexes(sid) == {1} and store.partial(sid) is None


def test_a_draft_is_masked_like_any_stored_message(store: SqliteSessionStore, relavium_home: Path) -> None:
    secret = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"
    sid = store.create(title="t", agent_id="chat", mode="auto").id
    store.save_partial(sid, f"your key is {secret}")
    assert secret not in (store.partial(sid) or "")
    assert secret.encode() not in history_db_path(relavium_home).read_bytes()
