"""Child process for the app's kill -9 test: one chat turn through the app's own chat backend.

It builds what the chat view builds for a turn without a project folder
(``ChatBackend``'s history.db store, providers.yaml and no-project registry,
the same ``ChatSession``) and prints the session id, then each token, as the
transcript would show it.  The window itself is not started: ten windows
under ``kill -9`` would cost minutes of the suite for no part of the turn the
backend does not already run.

Usage: python -m tests.ui.chat_kill_child ROUTE QUESTION   (RELAVIUM_HOME set)
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any


def main(route: str, question: str) -> int:
    from relavium_desktop.engine.agent.chat import ChatSession
    from relavium_desktop.engine.agent.mode_ids import parse_mode
    from relavium_desktop.engine.agent.session import title_from
    from relavium_desktop.engine.llm.messages import Message
    from relavium_desktop.ui.chat.backend import ChatBackend, default_agent, with_route

    backend = ChatBackend(Path(os.environ["RELAVIUM_HOME"]), None)
    spec = with_route(default_agent(), route).model_copy(update={"tools": []})
    info = backend.store.create(title=title_from([Message.user(question)]), agent_id=spec.id, mode="confirm")
    sys.stdout.write(f"session {info.id}\n")
    sys.stdout.flush()

    def on_event(event: Any) -> None:
        wire = event.to_wire()
        if wire.get("type") == "agent:token":
            sys.stdout.write(str(wire.get("token", "")))
            sys.stdout.flush()

    session = ChatSession(
        session_id=info.id,
        spec=spec,
        providers=backend.providers(),
        registry=backend.no_project_registry(),
        store=backend.store,
        approvals=backend.approvals(parse_mode("confirm"), None),
        emit=on_event,
        offered_tools=frozenset(),
    )
    result = asyncio.run(session.send(question))
    return 0 if result.status == "completed" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
