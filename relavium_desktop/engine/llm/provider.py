"""The Provider protocol: one streamed model turn, wire format hidden."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from relavium_desktop.engine.llm.messages import MediaBlob, Message
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
    # off | low | medium | high | max (engine/llm/reasoning.py maps it onto each provider's control).
    reasoning_effort: str | None = None
    # The bytes of every MediaPart in ``messages`` that could be resolved, by
    # handle: resolved per request, so history keeps handles only.  A part
    # without an entry is sent as a short text placeholder.
    media: Mapping[str, MediaBlob] = field(default_factory=dict)


@runtime_checkable
class Provider(Protocol):
    """Streams one turn; raises ``ProviderError`` with a closed code on failure.

    Cancelling the consuming task must close the underlying stream at once.
    """

    name: str

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]: ...


@runtime_checkable
class MediaInputAware(Protocol):
    """A provider that says which media kinds (``image``, ``pdf``) a model accepts as input.

    A provider without this method is treated as text-only: attaching media
    to a model that cannot see it would hand it a descriptor of something it
    never received (spec, read_media row).
    """

    def media_input(self, model: str) -> frozenset[str]: ...
