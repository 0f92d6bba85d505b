"""How a loop, a turn or a run ended: one shape for the CLI, events and store."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from relavium_desktop.engine.events import ErrorInfo
from relavium_desktop.engine.llm.messages import Message

TURN_LIMIT = "turn_limit"


@dataclass(frozen=True, slots=True)
class AgentFailure:
    code: str
    message: str
    reason: str | None = None
    retryable: bool = False
    # A provider's Retry-After: a configured retry never waits less (engine/llm/retry.py).
    retry_after: float | None = None
    # The text a stream had shown before it was cut (provider StreamCutError), kept for the surface.
    partial_text: str = ""

    def info(self) -> ErrorInfo:
        return ErrorInfo(code=self.code, reason=self.reason, message=self.message, retry_after=self.retry_after)

    def to_json(self) -> dict[str, Any]:
        return self.info().to_wire()


@dataclass(frozen=True, slots=True)
class UsageRecord:
    provider: str
    model: str
    input_tokens: int
    output_tokens: int
    cost_usd: float | None


@dataclass(slots=True)
class LoopResult:
    status: Literal["completed", "failed", "cancelled"]
    text: str = ""
    failure: AgentFailure | None = None
    new_messages: list[Message] = field(default_factory=list)
    usage: list[UsageRecord] = field(default_factory=list)
    tool_turns: int = 0
