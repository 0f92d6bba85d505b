"""The run-event schema: every event the engine emits, its fields and their types.

The expected table is written by hand from the upstream run-event contract
(HodeTech/Relavium docs/reference/contracts/sse-event-schema.md) plus this
app's additive local events, so a model that drifts from the contract fails
here rather than in a consumer.  The drives at the bottom run a real workflow
(agent, tool, retry, gate, failure, timeout, cancel), a headless agent run
and chat turns against the scripted LLM server, and parse every emitted wire
event back through its model with extra fields forbidden.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from relavium_desktop.engine.agent.chat import ChatSession
from relavium_desktop.engine.agent.loop import AgentLoop
from relavium_desktop.engine.agent.mode_ids import ChatMode
from relavium_desktop.engine.agent.modes import SessionApprovals
from relavium_desktop.engine.agent.outcome import UsageRecord
from relavium_desktop.engine.agent.runner import run_agent
from relavium_desktop.engine.agent.session import SessionInfo
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.events import (
    EMITTED,
    EVENT_MODELS,
    AgentToken,
    AgentUsage,
    Emit,
    ErrorInfo,
    EventBus,
    FilePatch,
    ModelRoute,
    RunEvent,
    SessionContext,
    TokensUsed,
    WireModel,
    event_from_wire,
)
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import ToolCall, ToolDef, ToolDispatchContext, ToolPolicy
from relavium_desktop.engine.workflow.agents import AgentNodeRequest, AgentNodeResult
from relavium_desktop.engine.workflow.errors import NodeError
from relavium_desktop.engine.workflow.journal import MemoryJournal
from relavium_desktop.engine.workflow.run import GateDecision
from relavium_desktop.host.assembly import HostSettings, build_host
from relavium_desktop.providers.config import ProviderEntry, basic_validate_base_url, env_resolver
from relavium_desktop.providers.factory import ProviderSet
from tests.engine.workflow.wfhelpers import engine, load
from tests.fixtures.llm_server import Reply, ScriptedLLMServer

REQ, OPT = True, False

# (a) wire field -> (type, required).  Optional fields are omitted when absent, never null;
# a "|null" type is a required field that may be null.
ERROR_INFO = {"code": ("string", REQ), "reason": ("string|null", REQ), "message": ("string", REQ),
              "retryable": ("boolean", OPT), "retryAfter": ("number", OPT), "nodeId": ("string", OPT)}
PARTS: dict[type[WireModel], dict[str, tuple[str, bool]]] = {
    ErrorInfo: ERROR_INFO,
    TokensUsed: {"input": ("integer", REQ), "output": ("integer", REQ), "model": ("string", OPT)},
    AgentUsage: {"inputTokens": ("integer", REQ), "outputTokens": ("integer", REQ)},
    ModelRoute: {"provider": ("string", REQ), "model": ("string", REQ)},
    FilePatch: {"uri": ("string", REQ), "unifiedDiff": ("string", REQ)},
    SessionContext: {"workingDir": ("string", REQ), "fsScopeTier": ("enum(sandboxed,project,full)", REQ)},
}
RUN_TOTALS = {"totalTokensUsed": ("TokensUsed", OPT), "totalCostMicrocents": ("integer", OPT),
              "durationMs": ("integer", OPT)}
AGENT_RUN = {"toolTurns": ("integer", OPT), "usage": ("AgentUsage", OPT)}
UPSTREAM, LOCAL = "upstream", "local"
SCHEMA: dict[str, tuple[str, bool, dict[str, tuple[str, bool]]]] = {
    # type: (origin, emitted by the engine, fields)
    "run:started": (UPSTREAM, True, {
        "workflowId": ("string", OPT), "workflowName": ("string", OPT), "inputs": ("any", OPT),
        "executionMode": ("enum(local,cloud,managed)", OPT),
        "agentId": ("string", OPT), "provider": ("string", OPT), "model": ("string", OPT)}),
    "run:completed": (UPSTREAM, True, {"outputs": ("any", OPT), "output": ("string", OPT), **AGENT_RUN,
                                       **RUN_TOTALS}),
    "run:failed": (UPSTREAM, True, {"error": ("ErrorInfo", REQ), "partialOutputs": ("any", OPT),
                                    "retryable": ("boolean", OPT), **AGENT_RUN, **RUN_TOTALS}),
    "run:cancelled": (UPSTREAM, True, {"error": ("ErrorInfo", OPT), **RUN_TOTALS}),
    "run:paused": (UPSTREAM, True, {"pendingGateCount": ("integer", REQ), "gateIds": ("array[string]", REQ)}),
    "run:timeout": (UPSTREAM, True, {"elapsedMs": ("integer", REQ), "timeoutMs": ("integer", REQ)}),
    "node:started": (UPSTREAM, True, {"nodeId": ("string", REQ), "nodeType": ("string", REQ),
                                      "attemptNumber": ("integer", OPT)}),
    "node:completed": (UPSTREAM, True, {
        "nodeId": ("string", REQ), "nodeType": ("string", REQ), "output": ("any", REQ),
        "tokensUsed": ("TokensUsed", REQ), "durationMs": ("integer", REQ), "attemptNumber": ("integer", OPT)}),
    "node:failed": (UPSTREAM, True, {"nodeId": ("string", REQ), "nodeType": ("string", REQ),
                                     "error": ("ErrorInfo", REQ), "attemptNumber": ("integer", OPT)}),
    "node:skipped": (LOCAL, True, {"nodeId": ("string", REQ), "nodeType": ("string", REQ),
                                   "reason": ("enum(branch_not_taken,upstream_unreachable,run_failed)", REQ)}),
    "node:retrying": (LOCAL, True, {"nodeId": ("string", REQ), "nodeType": ("string", OPT),
                                    "attemptNumber": ("integer", REQ), "delayMs": ("integer", REQ),
                                    "error": ("ErrorInfo", REQ)}),
    "agent:token": (UPSTREAM, True, {"nodeId": ("string", REQ), "token": ("string", REQ),
                                     "model": ("string", OPT)}),
    "agent:reasoning": (LOCAL, True, {"nodeId": ("string", REQ), "token": ("string", REQ),
                                      "model": ("string", OPT)}),
    "agent:tool_call": (UPSTREAM, True, {"nodeId": ("string", REQ), "toolId": ("string", REQ),
                                         "toolInput": ("any", REQ)}),
    "agent:tool_result": (UPSTREAM, True, {
        "nodeId": ("string", REQ), "toolId": ("string", REQ), "success": ("boolean", REQ),
        "outputSummary": ("string", REQ), "spill": ("object", OPT), "error": ("ErrorInfo", OPT)}),
    "agent:tool_progress": (LOCAL, True, {"nodeId": ("string", REQ), "toolId": ("string", REQ),
                                          "progress": ("number", REQ), "total": ("number", OPT),
                                          "message": ("string", OPT)}),
    "agent:tool_log": (LOCAL, True, {"nodeId": ("string", REQ), "toolId": ("string", REQ),
                                     "level": ("string", REQ), "message": ("string", REQ)}),
    "agent:provider_fallback": (LOCAL, True, {"nodeId": ("string", REQ), "from": ("ModelRoute", REQ),
                                              "to": ("ModelRoute", REQ), "error": ("ErrorInfo|null", REQ)}),
    "agent:retrying": (LOCAL, True, {
        "nodeId": ("string", REQ), "attemptNumber": ("integer", REQ), "maxAttempts": ("integer", REQ),
        "delayMs": ("integer", REQ), "message": ("string", REQ), "provider": ("string", REQ),
        "model": ("string", REQ), "error": ("ErrorInfo", REQ), "retryAfter": ("number", OPT),
        "capped": ("boolean", OPT)}),
    "agent:file_patch_proposed": (UPSTREAM, False, {"nodeId": ("string", REQ),
                                                    "patches": ("array[FilePatch]", REQ),
                                                    "attemptNumber": ("integer", OPT)}),
    "cost:updated": (UPSTREAM, True, {
        "nodeId": ("string", REQ), "model": ("string", REQ), "inputTokens": ("integer", REQ),
        "outputTokens": ("integer", REQ), "costMicrocents": ("integer|null", REQ),
        "cumulativeCostMicrocents": ("integer", OPT), "attemptNumber": ("integer", OPT),
        "provider": ("string", OPT)}),
    "human_gate:paused": (UPSTREAM, True, {
        "nodeId": ("string", REQ), "gateId": ("string", REQ), "gateType": ("enum(approval,input,review)", REQ),
        "message": ("string", REQ), "assignee": ("string", OPT), "timeoutMs": ("integer", OPT),
        "expiresAt": ("string", OPT)}),
    "human_gate:resumed": (UPSTREAM, True, {
        "nodeId": ("string", REQ), "gateId": ("string", REQ),
        "decision": ("enum(approved,rejected,input_provided)", REQ), "decidedBy": ("string", REQ),
        "payload": ("any", OPT), "comment": ("string", OPT)}),
    "budget:warning": (UPSTREAM, True, {"spentMicrocents": ("integer", REQ), "limitMicrocents": ("integer", REQ),
                                        "thresholdPct": ("number", REQ)}),
    "budget:paused": (UPSTREAM, True, {"nodeId": ("string", REQ), "spentMicrocents": ("integer", REQ),
                                       "limitMicrocents": ("integer", REQ), "gateId": ("string", REQ)}),
    "budget:exceeded": (LOCAL, True, {"nodeId": ("string", REQ), "spentMicrocents": ("integer", REQ),
                                      "limitMicrocents": ("integer", REQ), "estimatedMicrocents": ("integer", REQ)}),
    "session:started": (UPSTREAM, False, {"agentRef": ("string", REQ), "model": ("string", REQ),
                                          "context": ("SessionContext", REQ)}),
    "session:turn_started": (UPSTREAM, False, {}),
    "session:turn_completed": (UPSTREAM, False, {"stopReason": ("string", REQ), "tokensUsed": ("TokensUsed", REQ),
                                                 "error": ("ErrorInfo", OPT)}),
    "session:cancelled": (UPSTREAM, False, {}),
    "session:exported": (UPSTREAM, False, {"workflowPath": ("string", REQ)}),
    "session:compacting": (UPSTREAM, False, {"reason": ("enum(manual,auto-threshold)", REQ)}),
    "session:compacted": (UPSTREAM, False, {
        "reason": ("enum(manual,auto-threshold)", REQ), "summary": ("string", REQ),
        "keptMessageCount": ("integer", REQ), "tokensBefore": ("integer", REQ), "tokensAfter": ("integer", REQ),
        "tokensUsed": ("TokensUsed", REQ)}),
    "session:trimmed": (UPSTREAM, False, {"reason": ("enum(manual,auto-fallback)", REQ),
                                          "keptMessageCount": ("integer", REQ),
                                          "droppedMessageCount": ("integer", REQ)}),
    "chat:turn_completed": (LOCAL, True, {"toolTurns": ("integer", REQ)}),
    "chat:turn_failed": (LOCAL, True, {"error": ("ErrorInfo", REQ)}),
    "chat:turn_cancelled": (LOCAL, True, {}),
}
EMITTED_TYPES = {t for t, (_, emitted, _) in SCHEMA.items() if emitted}


def _tag(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        return str(prop["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in prop:
        return "|".join(_tag(p) for p in prop["anyOf"])
    if "enum" in prop:
        return f"enum({','.join(prop['enum'])})"
    if prop.get("type") == "array":
        return f"array[{_tag(prop['items'])}]"
    return str(prop.get("type", "any"))


def _fields(model: type[BaseModel]) -> dict[str, tuple[str, bool]]:
    schema = model.model_json_schema(by_alias=True)
    required = set(schema.get("required", ()))
    out = {}
    for name, prop in schema.get("properties", {}).items():
        tag = _tag(prop)
        if name not in required:
            tag = tag.removesuffix("|null")  # an absent optional is omitted, not null
        out[name] = (tag, name in required)
    return out


# -- (a) the models match the table -------------------------------------------------


@pytest.mark.parametrize("kind", sorted(SCHEMA))
def test_each_event_model_matches_the_schema_table(kind: str) -> None:
    assert _fields(EVENT_MODELS[kind]) == SCHEMA[kind][2]


@pytest.mark.parametrize("part", list(PARTS), ids=lambda p: p.__name__)
def test_each_nested_shape_matches_the_schema_table(part: type[WireModel]) -> None:
    assert _fields(part) == PARTS[part]


def test_every_error_shape_is_the_one_error_info() -> None:
    from relavium_desktop.engine.agent.outcome import AgentFailure
    from relavium_desktop.engine.errors import ToolDeniedError
    from relavium_desktop.engine.llm.errors import ProviderError, ProviderErrorCode

    shapes = [ToolDeniedError("no", reason="not_granted"), NodeError("tool_failed", "x", retryable=True),
              ProviderError(ProviderErrorCode.RATE_LIMIT, "slow down", retry_after=2.0), AgentFailure("turn_limit", "t")]
    for error in shapes:
        wire = error.to_json()
        assert ErrorInfo.model_validate(wire, strict=True).to_wire() == wire
        assert list(wire)[:3] == ["code", "reason", "message"]
    # The tool dispatch contract (CLI `relavium tool call`) stays exactly {code, reason, message}.
    assert set(shapes[0].to_json()) == {"code", "reason", "message"}


# -- (b) the registry is exactly the schema ---------------------------------------------


def _subclasses(cls: type[RunEvent]) -> set[type[RunEvent]]:
    """Every concrete event model; abstract bases (shared fields, no TYPE of their own) are skipped."""
    out: set[type[RunEvent]] = set()
    for sub in cls.__subclasses__():
        if sub.TYPE != cls.TYPE:
            out.add(sub)
        out |= _subclasses(sub)
    return out


def test_every_event_model_is_registered_and_in_the_schema() -> None:
    models = _subclasses(RunEvent)
    assert {m.TYPE for m in models} == set(EVENT_MODELS) == set(SCHEMA)
    assert {t for t, emitted in EMITTED.items() if emitted} == EMITTED_TYPES
    assert all(EVENT_MODELS[m.TYPE] is m for m in models)


def test_no_field_drift_between_producers() -> None:
    """The names issue 12 found drifting have one spelling now, and it is the schema's."""
    every = {name for _, _, fields in SCHEMA.values() for name in fields}
    assert {"attempt", "costUsd"}.isdisjoint(every)
    assert "attemptNumber" in SCHEMA["node:retrying"][2] and "costMicrocents" in SCHEMA["cost:updated"][2]


