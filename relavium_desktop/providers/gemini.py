"""Gemini ``streamGenerateContent`` with ``alt=sse``.

Gemini sends each function call whole (arguments as an object, no call id),
so ids are synthesised per turn; a call whose ``args`` is not an object is a
correctable ``invalid_args``.  The stream has no end marker beyond a
candidate's ``finishReason``; a stream without one was cut.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from relavium_desktop.engine.llm.messages import (
    MediaBlob,
    MediaPart,
    Message,
    NoticePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from relavium_desktop.engine.llm.provider import ChatRequest
from relavium_desktop.engine.llm.reasoning import gemini_thinking_budget
from relavium_desktop.engine.llm.schema_dialect import normalise_schema
from relavium_desktop.engine.llm.stream import (
    ReasoningDelta,
    StopEvent,
    StopReason,
    StreamEvent,
    TextDelta,
    ToolCallEvent,
    UsageEvent,
)
from relavium_desktop.providers.http_base import HttpProvider, StreamIncomplete
from relavium_desktop.providers.media_input import b64, placeholder, resolved
from relavium_desktop.providers.sse import SseEvent

_STOP: dict[str, StopReason] = {
    "STOP": "end_turn", "MAX_TOKENS": "max_tokens", "SAFETY": "content_filter",
    "RECITATION": "content_filter", "PROHIBITED_CONTENT": "content_filter", "BLOCKLIST": "content_filter",
    "SPII": "content_filter",
}


def _schema(value: Any) -> Any:
    """A tool's parameters in the subset Gemini's function declarations accept.

    Keyword-aware (engine/llm/schema_dialect): a property named ``title`` or
    ``default`` is kept, references are inlined, nullables collapsed.
    """
    return normalise_schema(value, "gemini")


# The bytes of a media part for this request, or None (a text placeholder is sent).
MediaLookup = Callable[[MediaPart], MediaBlob | None]


def to_wire_contents(messages: list[Message], media: MediaLookup | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        parts: list[dict[str, Any]] = []
        for p in m.parts:
            if isinstance(p, TextPart | NoticePart) and p.text:
                parts.append({"text": p.text})
            elif isinstance(p, MediaPart):
                blob = media(p) if media is not None else None
                parts.append({"text": placeholder(p)} if blob is None else
                             {"inline_data": {"mime_type": blob.mime_type, "data": b64(blob)}})
            elif isinstance(p, ToolCallPart):
                parts.append({"functionCall": {"name": p.name, "args": p.args}})
            elif isinstance(p, ToolResultPart):
                parts.append({"functionResponse": {"name": p.name, "response": {
                    "error" if p.is_error else "result": p.content}}})
        if not parts:
            continue
        role = "model" if m.role == "assistant" else "user"
        if out and out[-1]["role"] == role:
            out[-1]["parts"].extend(parts)  # tool results and the media after them: one user turn
        else:
            out.append({"role": role, "parts": parts})
    return out


class GeminiProvider(HttpProvider):
    kind = "gemini"

    def build(self, request: ChatRequest, api_key: str | None) -> tuple[str, dict[str, str], dict[str, Any]]:
        body: dict[str, Any] = {"contents": to_wire_contents(
            list(request.messages), lambda part: resolved(request, part, self.media_input(request.model)))}
        if request.system:
            body["systemInstruction"] = {"parts": [{"text": request.system}]}
        if request.tools:
            body["tools"] = [{"functionDeclarations": [
                {"name": t.name, "description": t.description, "parameters": _schema(t.parameters)}
                for t in request.tools]}]
        config: dict[str, Any] = {}
        if request.temperature is not None:
            config["temperature"] = request.temperature
        if request.max_tokens is not None:
            config["maxOutputTokens"] = request.max_tokens
        if request.reasoning_effort:
            config["thinkingConfig"] = {"thinkingBudget": gemini_thinking_budget(request.reasoning_effort,
                                                                                  request.model)}
        if config:
            body["generationConfig"] = config
        headers = {"x-goog-api-key": api_key} if api_key else {}
        url = f"{self.base_url}/v1beta/models/{request.model}:streamGenerateContent?alt=sse"
        return url, headers, body

    async def decode(self, events: AsyncIterator[SseEvent]) -> AsyncIterator[StreamEvent]:
        state = _Turn()
        async for ev in events:
            for event in state.chunk(json.loads(ev.data)):
                yield event
        for event in state.end():
            yield event

    def decode_json(self, data: Any) -> list[StreamEvent]:
        """A whole reply, or the JSON array of chunks ``streamGenerateContent`` sends without ``alt=sse``."""
        chunks = data if isinstance(data, list) else [data]
        if not all(isinstance(c, dict) and ("candidates" in c or "usageMetadata" in c) for c in chunks):
            raise StreamIncomplete
        state = _Turn()
        out: list[StreamEvent] = []
        for c in chunks:
            out.extend(state.chunk(c))
        out.extend(state.end())
        return out


class _Turn:
    """One reply's chunks: calls numbered, the last ``usageMetadata`` and finish reason kept."""

    def __init__(self) -> None:
        self.finish: str | None = None
        self.usage: dict[str, Any] = {}
        self.calls = 0

    def chunk(self, data: dict[str, Any]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        self.usage = data.get("usageMetadata") or self.usage
        for cand in data.get("candidates") or []:
            for part in (cand.get("content") or {}).get("parts") or []:
                if "functionCall" in part:
                    call = part["functionCall"]
                    args = call.get("args", {})
                    error = None if isinstance(args, dict) else f"expected a JSON object, got {type(args).__name__}"
                    out.append(ToolCallEvent(f"gemini_call_{self.calls}", str(call.get("name", "")),
                                             args if isinstance(args, dict) else {}, error))
                    self.calls += 1
                elif part.get("text"):
                    out.append(ReasoningDelta(part["text"]) if part.get("thought") else TextDelta(part["text"]))
            self.finish = cand.get("finishReason") or self.finish
        return out

    def end(self) -> list[StreamEvent]:
        if self.finish is None:
            raise StreamIncomplete
        u = self.usage
        # Thinking tokens are billed as output; cached tokens are part of the prompt count already.
        output = int(u.get("candidatesTokenCount") or 0) + int(u.get("thoughtsTokenCount") or 0)
        usage = UsageEvent(int(u.get("promptTokenCount") or 0), output,
                           cache_read_tokens=int(u.get("cachedContentTokenCount") or 0))
        return [usage, StopEvent("tool_use" if self.calls else _STOP.get(self.finish, "other"))]
