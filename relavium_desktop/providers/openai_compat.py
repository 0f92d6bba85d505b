"""OpenAI Chat Completions, streamed; also local OpenAI-compatible servers.

One client for api.openai.com, OpenAI-compatible clouds and local servers
(Ollama, LM Studio, llama.cpp, vLLM): only the base URL, the key (optional
for local servers) and the entry's ``allow_local`` differ.
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
from relavium_desktop.engine.llm.reasoning import openai_effort
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

_STOP: dict[str, StopReason] = {
    "stop": "end_turn", "tool_calls": "tool_use", "function_call": "tool_use",
    "length": "max_tokens", "content_filter": "content_filter",
}


# The bytes of a media part for this request, or None (a text placeholder is sent).
MediaLookup = Callable[[MediaPart], MediaBlob | None]


def _user_content(m: Message, media: MediaLookup | None) -> str | list[dict[str, Any]]:
    """Plain text, or -- when the message carries media -- parts with ``image_url`` data URLs."""
    if not any(isinstance(p, MediaPart) for p in m.parts):
        return "".join(p.text for p in m.parts if isinstance(p, TextPart | NoticePart))
    parts: list[dict[str, Any]] = []
    for p in m.parts:
        if isinstance(p, TextPart | NoticePart) and p.text:
            parts.append({"type": "text", "text": p.text})
        elif isinstance(p, MediaPart):
            blob = media(p) if media is not None else None
            if blob is None:
                parts.append({"type": "text", "text": placeholder(p)})
            else:
                parts.append({"type": "image_url",
                              "image_url": {"url": f"data:{blob.mime_type};base64,{b64(blob)}"}})
    return parts


def to_wire_messages(
    system: str | None, messages: list[Message], media: MediaLookup | None = None
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for m in messages:
        if m.role == "tool":
            out.extend({"role": "tool", "tool_call_id": p.call_id, "content": p.content}
                       for p in m.parts if isinstance(p, ToolResultPart))
        elif m.role == "assistant":
            calls = [p for p in m.parts if isinstance(p, ToolCallPart)]
            if not m.text and not calls:
                continue  # an empty answer: no content and no calls is not a valid assistant message
            entry: dict[str, Any] = {"role": "assistant", "content": m.text or None}
            if calls:
                entry["tool_calls"] = [{"id": c.call_id, "type": "function",
                                        "function": {"name": c.name, "arguments": json.dumps(c.args)}}
                                       for c in calls]
            out.append(entry)
        else:
            out.append({"role": m.role, "content": _user_content(m, media)})
    return out


class OpenAICompatProvider(HttpProvider):
    kind = "openai"

    def build(self, request: ChatRequest, api_key: str | None) -> tuple[str, dict[str, str], dict[str, Any]]:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": to_wire_messages(
                request.system, list(request.messages),
                lambda part: resolved(request, part, self.media_input(request.model)),
            ),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.reasoning_effort:
            body["reasoning_effort"] = openai_effort(request.reasoning_effort)
            if request.max_tokens is not None:  # reasoning models take only this name for the cap
                body["max_completion_tokens"] = request.max_tokens
        elif request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        if request.tools:
            body["tools"] = [{"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": normalise_schema(t.parameters, "openai")}}
                for t in request.tools]
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        return f"{self.base_url}/chat/completions", headers, body

    async def decode(self, events: AsyncIterator[SseEvent]) -> AsyncIterator[StreamEvent]:
        calls: dict[int, dict[str, Any]] = {}
        usage: dict[str, Any] | None = None
        stop: StopEvent | None = None
        done = False
        async for ev in events:
            if ev.data.strip() == "[DONE]":
                done = True
                break
            data = json.loads(ev.data)
            # With stream_options.include_usage the last chunk carries the totals; some servers
            # repeat running totals on every chunk, so the last one seen wins (never summed).
            usage = data.get("usage") or usage
            for choice in data.get("choices") or []:
                delta = choice.get("delta") or {}
                if delta.get("reasoning_content"):
                    yield ReasoningDelta(delta["reasoning_content"])
                if delta.get("content"):
                    yield TextDelta(delta["content"])
                for tc in delta.get("tool_calls") or []:
                    slot = calls.setdefault(int(tc.get("index", 0)), {"id": "", "name": "", "args": []})
                    fn = tc.get("function") or {}
                    slot["id"] = tc.get("id") or slot["id"]
                    slot["name"] = fn.get("name") or slot["name"]
                    slot["args"].append(fn.get("arguments") or "")
                finish = choice.get("finish_reason")
                if finish:
                    for index in sorted(calls):
                        c = calls[index]
                        args, error = loads_object("".join(c["args"]))
                        yield ToolCallEvent(c["id"] or f"call_{index}", c["name"], args, error)
                    calls.clear()
                    stop = StopEvent(_STOP.get(finish, "other"))
        if not done and stop is None:
            raise StreamIncomplete
        if usage:
            yield usage_event(usage)
        if stop is not None:
            yield stop

    def decode_json(self, data: Any) -> list[StreamEvent]:
        """A whole ``chat.completion`` (a server that did not stream), as the stream's events."""
        if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
            raise StreamIncomplete
        out: list[StreamEvent] = []
        reason: StopReason = "end_turn"
        for choice in data["choices"][:1]:
            message = choice.get("message") or {}
            if message.get("reasoning_content"):
                out.append(ReasoningDelta(message["reasoning_content"]))
            if message.get("content"):
                out.append(TextDelta(message["content"]))
            for index, tc in enumerate(message.get("tool_calls") or []):
                fn = tc.get("function") or {}
                args, error = loads_object(fn.get("arguments") or "")
                out.append(ToolCallEvent(tc.get("id") or f"call_{index}", fn.get("name") or "", args, error))
            reason = _STOP.get(str(choice.get("finish_reason") or "stop"), "other")
        if data.get("usage"):
            out.append(usage_event(data["usage"]))
        out.append(StopEvent(reason))
        return out


def usage_event(usage: dict[str, Any]) -> UsageEvent:
    """``prompt_tokens`` already counts cached tokens; ``prompt_tokens_details`` says how many."""
    details = usage.get("prompt_tokens_details") or {}
    return UsageEvent(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0),
                      cache_read_tokens=int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0)
