"""Stream one model turn through the agent's route: primary, then fallbacks.

A retryable provider error (rate limit, unavailable) moves on to the next
entry of ``fallback_chain`` within the same attempt; an entry with
``max_attempts > 1`` is retried first, waiting ``Retry-After`` when the
provider sent one.  Non-retryable errors (auth, validation, content filter)
stop at once: another model would not fix a bad key or a refused prompt.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.events import (
    AgentProviderFallback,
    AgentReasoning,
    AgentToken,
    Emit,
    ModelRoute,
)
from relavium_desktop.engine.llm.errors import ProviderError, ProviderErrorCode
from relavium_desktop.engine.llm.messages import (
    MediaBlob,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
)
from relavium_desktop.engine.llm.provider import ChatRequest, Provider
from relavium_desktop.engine.llm.stream import (
    ReasoningDelta,
    StopEvent,
    TextDelta,
    ToolCallEvent,
    UsageEvent,
)
from relavium_desktop.engine.llm.tools import ToolSpec

ProviderLookup = Callable[[str], Provider]
Sleep = Callable[[float], Awaitable[None]]
MAX_RETRY_AFTER_S = 30.0


@dataclass(frozen=True, slots=True)
class Route:
    provider: str
    model: str
    max_attempts: int = 1


def routes_of(spec: AgentSpec) -> list[Route]:
    return [Route(spec.provider, spec.model)] + [
        Route(f.provider, f.model, f.max_attempts) for f in spec.fallback_chain
    ]


@dataclass(slots=True)
class StreamedTurn:
    route: Route
    message: Message
    calls: list[ToolCallEvent] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    stop: str = "end_turn"


async def _stream_once(
    provider: Provider, route: Route, request: ChatRequest, emit: Emit, node_id: str
) -> StreamedTurn:
    text: list[str] = []
    reasoning: list[str] = []
    turn = StreamedTurn(route=route, message=Message("assistant", ()))
    async for ev in provider.stream(request):
        if isinstance(ev, TextDelta):
            text.append(ev.text)
            emit(AgentToken(node_id=node_id, token=ev.text, model=route.model))
        elif isinstance(ev, ReasoningDelta):
            reasoning.append(ev.text)
            emit(AgentReasoning(node_id=node_id, token=ev.text, model=route.model))
        elif isinstance(ev, ToolCallEvent):
            turn.calls.append(ev)
        elif isinstance(ev, UsageEvent):
            turn.input_tokens += ev.input_tokens
            turn.output_tokens += ev.output_tokens
        elif isinstance(ev, StopEvent):
            turn.stop = ev.reason
    if turn.stop == "content_filter":
        raise ProviderError(
            ProviderErrorCode.CONTENT_FILTER, f"{provider.name}: the provider's content filter stopped the reply"
        )
    parts: list[Part] = []
    if reasoning:
        parts.append(ReasoningPart("".join(reasoning)))
    if text:
        parts.append(TextPart("".join(text)))
    parts.extend(ToolCallPart(c.call_id, c.name, dict(c.args)) for c in turn.calls)
    turn.message = Message("assistant", tuple(parts))
    return turn


async def stream_turn(
    spec: AgentSpec,
    lookup: ProviderLookup,
    history: Sequence[Message],
    tools: Sequence[ToolSpec],
    *,
    emit: Emit,
    node_id: str,
    sleep: Sleep = asyncio.sleep,
    media: Mapping[str, MediaBlob] | None = None,
) -> StreamedTurn:
    last: ProviderError | None = None
    routes = routes_of(spec)
    for index, route in enumerate(routes):
        request = ChatRequest(
            model=route.model,
            messages=list(history),
            system=spec.system_prompt or None,
            tools=list(tools),
            temperature=spec.temperature,
            max_tokens=spec.max_tokens,
            media=media or {},
        )
        for attempt in range(route.max_attempts):
            try:
                return await _stream_once(lookup(route.provider), route, request, emit, node_id)
            except ProviderError as exc:
                if not exc.retryable:
                    raise
                last = exc
                if attempt + 1 < route.max_attempts:
                    await sleep(min(exc.retry_after or 1.0, MAX_RETRY_AFTER_S))
        if index + 1 < len(routes):
            nxt = routes[index + 1]
            emit(AgentProviderFallback(
                node_id=node_id,
                from_=ModelRoute(provider=route.provider, model=route.model),
                to=ModelRoute(provider=nxt.provider, model=nxt.model),
                error=last.info() if last else None,
            ))
    assert last is not None
    raise last