# -- (c) real runs emit only schema-valid events, and every emitted type ---------------


def validate_stream(events: list[dict[str, Any]], scope: str) -> set[str]:
    """Each stamped event parses back through its model (strict, extra fields forbidden)."""
    assert [e["sequenceNumber"] for e in events] == list(range(events[0]["sequenceNumber"],
                                                               events[0]["sequenceNumber"] + len(events)))
    seen = set()
    for event in events:
        assert scope in event and ({"runId", "sessionId"} - {scope}).isdisjoint(event)
        assert isinstance(event["timestamp"], str) and event["timestamp"].endswith("Z")
        kind = event["type"]
        assert kind in SCHEMA, kind
        body = {k: v for k, v in event.items() if k not in ("type", scope, "timestamp", "sequenceNumber")}
        typed = EVENT_MODELS[kind].model_validate(body, strict=True)
        assert typed.to_wire() == {"type": kind, **body}  # nothing the serialiser would not write
        fields = SCHEMA[kind][2]
        assert {n for n, (_, req) in fields.items() if req} <= set(body) <= set(fields)
        seen.add(kind)
    return seen


def _slow_tool() -> ToolDef:
    class Args(BaseModel):
        seconds: float = 30.0

    async def dispatch(args: Args, host: ToolHost, ctx: ToolDispatchContext) -> Any:
        await asyncio.sleep(args.seconds)
        return {"slept": args.seconds}

    return ToolDef(id="slow", description="sleeps", args_model=Args, dispatch=dispatch)


