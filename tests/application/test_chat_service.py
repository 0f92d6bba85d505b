"""The chat use case both surfaces call (application/chat.py), against the scripted LLM server over HTTP.

Real parts: history.db in a temp RELAVIUM_HOME, providers.yaml pointing at
``tests/fixtures/llm_server.py``, the real tool host pinned on a temp project.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.application.app import Application
from relavium_desktop.application.chat import ChatService, RouteError
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.engine.agent.mode_ids import ChatMode
from relavium_desktop.engine.llm.messages import MediaPart
from tests.cli.llm_cli import KEY, write_providers
from tests.fixtures.llm_server import Reply, ScriptedLLMServer

ROUTE = "scripted-openai/gpt-4o-mini"


@pytest.fixture
def app(relavium_home: Path, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch) -> Any:
    write_providers(relavium_home, llm_server.base_url)
    monkeypatch.setenv("RELAVIUM_TEST_KEY", KEY)
    application = Application(AppPaths(relavium_home))
    yield application
    application.close()


def sent_text(request: Any) -> list[tuple[str, str]]:
    return [(m["role"], m["content"] if isinstance(m["content"], str) else json.dumps(m["content"]))
            for m in request.body["messages"] if m["role"] != "system"]


async def test_nothing_is_stored_until_the_first_message(app: Application, tmp_path: Path,
                                                         llm_server: ScriptedLLMServer) -> None:
    chat = ChatService(app)
    created: list[str] = []
    conversation = await chat.open(project=tmp_path, model=ROUTE, on_created=lambda info: created.append(info.id))
    conversation.set_mode(ChatMode.AUTO)
    conversation.rename("Chosen early")
    assert conversation.session_id is None and app.sessions().list_sessions() == []
    with pytest.raises(ValueError, match="nothing to continue"):
        await conversation.resume()
    assert app.sessions().list_sessions() == []

    llm_server.script(Reply.say("Hello there."))
    result = await conversation.send("hi")
    assert result.status == "completed" and result.text == "Hello there."
    [info] = app.sessions().list_sessions()
    assert created == [info.id] and (info.title, info.mode, info.message_count) == ("Chosen early", "auto", 2)
    await chat.aclose()


async def test_every_event_of_every_turn_has_the_envelope_and_the_next_sequence_number(
    app: Application, tmp_path: Path, llm_server: ScriptedLLMServer,
) -> None:
    chat = ChatService(app)
    events: list[dict[str, Any]] = []
    conversation = await chat.open(project=tmp_path, model=ROUTE, on_event=events.append)
    llm_server.script(Reply.say("One."), Reply.say("Two."))
    await conversation.send("first")
    await conversation.send("second")
    sid = conversation.session_id
    assert sid is not None
    assert [e["sequenceNumber"] for e in events] == list(range(len(events)))
    assert all(e["sessionId"] == sid and e["timestamp"].endswith("Z") for e in events)
    kinds = [e["type"] for e in events]
    assert kinds.count("chat:turn_completed") == 2 and "agent:token" in kinds
    await chat.aclose()


async def test_a_turn_that_raises_ends_with_a_taxonomy_coded_failure_event(
    app: Application, tmp_path: Path, llm_server: ScriptedLLMServer,
) -> None:
    """An attachment this process never published is refused before anything reaches the model."""
    chat = ChatService(app)
    events: list[dict[str, Any]] = []
    conversation = await chat.open(project=tmp_path, model=ROUTE, on_event=events.append)
    with pytest.raises(ValueError, match="was not added in this app session"):
        await conversation.send("look", [MediaPart("sha256:" + "0" * 64, "image/png", "shot.png")])
    [failed] = [e for e in events if e["type"] == "chat:turn_failed"]
    assert failed["error"]["code"] == "validation" and "shot.png" in failed["error"]["message"]
    assert isinstance(failed["sessionId"], str) and failed["sequenceNumber"] == 0  # stamped like every event
    # The refused first message was never stored, so neither is its session.
    assert conversation.session_id is None and app.sessions().list_sessions() == []
    assert llm_server.requests == []
    await chat.aclose()


async def test_the_model_is_the_surfaces_then_the_apps_default_then_the_agents(
    app: Application, relavium_home: Path, tmp_path: Path, llm_server: ScriptedLLMServer,
) -> None:
    chat = ChatService(app)
    assert chat.resolve_agent(None, None).model != "from-defaults"  # no defaults.json: the agent's own
    (relavium_home / "defaults.json").write_text(json.dumps({"model": "scripted-openai/from-defaults"}))
    llm_server.script(Reply.say("A."), Reply.say("B."))
    await (await chat.open(project=tmp_path)).send("default please")
    await (await chat.open(project=tmp_path, model="scripted-openai/xyz")).send("xyz please")
    assert [r.body["model"] for r in llm_server.requests] == ["from-defaults", "xyz"]
    with pytest.raises(RouteError, match=r"'nope' is not a model route; expected provider/model"):
        await chat.open(project=tmp_path, model="nope")
    with pytest.raises(LookupError):
        await chat.open(session_id="0" * 16, project=tmp_path)
    await chat.aclose()


async def test_regenerate_sends_the_history_cut_after_the_last_question(
    app: Application, tmp_path: Path, llm_server: ScriptedLLMServer,
) -> None:
    chat = ChatService(app)
    conversation = await chat.open(project=tmp_path, model=ROUTE)
    llm_server.script(Reply.say("A poor answer."), Reply.say("A better answer."))
    await conversation.send("explain")
    await conversation.resume(cut="keep_question")
    assert sent_text(llm_server.requests[1]) == [("user", "explain")]
    assert conversation.session_id is not None
    stored = [m.text for m in app.sessions().messages(conversation.session_id)]
    assert stored == ["explain", "A poor answer.", "A better answer."]  # nothing stored was removed
    await chat.aclose()


async def test_a_resumed_session_keeps_its_mode_and_history(
    app: Application, tmp_path: Path, llm_server: ScriptedLLMServer,
) -> None:
    chat = ChatService(app)
    first = await chat.open(project=tmp_path, model=ROUTE, mode=ChatMode.READ_ONLY)
    llm_server.script(Reply.say("Noted: Ada."), Reply.say("Ada."))
    await first.send("my name is Ada")
    again = await ChatService(app).open(session_id=first.session_id, project=tmp_path, model=ROUTE)
    assert again.mode is ChatMode.READ_ONLY
    await again.send("my name?")
    assert sent_text(llm_server.requests[1]) == [("user", "my name is Ada"), ("assistant", "Noted: Ada."),
                                                 ("user", "my name?")]
    await chat.aclose()


async def test_a_refused_first_message_leaves_no_session(
    app: Application, tmp_path: Path, llm_server: ScriptedLLMServer,
) -> None:
    """The agent's input_schema refuses the message before it is stored: no empty session is listed."""
    from relavium_desktop.application.chat import default_agent

    agent = default_agent().model_copy(update={"id": "ticket", "input_schema": {"type": "string", "maxLength": 5}})
    chat = ChatService(app)
    events: list[dict[str, Any]] = []
    conversation = await chat.open(project=tmp_path, agent=agent, model=ROUTE, on_event=events.append)
    with pytest.raises(ValueError, match="input_schema"):
        await conversation.send("far too long for this agent")
    assert app.sessions().list_sessions() == [] and conversation.session_id is None
    assert [e["type"] for e in events] == ["chat:turn_failed"] and events[0]["error"]["code"] == "validation"
    llm_server.script(Reply.say("OK."))
    assert (await conversation.send("ABC-1")).status == "completed"
    assert [s.title for s in app.sessions().list_sessions()] == ["ABC-1"]
    await chat.aclose()
