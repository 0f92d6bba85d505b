"""Stream one model turn through the agent's route: primary, then fallbacks.

A passing failure (429, 500, 502, 503, 529, a connection reset) is first
sent again on the same route under the retry policy (``engine/llm/retry``:
the server's ``Retry-After`` up to a cap, else capped exponential backoff
with jitter), each wait announced as ``agent:retrying`` so the user sees
"rate limited, retrying in 5 s".  An entry with ``max_attempts > 1`` gets at
least that many attempts.  Nothing is sent again once part of the answer
was shown (the user already read it).  Then a retryable error (rate limit,
unavailable) moves on to the next entry of ``fallback_chain``.
Non-retryable errors (auth, validation, content filter) stop at once:
another model would not fix a bad key or a refused prompt.  With no policy
(the agent or workflow set its own ``retry:``) only ``max_attempts`` retries
here, and the node-level retry does the rest.  With a ``fallback_chain``
the default policy applies to its last entry only: until then, the next
entry is the author's own answer to a failing model.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from relavium_desktop.engine.agent.egress_check import PreEgress
from relavium_desktop.engine.agent.held_stream import HeldStream
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.events import (
    AgentProviderFallback,
    AgentReasoning,
    AgentRetrying,
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
from relavium_desktop.engine.llm.retry import (
    DEFAULT_PROVIDER_RETRY,
    ProviderRetry,
    retry_message,
    wait_before,
)
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
MAX_RETRY_AFTER_S = DEFAULT_PROVIDER_RETRY.retry_after_cap_s


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
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    # Set as soon as a token was shown: such a request is never sent again.
    shown: bool = False


async def _stream_once(
    provider: Provider, route: Route, request: ChatRequest, emit: Emit, node_id: str, *, turn: StreamedTurn
) -> StreamedTurn:
    text: list[str] = []
    reasoning: list[str] = []
    signature: str | None = None
    # A key streamed in pieces is held back until it is whole, then masked (engine/agent/held_stream.py).
    shown_text, shown_reasoning = HeldStream(), HeldStream()

    def release() -> None:
        if piece := shown_reasoning.flush():
            emit(AgentReasoning(node_id=node_id, token=piece, model=route.model))
        if piece := shown_text.flush():
            emit(AgentToken(node_id=node_id, token=piece, model=route.model))

    try:
        async for ev in provider.stream(request):
            if isinstance(ev, TextDelta):
                text.append(ev.text)
                turn.shown = True
                if piece := shown_text.feed(ev.text):
                    emit(AgentToken(node_id=node_id, token=piece, model=route.model))
            elif isinstance(ev, ReasoningDelta):
                signature = ev.signature or signature
                if not ev.text:
                    continue  # a signature alone: nothing to show
                reasoning.append(ev.text)
                turn.shown = True
                if piece := shown_reasoning.feed(ev.text):
                    emit(AgentReasoning(node_id=node_id, token=piece, model=route.model))
            elif isinstance(ev, ToolCallEvent):
                turn.calls.append(ev)
            elif isinstance(ev, UsageEvent):
                turn.input_tokens += ev.input_tokens
                turn.output_tokens += ev.output_tokens
                turn.cache_read_tokens += ev.cache_read_tokens
                turn.cache_write_tokens += ev.cache_write_tokens
            elif isinstance(ev, StopEvent):
                turn.stop = ev.reason
    except ProviderError:
        release()  # what arrived before a failure is shown (and kept), as it always was
        raise
    release()
    if turn.stop == "content_filter":
        raise ProviderError(
            ProviderErrorCode.CONTENT_FILTER, f"{provider.name}: the provider's content filter stopped the reply"
        )
    parts: list[Part] = []
    if reasoning:
        parts.append(ReasoningPart("".join(reasoning), signature))
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
    retry: ProviderRetry | None = DEFAULT_PROVIDER_RETRY,
    rand: Callable[[], float] = random.random,
    pre_egress: PreEgress | None = None,
    spent_microcents: int = 0,
) -> StreamedTurn:
    """The turn from the first route that answers.

    ``pre_egress`` sees every request before it is sent (each attempt, each
    fallback entry) and may refuse it by raising ``EgressRefused``.
    """
    last: ProviderError | None = None
    routes = routes_of(spec)
    policy = retry or ProviderRetry(retries=0)
    for index, route in enumerate(routes):
        request = ChatRequest(
            model=route.model,
            messages=list(history),
            system=spec.system_prompt or None,
            tools=list(tools),
            temperature=spec.temperature,
            max_tokens=spec.max_tokens,
            reasoning_effort=spec.reasoning_effort,
            media=media or {},
        )
        # With a fallback_chain the next entry is the author's own answer to a failing model:
        # the default policy waits only on the last one (max_attempts still counts everywhere).
        last_route = index + 1 == len(routes)
        attempts = max(route.max_attempts, 1 + policy.retries if last_route else 1)
        attempt = 1
        while True:
            turn = StreamedTurn(route=route, message=Message("assistant", ()))
            if pre_egress is not None:
                pre_egress(route, request, spent_microcents)
            try:
                return await _stream_once(lookup(route.provider), route, request, emit, node_id, turn=turn)
            except ProviderError as exc:
                if not exc.retryable:
                    raise
                last = exc
                again = exc.transient or attempt < route.max_attempts
                if turn.shown or exc.partial_text or not again or attempt >= attempts:
                    break
                wait = wait_before(policy, attempt, exc, rand)
                attempt += 1
                emit(AgentRetrying(
                    node_id=node_id, attempt_number=attempt, max_attempts=attempts, delay_ms=wait.ms(),
                    message=retry_message(exc, wait, policy.retry_after_cap_s), provider=route.provider,
                    model=route.model, error=exc.info(), retry_after=wait.asked, capped=wait.capped or None,
                ))
                await sleep(wait.seconds)
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