def _probe_tool() -> ToolDef:
    class Args(BaseModel):
        label: str

    async def dispatch(args: Args, host: ToolHost, ctx: ToolDispatchContext) -> Any:
        return {"label": args.label}

    return ToolDef(id="probe", description="echoes", args_model=Args, dispatch=dispatch)


class TypedFakeAgentRunner:
    """An agent node without an LLM: a typed token, a tool call through the registry, one retry."""

    def __init__(self) -> None:
        self.calls = 0

    async def run_agent(self, request: AgentNodeRequest, emit: Emit) -> AgentNodeResult:
        self.calls += 1
        emit(AgentToken(node_id=request.node_id, token="hi", model="fake"))
        if self.calls == 1:
            raise NodeError("provider_unavailable", "the provider is down", retryable=True)
        outcome = await request.registry.dispatch(ToolCall("probe", {"label": "a"}), request.tool_context)
        assert outcome.ok, outcome.error
        return AgentNodeResult({"probe": outcome.result}, input_tokens=10, output_tokens=5, model="fake",
                               cost_microcents=7)


HEAD = "schema_version: '1.0'\nworkflow:\n  id: w\n"
FULL_WF = HEAD + """  inputs: [{name: who, type: string}]
  agents: [{id: helper, tools: [probe]}]
  nodes:
    - {id: s, type: input}
    - {id: ag, type: agent, agent_ref: helper, prompt_template: 'Help {{ inputs.who }}', tools: [probe],
       retry: {max: 2, backoff: linear, backoff_ms: 5}}
    - {id: t, type: tool, tool_config: {tool_name: probe, input_mapping: {label: b}}}
    - {id: pick, type: condition, expression: 'true',
       branches: [{when: true, target_node: ask}, {when: false, target_node: never}]}
    - {id: never, type: transform, transform: '1'}
    - {id: ask, type: human_gate, gate_type: approval, message_template: 'Ship it?', assignee: ana,
       timeout_ms: 600000}
    - {id: out, type: output}
  edges: [{from: s, to: ag}, {from: ag, to: t}, {from: t, to: pick}, {from: ask, to: out}]
"""
FAILING_WF = HEAD + """  nodes:
    - {id: s, type: input}
    - {id: boom, type: transform, transform: 'null.boom'}
    - {id: out, type: output}
  edges: [{from: s, to: boom}, {from: boom, to: out}]
"""
SLOW_WF = HEAD + """  {timeout}nodes:
    - {{id: s, type: input}}
    - {{id: t, type: tool, tool_config: {{tool_name: slow}}}}
    - {{id: out, type: output}}
  edges: [{{from: s, to: t}}, {{from: t, to: out}}]
"""


