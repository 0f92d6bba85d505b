"""Server-sent events off an httpx streaming response (the subset LLMs use)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx


@dataclass(frozen=True, slots=True)
class SseEvent:
    event: str
    data: str


async def iter_sse(response: httpx.Response) -> AsyncIterator[SseEvent]:
    event, data = "", list[str]()
    async for line in response.aiter_lines():
        if line == "":
            if data:
                yield SseEvent(event or "message", "\n".join(data))
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    if data:
        yield SseEvent(event or "message", "\n".join(data))
