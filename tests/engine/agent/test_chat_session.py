"""A chat session's turns against the scripted server, a real host and the real history store."""

from __future__ import annotations

from pathlib import Path

import pytest

from relavium_desktop.application.stores import session_store
from relavium_desktop.application.tools import surface_host, tool_registry
from relavium_desktop.engine.agent.chat import ChatSession
from relavium_desktop.engine.agent.mode_ids import ChatMode
from relavium_desktop.engine.agent.modes import SessionApprovals
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.llm.messages import ToolResultPart
from relavium_desktop.store.sessions import SqliteSessionStore
from tests.engine.agent.conftest import Rig
from tests.fixtures.llm_server import Reply


@pytest.fixture
def store(relavium_home: Path) -> SqliteSessionStore:
    return session_store(relavium_home)


def _session(rig: Rig, store: SqliteSessionStore, *, tools: list[str], offered: frozenset[str] | None = None,
             mode: ChatMode = ChatMode.AUTO) -> ChatSession:
    spec = AgentSpec.model_validate({"id": "chat", "provider": "openai", "model": "gpt-4o-mini",
                                     "system_prompt": "You help.", "tools": tools})
    info = store.create(title="t", agent_id="chat", mode=str(mode))
    host = surface_host(rig.workspace, surface="chat", home=rig.home)
    return ChatSession(session_id=info.id, spec=spec, providers=rig.providers(), registry=tool_registry(host, home=rig.home),
                       store=store, approvals=SessionApprovals(mode, None), emit=rig.record,
                       offered_tools=offered)


def _advertised(body: dict) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools", [])}


async def test_a_mode_offers_fewer_tools_than_it_grants_and_a_guessed_call_meets_the_mode(
    rig: Rig, store: SqliteSessionStore,
) -> None:
    rig.server.script(Reply.call("write_file", {"path": "notes.txt", "content": "overwritten"}),
                      Reply.say("never asked"))
    session = _session(rig, store, tools=["read_file", "write_file"], offered=frozenset({"read_file"}),
                       mode=ChatMode.READ_ONLY)
    result = await session.send("tidy my notes")
    assert _advertised(rig.server.requests[0].body) == {"read_file"}
    assert result.failure is not None and (result.failure.code, result.failure.reason) == (
        "tool_denied", "user_rejected")  # the mode's refusal, not "not granted to this node"
    assert (rig.workspace / "notes.txt").read_text() == "remember the milk\n"


async def test_a_refusal_keeps_its_reason_in_the_stored_history(rig: Rig, store: SqliteSessionStore) -> None:
    rig.server.script(Reply.call("run_command", {"command": "echo", "args": ["hi"]}))
    session = _session(rig, store, tools=["run_command"])  # no command allowlist: commands are off
    result = await session.send("say hi")
    assert result.status == "failed"
    stored = [p for m in store.messages(session.session_id) if m.role == "tool" for p in m.parts]
    assert len(stored) == 1 and isinstance(stored[0], ToolResultPart)
    assert stored[0].error_code == "tool_denied"
    assert stored[0].content.startswith("not run: tool_denied: ")
    assert len(stored[0].content) > len("not run: tool_denied: ") + 10  # the reason in words


async def test_resume_carries_on_without_storing_the_message_twice(rig: Rig, store: SqliteSessionStore) -> None:
    rig.server.script(Reply.error(401), Reply.say("here you go"))  # auth: no retry, no fallback
    session = _session(rig, store, tools=[])
    first = await session.send("hello?")
    assert first.status == "failed" and rig.server.pending == 1
    again = await session.resume()
    assert again.status == "completed" and again.text == "here you go"
    users = [m for m in store.messages(session.session_id) if m.role == "user"]
    assert [m.text for m in users] == ["hello?"]
    assert [m["content"] for m in rig.server.requests[-1].body["messages"] if m["role"] == "user"] == ["hello?"]


async def test_resume_of_an_empty_session_says_so(rig: Rig, store: SqliteSessionStore) -> None:
    session = _session(rig, store, tools=[])
    with pytest.raises(ValueError, match="nothing to continue"):
        await session.resume()