async def _no_sleep(_seconds: float) -> None:
    return None


async def _workflow_events() -> list[list[dict[str, Any]]]:
    streams = []
    journal = MemoryJournal()
    eng = engine(_probe_tool(), _slow_tool(), journal=journal, agent_runner=TypedFakeAgentRunner(), sleep=_no_sleep)
    wf_run = eng.start(load(FULL_WF), {"who": "ana"})
    assert (await wf_run.run()).status == "paused"
    resumed = eng.resume(wf_run.run_id, GateDecision("approved", "ana", comment="ok"))
    assert (await resumed.run()).status == "completed"
    streams.append(journal.events[wf_run.run_id])

    failing = eng.start(load(FAILING_WF), {})
    assert (await failing.run()).status == "failed"
    streams.append(failing.events)

    timed = engine(_slow_tool()).start(load(SLOW_WF.format(timeout="timeout_ms: 50\n  ")), {})
    assert (await timed.run()).status == "failed"
    streams.append(timed.events)

    cancelled = engine(_slow_tool()).start(load(SLOW_WF.format(timeout="")), {})
    task = asyncio.create_task(cancelled.run())
    while not any(e["type"] == "node:started" and e["nodeId"] == "t" for e in cancelled.events):
        await asyncio.sleep(0.01)
    cancelled.cancel()
    assert (await task).status == "cancelled"
    streams.append(cancelled.events)
    return streams


