"""Agent nodes run by the real agent loop: the :class:`AgentNodeRunner` adapter.

The workflow engine hands over an :class:`AgentNodeRequest`; this module turns
its workflow-side agent (:class:`AgentDef` plus the node's overrides) into the
loop's :class:`AgentSpec` and drives one :class:`AgentLoop` to completion.
It lives on the workflow side so the dependency points one way
(``engine.workflow`` -> ``engine.agent``) and both stay pure: providers are
only a lookup function injected by the host layer, which builds them from its
settings, keyring and SSRF-guarded clients.

What a workflow agent node gets, and why:

- **Author trust.**  The dispatch context the engine built carries no approval
  regime: the workflow file was committed by its author, so the node's narrowed
  ``tools`` list is the grant, and guardrails plus the workflow's ``tools``
  policy (allowlists, floors, SSRF) still apply to every call.
- **Events.**  Tokens, tool calls and tool results flow into the run's stream
  through ``emit``.  The loop's per-turn ``cost:updated`` is held back and the
  node's usage is returned instead, because the engine owns ``cost:updated``
  (cumulative cost, attempt number, totals in ``run:completed``) — emitting
  both would count the money twice.
- **Retry and fallback.**  The fallback chain is the loop's (within one
  attempt); node-level retry is the engine's (``retry`` of the node or the
  agent), so this adapter never retries on its own — a loop failure becomes a
  :class:`NodeError` that keeps the loop's code and retryability.
- **output_schema.**  The loop has no structured-output request, so a schema
  (the node's, else the agent's) is honoured by instruction and by checking:
  the model is told to answer with JSON only, the reply is parsed as JSON and
  validated; prose where JSON was required fails the node with ``validation``.
- **invoke_agent** goes through the registry like any tool.  A delegate that
  names no agent node is fed back to the model as ``invalid_args`` (it can
  correct the id); a delegate that *fails* ends the caller with the
  delegate's own error (``provider_auth``, ``tool_denied``, …), not a generic
  ``tool_failed``, so the run says why and a retry happens only when the
  delegate's failure was retryable.
- **Cancellation** is asyncio cancellation of the node's task; the loop and
  any running tool stop at once and ``CancelledError`` propagates untouched.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from relavium_desktop.engine.agent.loop import DEFAULT_TURN_LIMIT, AgentLoop
from relavium_desktop.engine.agent.outcome import LoopResult
from relavium_desktop.engine.agent.pricing import usd_to_microcents
from relavium_desktop.engine.agent.routing import ProviderLookup
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.errors import InvalidArgsError, ToolFailedError
from relavium_desktop.engine.events import CostUpdated, Emit, RunEvent
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.engine.tools.tooldef import ToolDispatchContext
from relavium_desktop.engine.workflow.agent_input import check_agent_input
from relavium_desktop.engine.workflow.agents import AgentNodeError, AgentNodeRequest, AgentNodeResult
from relavium_desktop.engine.workflow.errors import NodeError
from relavium_desktop.engine.workflow.schema_check import check_output_schema

Sleep = Callable[[float], Awaitable[None]]

# Upstream workflows may name only a model; these prefixes say whose it is.
_PROVIDER_BY_MODEL_PREFIX: tuple[tuple[str, str], ...] = (
    ("claude", "anthropic"),
    ("gpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("gemini", "gemini"),
)
_FENCE = re.compile(r"^```[A-Za-z0-9_-]*\s*\n(?P<body>.*?)\n?```\s*$", re.DOTALL)


def infer_provider(model: str) -> str | None:
    """The provider entry a bare model id belongs to, when its family is unambiguous."""
    lowered = model.lower()
    for prefix, provider in _PROVIDER_BY_MODEL_PREFIX:
        if lowered.startswith(prefix):
            return provider
    return None


def schema_instruction(schema: JsonDict) -> str:
    """The system-prompt paragraph that asks for a reply matching ``schema``."""
    return (
        "Your final reply is read by a program, not a person. Reply with only one JSON value that "
        "matches this JSON Schema — no prose, no code fences:\n"
        + json.dumps(schema, ensure_ascii=False, sort_keys=True)
    )


def parse_json_reply(node_id: str, text: str) -> Any:
    """The model's final text as JSON (a single surrounding code fence is tolerated)."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group("body").strip()
    try:
        return json.loads(body)
    except ValueError:
        raise NodeError(
            "validation",
            f"agent node {node_id!r} has an output_schema but its reply is not JSON",
            reason="output_schema",
        ) from None


def spec_for(request: AgentNodeRequest) -> AgentSpec:
    """The loop's strict agent spec for this node: the agent plus the node's overrides."""
    agent = request.agent
    model = request.model or agent.model
    if not model:
        raise NodeError("validation", f"agent {agent.id!r} names no model (set model: on the agent or the node)")
    provider = agent.provider or infer_provider(model)
    if not provider:
        raise NodeError(
            "validation",
            f"agent {agent.id!r} names no provider and model {model!r} does not say whose it is; set provider:",
        )
    system = "\n\n".join(
        part for part in (agent.system_prompt, request.system_prompt_append,
                          _schema_text(request)) if part
    )
    data: JsonDict = {
        "id": agent.id,
        "name": agent.name or "",
        "description": agent.description or "",
        "provider": provider,
        "model": model,
        "system_prompt": system,
        "temperature": request.temperature if request.temperature is not None else agent.temperature,
        "max_tokens": request.max_tokens if request.max_tokens is not None else agent.max_tokens,
        "tools": list(request.tools),
        "fallback_chain": [entry.model_dump() for entry in agent.fallback_chain or []],
        "reasoning_effort": agent.reasoning_effort,
    }
    try:
        return AgentSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "agent"
        raise NodeError("validation", f"agent {agent.id!r}: {where}: {first.get('msg', 'invalid value')}") from None


