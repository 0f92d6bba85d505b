"""Child process for the app's kill -9 test: one chat turn through the app's own chat use case.

It runs what the chat view runs for a turn without a project folder
(``ChatService`` of application/chat.py over the history.db store and
providers.yaml, the same ``ChatConversation``) and prints the session id,
then each token, as the transcript would show it.  The window itself is not
started: ten windows under ``kill -9`` would cost minutes of the suite for no
part of the turn the use case does not already run.

Usage: python -m tests.ui.chat_kill_child ROUTE QUESTION   (RELAVIUM_HOME set)
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any


def main(route: str, question: str) -> int:
    from relavium_desktop.application.app import Application
    from relavium_desktop.application.chat import ChatService
    from relavium_desktop.engine.agent.mode_ids import parse_mode

    app = Application.from_environment()

    def created(info: Any) -> None:
        sys.stdout.write(f"session {info.id}\n")
        sys.stdout.flush()

    def on_event(event: dict[str, Any]) -> None:
        if event.get("type") == "agent:token":
            sys.stdout.write(str(event.get("token", "")))
            sys.stdout.flush()

    async def turn() -> str:
        chat = ChatService(app)
        conversation = await chat.open(project=None, mode=parse_mode("confirm"), model=route,
                                       on_event=on_event, on_created=created)
        return (await conversation.send(question)).status

    return 0 if asyncio.run(turn()) == "completed" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