class MemorySessionStore:
    """Just enough of the SessionStore protocol for one chat session."""

    def __init__(self) -> None:
        self.history: list[Message] = []
        self.tool_events: list[dict[str, Any]] = []

    def create(self, *, title: str, agent_id: str, mode: str) -> SessionInfo:
        raise NotImplementedError

    def get(self, session_id: str) -> SessionInfo | None:
        return None

    def list_sessions(self) -> list[SessionInfo]:
        return []

    def rename(self, session_id: str, title: str) -> bool:
        return False

    def delete(self, session_id: str) -> bool:
        return False

    def append_message(self, session_id: str, message: Message) -> None:
        self.history.append(message)

    def messages(self, session_id: str) -> list[Message]:
        return list(self.history)

    def record_usage(self, session_id: str, usage: UsageRecord) -> None:
        return None

    def record_tool_event(self, session_id: str, event: dict[str, Any]) -> None:
        self.tool_events.append(event)


@pytest.fixture
def scripted() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


def _providers(server: ScriptedLLMServer) -> ProviderSet:
    base = server.base_url
    entries = {
        "openai": ProviderEntry(kind="openai", base_url=base + "/v1", api_key="env:K", allow_local=True),
        "anthropic": ProviderEntry(kind="anthropic", base_url=base, api_key="env:K", allow_local=True),
    }
    return ProviderSet(entries, resolve_secret=env_resolver({"K": "sk-test-SCHEMA0123456789abcdefghij"}),
                       validate_base_url=basic_validate_base_url)


