"""One prompt, one answer, no tools: what a clipboard action runs.

A clipboard action turns copied text into a result (summary, checklist, …);
it needs the model, not the machine, so it runs the agent loop with no tool
granted -- the copied text can ask for anything, and nothing is offered to
act on it.  Provider errors come back as :class:`OneShotError` with the
engine's fixed code, so the quick panel can say what to fix.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from relavium_desktop.application.tools import tool_registry
from relavium_desktop.engine.agent.loop import AgentLoop
from relavium_desktop.engine.agent.routing import ProviderLookup
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.engine.tools.tooldef import ToolDispatchContext


class OneShotError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


async def ask_once(spec: AgentSpec, providers: ProviderLookup, prompt: str, *, home: Path) -> str:
    """The model's text answer to ``prompt`` under ``spec``'s route, with no tools (``home``: the data folder)."""
    bare = spec.model_copy(update={"tools": []})
    ctx = ToolDispatchContext(run_id=f"clipboard-{uuid.uuid4().hex[:12]}", node_id="clipboard",
                              granted_tool_ids=frozenset())
    loop = AgentLoop(spec=bare, providers=providers, registry=tool_registry(home=home), ctx=ctx)
    result = await loop.run([Message.user(prompt)])
    if result.status != "completed":
        failure = result.failure
        raise OneShotError(failure.code if failure else "failed", failure.message if failure else "no answer")
    return result.text
