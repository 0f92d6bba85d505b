"""A chat agent's ``input_schema`` refuses a message it does not allow, before it is stored or sent.

The same refusal shape as a refused attachment (``ValueError`` with the
reason): the scripted server receives nothing and the history stays empty.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relavium_desktop.application.stores import session_store
from relavium_desktop.application.tools import surface_host, tool_registry
from relavium_desktop.engine.agent.chat import ChatSession
from relavium_desktop.engine.agent.mode_ids import ChatMode
from relavium_desktop.engine.agent.modes import SessionApprovals
from relavium_desktop.engine.agent.spec import AgentSpec
from tests.engine.agent.conftest import Rig
from tests.fixtures.llm_server import Reply


async def test_a_message_the_input_schema_refuses_is_neither_stored_nor_sent(rig: Rig, relavium_home: Path) -> None:
    store = session_store(relavium_home)
    spec = AgentSpec.model_validate({"id": "chat", "provider": "openai", "model": "gpt-4o-mini",
                                     "input_schema": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"}})
    info = store.create(title="t", agent_id="chat", mode=str(ChatMode.AUTO))
    host = surface_host(rig.workspace, surface="chat", home=rig.home)
    session = ChatSession(session_id=info.id, spec=spec, providers=rig.providers(), registry=tool_registry(host, home=rig.home),
                          store=store, approvals=SessionApprovals(ChatMode.AUTO, None), emit=rig.record)
    with pytest.raises(ValueError, match=r"input does not match the agent's input_schema \(pattern: "):
        await session.send("please look at ticket 12")
    assert rig.server.requests == [] and store.messages(info.id) == []

    rig.server.script(Reply.say("Looking at ABC-12."))
    result = await session.send("ABC-12")
    assert result.failure is None
    assert rig.server.requests[0].body["messages"][-1]["content"] == "ABC-12"