def _spec(**extra: Any) -> AgentSpec:
    return AgentSpec.model_validate({"id": "tester", "provider": "openai", "model": "gpt-4o-mini",
                                     "system_prompt": "You test.", "tools": ["read_file"], **extra})


BUDGET_WF = HEAD + """  budget: {{max_cost_microcents: 5000, on_exceed: {mode}}}
  agents: [{{id: a, provider: openai, model: gpt-4o-mini, system_prompt: You test., max_tokens: 10}}]
  nodes:
    - {{id: s, type: input}}
    - {{id: one, type: agent, agent_ref: a, prompt_template: one}}
    - {{id: two, type: agent, agent_ref: a, prompt_template: two}}
  edges: [{{from: s, to: one}}, {{from: one, to: two}}]
"""


async def _budget_events(server: ScriptedLLMServer, workspace: Path, home: Path) -> list[list[dict[str, Any]]]:
    """A run in each on_exceed mode through the real agent loop: the first request's 4,500 micro-cents
    leave the second one's worst case over the 5,000 cap."""
    from relavium_desktop.engine.workflow.agent_loop_runner import AgentLoopRunner
    from relavium_desktop.engine.workflow.run import WorkflowEngine

    journal = MemoryJournal()
    eng = WorkflowEngine(ToolRegistry(BUILTIN_TOOLS, build_host(HostSettings(workspace=workspace, home=home))),
                         agent_runner=AgentLoopRunner(providers=_providers(server), sleep=_no_sleep),
                         journal=journal, sleep=_no_sleep)
    streams = []
    for mode, status in (("fail", "failed"), ("warn", "completed"), ("pause_for_approval", "paused")):
        server.script(Reply.say("first", usage=(100, 50)))
        if mode != "fail":  # a failed cap never sends the second request
            server.script(Reply.say("second", usage=(100, 50)))
        wf_run = eng.start(load(BUDGET_WF.format(mode=mode)), {})
        assert (await wf_run.run()).status == status
        if status == "paused":
            resumed = eng.resume(wf_run.run_id, GateDecision("approved", "cli"))
            assert (await resumed.run()).status == "completed"
        streams.append(journal.events[wf_run.run_id])
    assert server.pending == 0
    return streams


