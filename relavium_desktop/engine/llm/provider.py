"""The Provider protocol: one streamed model turn, wire format hidden."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.engine.llm.stream import StreamEvent
from relavium_desktop.engine.llm.tools import ToolSpec


@dataclass(frozen=True, slots=True)
class ChatRequest:
    model: str
    messages: Sequence[Message]
    system: str | None = None
    tools: Sequence[ToolSpec] = field(default_factory=tuple)
    temperature: float | None = None
    max_tokens: int | None = None


@runtime_checkable
class Provider(Protocol):
    """Streams one turn; raises ``ProviderError`` with a closed code on failure.

    Cancelling the consuming task must close the underlying stream at once.
    """

    name: str

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]: ...
