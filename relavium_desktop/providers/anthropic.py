"""Anthropic Messages API, streamed (``POST /v1/messages``, ``stream: true``)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from relavium_desktop.engine.llm.messages import (
    MediaBlob,
    MediaPart,
    Message,
    NoticePart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from relavium_desktop.engine.llm.provider import ChatRequest
from relavium_desktop.engine.llm.reasoning import anthropic_thinking
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
from relavium_desktop.providers.http_base import HttpProvider, StreamIncomplete, loads_object
from relavium_desktop.providers.media_input import b64, placeholder, resolved
from relavium_desktop.providers.sse import SseEvent

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4_096
_STOP: dict[str, StopReason] = {
    "end_turn": "end_turn", "tool_use": "tool_use", "max_tokens": "max_tokens",
    "stop_sequence": "end_turn", "refusal": "content_filter",
}


# The bytes of a media part for this request, or None (a text placeholder is sent).
MediaLookup = Callable[[MediaPart], MediaBlob | None]


def _media_block(part: MediaPart, media: MediaLookup | None) -> dict[str, Any]:
    """An image or document block with a base64 source -- the only place the bytes appear."""
    blob = media(part) if media is not None else None
    if blob is None:
        return {"type": "text", "text": placeholder(part)}
    kind = "document" if blob.mime_type == "application/pdf" else "image"
    return {"type": kind, "source": {"type": "base64", "media_type": blob.mime_type, "data": b64(blob)}}


def _content(message: Message, media: MediaLookup | None = None) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextPart | NoticePart) and part.text:
            blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, MediaPart):
            blocks.append(_media_block(part, media))
        elif isinstance(part, ToolCallPart):
            blocks.append({"type": "tool_use", "id": part.call_id, "name": part.name, "input": part.args})
        elif isinstance(part, ToolResultPart):
            blocks.append({"type": "tool_result", "tool_use_id": part.call_id, "content": part.content,
                           "is_error": part.is_error})
        elif isinstance(part, ReasoningPart) and part.signature:
            # Signed thinking goes back as it came (first in the assistant turn, where it was):
            # with extended thinking on, Anthropic requires it in a tool loop's assistant turn.
            blocks.append({"type": "thinking", "thinking": part.text, "signature": part.signature})
        elif isinstance(part, ReasoningPart):
            continue  # unsigned thinking cannot be replayed; the text answer carries on
    return blocks


def to_wire_messages(messages: list[Message], media: MediaLookup | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        role = "assistant" if m.role == "assistant" else "user"  # tool results ride in a user turn
        blocks = _content(m, media)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


class AnthropicProvider(HttpProvider):
    kind = "anthropic"

    def build(self, request: ChatRequest, api_key: str | None) -> tuple[str, dict[str, str], dict[str, Any]]:
        body: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": to_wire_messages(
                list(request.messages),
                lambda part: resolved(request, part, self.media_input(request.model)),
            ),
            "stream": True,
        }
        if request.system:
            body["system"] = request.system
        thinking = None
        if request.reasoning_effort:
            thinking, body["max_tokens"] = anthropic_thinking(
                request.reasoning_effort, request.max_tokens, DEFAULT_MAX_TOKENS)
        if thinking is not None:
            body["thinking"] = thinking  # Anthropic refuses a temperature beside extended thinking
        elif request.temperature is not None:
            body["temperature"] = request.temperature
        if request.tools:
            body["tools"] = [{"name": t.name, "description": t.description, "input_schema": normalise_schema(t.parameters, "anthropic")}
                             for t in request.tools]
        headers = {"anthropic-version": API_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        return f"{self.base_url}/v1/messages", headers, body

    async def decode(self, events: AsyncIterator[SseEvent]) -> AsyncIterator[StreamEvent]:
        tools: dict[int, dict[str, Any]] = {}
        usage: dict[str, Any] = {}
        finished = False
        async for ev in events:
            data = json.loads(ev.data)
            kind = data.get("type")
            if kind == "message_start":
                usage.update(_counts(data.get("message", {}).get("usage")))
            elif kind == "content_block_start":
                block = data.get("content_block", {})
                if block.get("type") == "tool_use":
                    tools[data["index"]] = {"id": block.get("id", ""), "name": block.get("name", ""), "json": []}
                elif block.get("type") == "text" and block.get("text"):
                    yield TextDelta(block["text"])
            elif kind == "content_block_delta":
                delta = data.get("delta", {})
                dtype = delta.get("type")
                if dtype == "text_delta":
                    yield TextDelta(delta.get("text", ""))
                elif dtype == "thinking_delta":
                    yield ReasoningDelta(delta.get("thinking", ""))
                elif dtype == "signature_delta" and delta.get("signature"):
                    yield ReasoningDelta("", signature=str(delta["signature"]))
                elif dtype == "input_json_delta" and data.get("index") in tools:
                    tools[data["index"]]["json"].append(delta.get("partial_json", ""))
            elif kind == "content_block_stop" and data.get("index") in tools:
                t = tools.pop(data["index"])
                args, error = loads_object("".join(t["json"]))
                yield ToolCallEvent(t["id"], t["name"], args, error)
            elif kind == "message_delta":
                # The counts here are cumulative and win over message_start's (which some
                # servers, LiteLLM among them, send as 0 before the answer exists).
                usage.update(_counts(data.get("usage")))
                stop = data.get("delta", {}).get("stop_reason")
                if stop:
                    yield StopEvent(_STOP.get(stop, "other"))
            elif kind == "message_stop":
                finished = True
                break
        if not finished:
            raise StreamIncomplete
        yield usage_event(usage)

    def decode_json(self, data: Any) -> list[StreamEvent]:
        """A whole ``message`` object (a server that did not stream), as the stream's events."""
        if not isinstance(data, dict) or data.get("type") not in ("message", None) or "content" not in data:
            raise StreamIncomplete
        out: list[StreamEvent] = []
        for block in data.get("content") or []:
            btype = block.get("type")
            if btype == "text" and block.get("text"):
                out.append(TextDelta(block["text"]))
            elif btype == "thinking" and block.get("thinking"):
                out.append(ReasoningDelta(block["thinking"], signature=block.get("signature") or None))
            elif btype == "tool_use":
                args = block.get("input")
                error = None if isinstance(args, dict) else f"expected a JSON object, got {type(args).__name__}"
                out.append(ToolCallEvent(str(block.get("id", "")), str(block.get("name", "")),
                                         args if isinstance(args, dict) else {}, error))
        out.append(usage_event(_counts(data.get("usage"))))
        out.append(StopEvent(_STOP.get(str(data.get("stop_reason") or "end_turn"), "other")))
        return out


def _counts(usage: Any) -> dict[str, int]:
    """The token counts present in an Anthropic usage block (absent ones are not zeroed)."""
    if not isinstance(usage, dict):
        return {}
    keys = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return {k: int(usage[k]) for k in keys if isinstance(usage.get(k), int | float)}


def usage_event(usage: dict[str, Any]) -> UsageEvent:
    """Anthropic's ``input_tokens`` excludes cached tokens: the event's input counts them all."""
    write = int(usage.get("cache_creation_input_tokens", 0))
    read = int(usage.get("cache_read_input_tokens", 0))
    return UsageEvent(input_tokens=int(usage.get("input_tokens", 0)) + write + read,
                      output_tokens=int(usage.get("output_tokens", 0)),
                      cache_read_tokens=read, cache_write_tokens=write)
