"""Events a provider stream yields, already decoded from its wire format.

A tool call arrives whole (the provider reassembles argument deltas); when
its arguments are not a JSON object, ``args_error`` says why so the loop can
hand the model a correctable ``invalid_args`` instead of crashing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

StopReason = Literal["end_turn", "tool_use", "max_tokens", "content_filter", "other"]


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str
    # Anthropic signs a thinking block (sent once, at its end); the signature lets it be replayed.
    signature: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCallEvent:
    call_id: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)
    args_error: str | None = None


@dataclass(frozen=True, slots=True)
class UsageEvent:
    """One reply's token counts, sent once per reply as the wire format totals them.

    ``input_tokens`` counts every prompt token, cached ones included;
    ``cache_read_tokens`` / ``cache_write_tokens`` say how many of them were
    read from or written to the provider's prompt cache, where the format
    carries it (Anthropic, OpenAI ``prompt_tokens_details``, Gemini
    ``cachedContentTokenCount``).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass(frozen=True, slots=True)
class StopEvent:
    reason: StopReason


StreamEvent = TextDelta | ReasoningDelta | ToolCallEvent | UsageEvent | StopEvent