async def _chat_events(server: ScriptedLLMServer, workspace: Path, home: Path) -> list[dict[str, Any]]:
    bus = EventBus(clock=lambda: 1_700_000_000.0, session_id="s1")
    host = build_host(HostSettings(workspace=workspace, home=home, surface="chat"))
    session = ChatSession(
        session_id="s1", spec=_spec(fallback_chain=[{"provider": "anthropic", "model": "claude-sonnet-4"}]),
        providers=_providers(server), registry=ToolRegistry(BUILTIN_TOOLS, host), store=MemorySessionStore(),
        approvals=SessionApprovals(ChatMode.READ_ONLY, None), emit=bus.emit, policy=ToolPolicy(),
    )
    # Turn 1: the primary is down (fallback), a tool call, then a reasoned answer.
    server.script(Reply.error(503), Reply.call("read_file", {"path": "notes.txt"}),
                  Reply.say("done", reasoning="let me think"))
    assert (await session.send("read my notes")).status == "completed"
    # Turn 2: a bad key fails the turn; turn 3 is cancelled mid-stream.
    server.script(Reply.error(401))
    assert (await session.send("again")).status == "failed"
    server.script(Reply.stall("partial"))
    before = len(bus.history)
    task = asyncio.create_task(session.send("and again"))
    while not any(e["type"] == "agent:token" for e in bus.history[before:]):
        await asyncio.sleep(0.01)
    task.cancel()
    assert (await task).status == "cancelled"
    return bus.history


async def _agent_run_events(server: ScriptedLLMServer, workspace: Path, home: Path) -> list[dict[str, Any]]:
    bus = EventBus(clock=lambda: 1_700_000_000.0, run_id="agent-run")
    host = build_host(HostSettings(workspace=workspace, home=home))
    ctx = ToolDispatchContext(run_id="agent-run", node_id="agent", granted_tool_ids=frozenset({"read_file"}),
                              emit=bus.emit)
    loop = AgentLoop(spec=_spec(retry={"max": 2, "backoff": "fixed", "backoff_ms": 5}),
                     providers=_providers(server), registry=ToolRegistry(BUILTIN_TOOLS, host), ctx=ctx,
                     emit=bus.emit, sleep=_no_sleep)
    server.script(Reply.error(503), Reply.say("second attempt works"))
    assert (await run_agent(loop, "hi", emit=bus.emit)).status == "completed"
    server.script(Reply.error(401))
    assert (await run_agent(loop, "hi", emit=bus.emit)).status == "failed"
    # Without retry settings the default policy waits out a 429 within the turn (agent:retrying).
    loop.spec = _spec()
    server.script(Reply.error(429, retry_after="0"), Reply.say("after the wait"))
    assert (await run_agent(loop, "hi", emit=bus.emit)).status == "completed"
    return bus.history


class _ReportingMcp:
    """A stand-in McpCapability that reports progress and a log line, then answers.

    Only the engine's side is under test here (the MCP tool turns the host's
    notifications into typed events); the real host's notifications are
    tested against the SDK server in tests/host/mcp and tests/cli.
    """

    async def call(self, server: str, tool: str, arguments: Any, *, on_progress: Any = None,
                   on_log: Any = None) -> Any:
        on_progress(1, 2, "half way")
        on_progress(2, None, None)
        on_log("info", "using Authorization: Bearer sk-live-ABCDEFGH0123456789abcdefgh")
        return {"content": [{"type": "text", "text": "done"}]}


async def _mcp_tool_events() -> list[dict[str, Any]]:
    from relavium_desktop.engine.tools.mcp_tools import make_mcp_tool

    tool = make_mcp_tool("calc", "work", "Work slowly.", {"type": "object", "properties": {}})
    bus = EventBus(clock=lambda: 1_700_000_000.0, run_id="mcp-run")
    registry = ToolRegistry([tool], ToolHost(mcp=_ReportingMcp()))
    ctx = ToolDispatchContext(run_id="mcp-run", node_id="n", granted_tool_ids=frozenset({tool.id}), emit=bus.emit)
    assert (await registry.dispatch(ToolCall(tool.id, {}), ctx)).ok
    logs = [e for e in bus.history if e["type"] == "agent:tool_log"]
    assert logs and "sk-live-ABCDEFGH" not in logs[0]["message"]
    return bus.history


