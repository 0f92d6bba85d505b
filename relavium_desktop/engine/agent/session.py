"""A chat session: its identity, its persisted history, its store seam.

The engine defines what a session is and what must be stored; ``store/``
implements the storage.  What is stored is masked and bounded on the way in
(:func:`storable_message`): tool arguments and results can carry a credential
that a tool printed, and history.db outlives the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from relavium_desktop.engine.agent.outcome import UsageRecord
from relavium_desktop.engine.llm.messages import (
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from relavium_desktop.engine.tools.masking import clip, mask_text, mask_value

# Per-part bound for stored tool results (the model-facing copy is already
# bounded by the registry; this caps what history.db keeps per message).
STORED_TOOL_RESULT_CHARS = 16_000
STORED_TEXT_CHARS = 200_000


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    title: str
    agent_id: str
    mode: str
    created_at: float
    updated_at: float
    message_count: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "agentId": self.agent_id, "mode": self.mode,
                "createdAt": self.created_at, "updatedAt": self.updated_at,
                "messageCount": self.message_count}


class SessionStore(Protocol):
    def create(self, *, title: str, agent_id: str, mode: str) -> SessionInfo: ...

    def get(self, session_id: str) -> SessionInfo | None: ...

    def list_sessions(self) -> list[SessionInfo]: ...

    def rename(self, session_id: str, title: str) -> bool: ...

    def delete(self, session_id: str) -> bool: ...

    def append_message(self, session_id: str, message: Message) -> None: ...

    def messages(self, session_id: str) -> list[Message]: ...

    def record_usage(self, session_id: str, usage: UsageRecord) -> None: ...


def _store_part(part: Part) -> Part:
    if isinstance(part, ToolResultPart):
        return replace(part, content=clip(mask_text(part.content), STORED_TOOL_RESULT_CHARS))
    if isinstance(part, ToolCallPart):
        masked = mask_value(dict(part.args))
        return replace(part, args=masked if isinstance(masked, dict) else {})
    if isinstance(part, TextPart | ReasoningPart):
        return replace(part, text=clip(mask_text(part.text), STORED_TEXT_CHARS))
    return part


def storable_message(message: Message) -> Message:
    """The masked, bounded copy of ``message`` that history.db keeps."""
    return Message(message.role, tuple(_store_part(p) for p in message.parts))


def title_from(messages: Sequence[Message], limit: int = 60) -> str:
    for m in messages:
        if m.role == "user" and m.text.strip():
            text = " ".join(mask_text(m.text).split())
            return text if len(text) <= limit else text[: limit - 1] + "…"
    return "New chat"
