"""The LLM provider seam: messages, tool specs, stream events, Provider protocol."""

from relavium_desktop.engine.llm.errors import ProviderError, ProviderErrorCode, StreamCutError
from relavium_desktop.engine.llm.messages import (
    MediaBlob,
    MediaPart,
    Message,
    NoticePart,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from relavium_desktop.engine.llm.provider import ChatRequest, MediaInputAware, Provider
from relavium_desktop.engine.llm.stream import (
    ReasoningDelta,
    StopEvent,
    StreamEvent,
    TextDelta,
    ToolCallEvent,
    UsageEvent,
)
from relavium_desktop.engine.llm.tools import ToolSpec, tool_specs

__all__ = [
    "ChatRequest",
    "MediaBlob",
    "MediaInputAware",
    "MediaPart",
    "Message",
    "NoticePart",
    "Part",
    "Provider",
    "ProviderError",
    "ProviderErrorCode",
    "ReasoningDelta",
    "ReasoningPart",
    "StopEvent",
    "StreamCutError",
    "StreamEvent",
    "TextDelta",
    "TextPart",
    "ToolCallEvent",
    "ToolCallPart",
    "ToolResultPart",
    "ToolSpec",
    "UsageEvent",
    "tool_specs",
]