async def test_a_workflow_run_a_headless_agent_run_and_chat_turns_emit_only_schema_events(
    scripted: ScriptedLLMServer, tmp_path: Path, relavium_home: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("remember the milk\n")
    seen: set[str] = set()
    for stream in await _workflow_events():
        seen |= validate_stream(stream, "runId")
    seen |= validate_stream(await _agent_run_events(scripted, workspace, relavium_home), "runId")
    seen |= validate_stream(await _mcp_tool_events(), "runId")
    for stream in await _budget_events(scripted, workspace, relavium_home):
        seen |= validate_stream(stream, "runId")
    chat = await _chat_events(scripted, workspace, relavium_home)
    seen |= validate_stream(chat, "sessionId")
    # Every type the engine can emit was emitted, and nothing else.
    assert seen == EMITTED_TYPES
    costs = [e for e in chat if e["type"] == "cost:updated"]
    assert costs and all(isinstance(c["costMicrocents"], int) for c in costs)


def test_the_bus_takes_only_typed_events_and_parsing_refuses_drift() -> None:
    bus = EventBus(clock=lambda: 0.0, run_id="r")
    stamped = bus.emit(AgentToken(node_id="n", token="t"))
    assert stamped == {"type": "agent:token", "runId": "r", "timestamp": "1970-01-01T00:00:00.000Z",
                       "sequenceNumber": 0, "nodeId": "n", "token": "t"}
    assert event_from_wire(stamped) == AgentToken(node_id="n", token="t")
    with pytest.raises(TypeError):
        bus.emit({"type": "agent:token", "nodeId": "n", "token": "t"})  # type: ignore[arg-type]
    with pytest.raises(ValueError):  # the agent runner's old spelling
        event_from_wire({"type": "node:retrying", "nodeId": "n", "attempt": 1, "delayMs": 0,
                         "error": {"code": "c", "reason": None, "message": "m"}})
    with pytest.raises(ValueError):
        event_from_wire({"type": "no:such_event"})


# One canonical payload per upstream session:* event (the upstream schema's own examples).
UPSTREAM_SESSION_SAMPLES: list[dict[str, Any]] = [
    {"type": "session:started", "agentRef": "my-agent", "model": "claude-sonnet-4-6",
     "context": {"workingDir": "/w", "fsScopeTier": "sandboxed"}},
    {"type": "session:turn_started"},
    {"type": "session:turn_completed", "stopReason": "stop", "tokensUsed": {"input": 1, "output": 2, "model": "m"}},
    {"type": "session:turn_completed", "stopReason": "stop", "tokensUsed": {"input": 1, "output": 2},
     "error": {"code": "provider_rate_limit", "reason": None, "message": "slow down", "retryable": True}},
    {"type": "session:cancelled"},
    {"type": "session:exported", "workflowPath": "/w/x.relavium.yaml"},
    {"type": "session:compacting", "reason": "manual"},
    {"type": "session:compacted", "reason": "manual", "summary": "earlier we set up the project",
     "keptMessageCount": 2, "tokensBefore": 14200, "tokensAfter": 900, "tokensUsed": {"input": 14000, "output": 340}},
    {"type": "session:trimmed", "reason": "auto-fallback", "keptMessageCount": 20, "droppedMessageCount": 8},
]


@pytest.mark.parametrize("payload", UPSTREAM_SESSION_SAMPLES, ids=lambda p: str(p["type"]))
def test_upstream_session_events_parse_and_round_trip(payload: dict[str, Any]) -> None:
    event = event_from_wire({"sessionId": "sess-1", "timestamp": "2026-06-04T00:00:00.000Z", "sequenceNumber": 3,
                             **payload})
    assert event.to_wire() == payload


@pytest.mark.parametrize("payload", [
    {"type": "session:exported", "workflowPath": ""},
    {"type": "session:compacting", "reason": "auto-fallback"},
    {"type": "session:trimmed", "reason": "manual", "keptMessageCount": -1, "droppedMessageCount": 0},
    {"type": "session:turn_completed", "stopReason": "stop"},
], ids=lambda p: str(p["type"]))
def test_malformed_upstream_session_events_are_refused(payload: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        event_from_wire(payload)