def _schema(request: AgentNodeRequest) -> JsonDict | None:
    return request.output_schema if request.output_schema is not None else request.agent.output_schema


def _schema_text(request: AgentNodeRequest) -> str | None:
    schema = _schema(request)
    return schema_instruction(schema) if schema is not None else None


def _result(request: AgentNodeRequest, spec: AgentSpec, loop_result: LoopResult) -> AgentNodeResult:
    schema = _schema(request)
    output: Any = loop_result.text
    if schema is not None:
        output = parse_json_reply(request.node_id, loop_result.text)
        # The engine checks the node's own schema; the agent-level one is checked here.
        if request.output_schema is None:
            check_output_schema(request.node_id, output, schema)
    return _with_usage(output, spec, loop_result)


def _with_usage(output: Any, spec: AgentSpec, loop_result: LoopResult) -> AgentNodeResult:
    """The loop's summed usage (every streamed turn, whether the loop finished or not)."""
    usage = loop_result.usage
    cost = sum(u.cost_usd or 0.0 for u in usage)
    return AgentNodeResult(
        output,
        input_tokens=sum(u.input_tokens for u in usage),
        output_tokens=sum(u.output_tokens for u in usage),
        model=usage[-1].model if usage else spec.model,
        cost_microcents=usd_to_microcents(cost),
    )


def _guard_delegate(ctx: ToolDispatchContext, failures: list[NodeError]) -> ToolDispatchContext:
    """Wrap ``invoke_agent`` so a delegate's NodeError keeps its meaning through the registry."""
    delegate = ctx.invoke_agent
    if delegate is None:
        return ctx

    async def invoke(target: str, payload: Any) -> Any:
        try:
            return await delegate(target, payload)
        except NodeError as exc:
            # The engine's own refusals of the target (not an agent node, itself, too deep)
            # are the model's mistake: correctable, like a wrong argument.
            if exc.code == "validation" and exc.message.startswith("invoke_agent:"):
                raise InvalidArgsError(exc.message) from None
            failures.append(exc)
            raise ToolFailedError(f"invoke_agent {target!r} failed: {exc.code}: {exc.message}") from None

    return dataclasses.replace(ctx, invoke_agent=invoke)


@dataclass(slots=True)
class AgentLoopRunner:
    """Runs workflow agent nodes (and ``invoke_agent`` delegations) with :class:`AgentLoop`.

    ``providers`` is the host's lookup from a provider entry name to a built
    provider; it raises ``ProviderError`` for an unknown entry or an
    unresolvable key, which the loop turns into the node's failure.
    """

    providers: ProviderLookup
    sleep: Sleep | None = None
    default_turn_limit: int = DEFAULT_TURN_LIMIT

    async def run_agent(self, request: AgentNodeRequest, emit: Emit) -> AgentNodeResult:
        spec = spec_for(request)
        check_agent_input(request.agent, request.node_id, request.prompt)  # input_schema, before any request
        delegate_failures: list[NodeError] = []

        def forward(event: RunEvent) -> object:
            # The engine, not the adapter, emits cost:updated (see the module docstring).
            if isinstance(event, CostUpdated):
                return None
            return emit(event)

        loop = AgentLoop(
            spec=spec,
            providers=self.providers,
            registry=request.registry,
            ctx=_guard_delegate(request.tool_context, delegate_failures),
            emit=forward,
            turn_limit=request.agent.max_turns or self.default_turn_limit,
        )
        loop.pre_egress = request.pre_egress
        if request.own_retry:
            loop.provider_retry = None  # the workflow's retry: wins (and waits at least Retry-After)
        if self.sleep is not None:
            loop.sleep = self.sleep
        result = await loop.run([Message.user(request.prompt)])
        if result.status != "completed":
            failure = result.failure
            if failure is None:  # defensive: the loop always names why it stopped
                raise NodeError("internal", f"agent node {request.node_id!r} stopped without a reason")
            # Tokens streamed before the failure were spent: they ride on the error.
            spent = _with_usage(None, spec, result)
            if failure.code == "tool_failed" and failure.reason is None and delegate_failures:
                cause = delegate_failures[-1]
                raise AgentNodeError(cause.code, f"invoke_agent: {cause.message}", usage=spent,
                                     retryable=cause.retryable, reason=cause.reason)
            raise AgentNodeError(failure.code, failure.message, usage=spent, retryable=failure.retryable,
                                 reason=failure.reason, retry_after=failure.retry_after)
        try:
            return _result(request, spec, result)
        except AgentNodeError:
            raise
        except NodeError as exc:  # a reply that misses its output_schema was still paid for
            raise AgentNodeError(exc.code, exc.message, usage=_with_usage(None, spec, result),
                                 retryable=exc.retryable, reason=exc.reason) from None
