"""The run engine against the real sandbox, registry and built-in tools."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from relavium_desktop.engine.events import AgentToken, Emit
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import PolicyClass, ToolCall, ToolDef, ToolDispatchContext
from relavium_desktop.engine.workflow.agents import AgentNodeRequest, AgentNodeResult
from relavium_desktop.engine.workflow.errors import InputError
from relavium_desktop.engine.workflow.journal import MemoryJournal
from relavium_desktop.engine.workflow.run import GateDecision
from tests.engine.workflow.wfhelpers import HARNESS, engine, load, node_sequence, of_type, run

HEAD = "schema_version: '1.0'\nworkflow:\n  id: w\n"


async def test_harness_fixture_exact_sequence_both_ways() -> None:
    text = HARNESS.read_text()
    result, wf_run = await run(text, {"n": 3})
    assert node_sequence(wf_run.events) == [
        "run:started", "node:started:start", "node:completed:start", "node:started:check",
        "node:completed:check", "node:skipped:hi", "node:started:lo", "node:completed:lo",
        "node:started:out", "node:completed:out", "run:completed",
    ]
    assert [e["sequenceNumber"] for e in wf_run.events] == list(range(len(wf_run.events)))
    assert of_type(wf_run.events, "node:skipped")[0]["reason"] == "branch_not_taken"
    assert result.outputs == {"out": {"label": "low"}}
    _, wf_run = await run(text, {"n": 15})
    seq = node_sequence(wf_run.events)
    assert seq[5:8] == ["node:skipped:lo", "node:started:hi", "node:completed:hi"]


FAILING = HEAD + """  nodes:
    - {id: s, type: input}
    - {id: boom, type: transform, transform: 'null.boom'}
    - {id: after, type: transform, transform: '1'}
    - {id: out, type: output}
  edges: [{from: s, to: boom}, {from: boom, to: after}, {from: after, to: out}]
"""


async def test_runtime_error_fails_node_skips_downstream_and_fails_run() -> None:
    result, wf_run = await run(FAILING)
    assert result.status == "failed"
    assert node_sequence(wf_run.events)[3:] == [
        "node:started:boom", "node:failed:boom", "node:skipped:after", "node:skipped:out", "run:failed"]
    failed = of_type(wf_run.events, "node:failed")[0]
    assert failed["error"]["code"] == "sandbox_error" and failed["error"]["retryable"] is False
    assert {e["reason"] for e in of_type(wf_run.events, "node:skipped")} == {"upstream_unreachable"}
    assert of_type(wf_run.events, "run:failed")[0]["error"]["nodeId"] == "boom"


async def test_infinite_loop_transform_times_out_as_sandbox_error() -> None:
    from relavium_desktop.engine.workflow.sandbox import QuickJsSandbox

    text = FAILING.replace("'null.boom'", "'while(true){}'")
    result, wf_run = await run(text, eng=engine(sandbox=QuickJsSandbox(time_limit_s=0.2)))
    err = of_type(wf_run.events, "node:failed")[0]["error"]
    assert (result.status, err["code"], err["reason"], err["retryable"]) == ("failed", "sandbox_error", "timeout", True)


async def test_retry_emits_node_retrying_with_backoff_then_succeeds_or_fails() -> None:
    from relavium_desktop.engine.workflow.sandbox import QuickJsSandbox

    slept: list[float] = []

    async def sleep(s: float) -> None:
        slept.append(s)

    text = FAILING.replace("transform: 'null.boom'}", "transform: 'while(true){}', "
                           "retry: {max: 3, backoff: exponential, backoff_ms: 100}}")
    _result, wf_run = await run(text, eng=engine(sandbox=QuickJsSandbox(time_limit_s=0.1), sleep=sleep))
    retrying = of_type(wf_run.events, "node:retrying")
    assert [e["attemptNumber"] for e in retrying] == [2, 3]
    assert [e["delayMs"] for e in retrying] == [100, 200] and slept == [0.1, 0.2]
    assert of_type(wf_run.events, "node:failed")[0]["attemptNumber"] == 3
    # A fatal error is never retried.
    text = FAILING.replace("transform: 'null.boom'}", "transform: 'null.boom', retry: {max: 3}}")
    _, wf_run = await run(text)
    assert of_type(wf_run.events, "node:retrying") == []


# -- parallel / merge ------------------------------------------------------

class _Probe:
    """A test-only tool that records how many calls overlap (no real effect needed)."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.peak = 0
        self.order: list[str] = []

    def tooldef(self) -> ToolDef:
        class Args(BaseModel):
            label: str

        async def dispatch(args: Args, host: ToolHost, ctx: ToolDispatchContext) -> Any:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            for _ in range(5):
                await asyncio.sleep(0)
            self.in_flight -= 1
            self.order.append(args.label)
            return {"label": args.label}

        return ToolDef(id="probe", description="test probe", args_model=Args, dispatch=dispatch)


def fan_out(max_parallel: int, strategy: str = "concat", merge_fn: str | None = None) -> str:
    branches = "\n".join(
        f"    - {{id: {b}, type: tool, tool_config: {{tool_name: probe, input_mapping: {{label: {b}}}}}}}"
        for b in ("b3", "b1", "b2"))  # authored order differs from parallel_of order
    fn = f", merge_fn: '{merge_fn}'" if merge_fn else ""
    return HEAD + f"""  max_parallel: {max_parallel}
  nodes:
    - {{id: s, type: input}}
    - {{id: fan, type: parallel, parallel_of: [b1, b2, b3]}}
{branches}
    - {{id: join, type: merge, merge_strategy: {strategy}{fn}}}
    - {{id: out, type: output}}
  edges: [{{from: s, to: fan}}, {{from: b1, to: join}}, {{from: b2, to: join}}, {{from: b3, to: join}},
          {{from: join, to: out}}]
"""


async def test_three_branches_run_concurrently_up_to_max_parallel_and_merge_in_parallel_of_order() -> None:
    probe = _Probe()
    result, wf_run = await run(fan_out(3), eng=engine(probe.tooldef()))
    assert probe.peak == 3
    seq = node_sequence(wf_run.events)
    # All three started before the first one completed: they overlapped.
    assert seq.index("node:started:b2") < seq.index("node:completed:b3")
    assert result.outputs["out"] == [{"label": "b1"}, {"label": "b2"}, {"label": "b3"}]

    probe = _Probe()
    result, wf_run = await run(fan_out(1), eng=engine(probe.tooldef()))
    assert probe.peak == 1
    seq = node_sequence(wf_run.events)
    assert seq.index("node:completed:b3") < seq.index("node:started:b1") < seq.index("node:completed:b1") \
        < seq.index("node:started:b2")
    starts = [e["timestamp"] for e in of_type(wf_run.events, "node:started") if e["nodeId"] in ("b1", "b2", "b3")]
    ends = [e["timestamp"] for e in of_type(wf_run.events, "node:completed") if e["nodeId"] in ("b1", "b2", "b3")]
    assert all(end <= nxt for end, nxt in zip(ends, starts[1:], strict=False))
    assert result.outputs["out"] == [{"label": "b1"}, {"label": "b2"}, {"label": "b3"}]


async def test_merge_strategies() -> None:
    for strategy, fn, expected in [
        ("object_merge", None, {"label": "b3"}),
        ("first", None, {"label": "b1"}),
        ("custom", "branches.map(b => b.label).join(\"+\")", "b1+b2+b3"),
    ]:
        result, _ = await run(fan_out(3, strategy, fn), eng=engine(_Probe().tooldef()))
        assert result.outputs["out"] == expected, strategy


# -- tool nodes ------------------------------------------------------------

class RecordingProcess:
    """Stand-in process capability that only records calls: the test proves it is never reached."""

    def __init__(self) -> None:
        self.calls: list[Any] = []

    async def spawn(self, command: str, args: Any, env: Any, opts: Any) -> dict[str, Any]:
        self.calls.append((command, list(args)))
        return {"exitCode": 0, "stdout": "", "stderr": "", "durationMs": 0}

    async def git(self, args: Any, opts: Any) -> dict[str, Any]:
        raise AssertionError("not used")


TOOL_WF = HEAD + """  inputs: [{name: word, type: string}]
  tools: {allowedCommands: ['echo hello']}
  nodes:
    - {id: s, type: input}
    - id: say
      type: tool
      tool_config: {tool_name: run_command, input_mapping: {command: echo, args: ['{{ inputs.word }}']}}
    - {id: out, type: output}
  edges: [{from: s, to: say}, {from: say, to: out}]
"""


async def test_tool_node_command_outside_allowlist_is_denied_before_any_process() -> None:
    process = RecordingProcess()
    result, wf_run = await run(TOOL_WF, {"word": "goodbye"}, eng=engine(host=ToolHost(process=process)))
    err = of_type(wf_run.events, "node:failed")[0]["error"]
    assert (result.status, err["code"], err["reason"]) == ("failed", "tool_denied", "command_not_allowed")
    assert process.calls == []
    result, _ = await run(TOOL_WF, {"word": "hello"}, eng=engine(host=ToolHost(process=process)))
    assert result.status == "completed" and process.calls == [("echo", ["hello"])]


async def test_output_mapping_receives_the_full_unbounded_result() -> None:
    class Args(BaseModel):
        n: int

    async def dispatch(args: Args, host: ToolHost, ctx: ToolDispatchContext) -> Any:
        return {"body": {"text": "x" * args.n}}

    big = ToolDef(id="big", description="test-only large result", args_model=Args, dispatch=dispatch)
    text = HEAD + """  nodes:
    - {id: s, type: input}
    - id: t
      type: tool
      tool_config: {tool_name: big, input_mapping: {n: 200000}, output_mapping: {full: body.text}}
    - {id: size, type: transform, transform: 'run.outputs["t"].full.length'}
  edges: [{from: s, to: t}, {from: t, to: size}]
"""
    result, wf_run = await run(text, eng=engine(big))
    assert result.outputs == {"size": 200000}
    tool_result = of_type(wf_run.events, "agent:tool_result")[0]
    assert len(tool_result["outputSummary"]) < 2000  # the display copy was bounded...
    completed = next(e for e in of_type(wf_run.events, "node:completed") if e["nodeId"] == "t")
    assert completed["output"]["truncated"] is True  # the event carries a preview only


# -- human gates -----------------------------------------------------------

GATE_WF = HEAD + """  inputs: [{name: who, type: string}]
  nodes:
    - {id: s, type: input}
    - {id: ask, type: human_gate, gate_type: approval, message_template: 'Ship it for {{ inputs.who }}?'}
    - {id: ship, type: transform, transform: '({ shipped: run.outputs["ask"].decision })'}
    - {id: side, type: transform, transform: '"independent"'}
    - {id: out, type: output}
  edges: [{from: s, to: ask}, {from: ask, to: ship}, {from: ship, to: out}, {from: s, to: side}]
"""


async def test_gate_pauses_durably_and_a_new_engine_resumes_it() -> None:
    journal = MemoryJournal()
    eng1 = engine(journal=journal)
    wf_run = eng1.start(load(GATE_WF), {"who": "ana"})
    result = await wf_run.run()
    assert result.status == "paused"
    paused = of_type(wf_run.events, "human_gate:paused")[0]
    assert paused["message"] == "Ship it for ana?"
    assert wf_run.events[-1]["type"] == "run:paused" and wf_run.events[-1]["gateIds"] == [paused["gateId"]]
    assert "node:completed:side" in node_sequence(wf_run.events)  # independent work went on
    first_len = len(wf_run.events)

    eng2 = engine(journal=journal)  # a "new process": only the journal is shared
    resumed = eng2.resume(result.run_id, GateDecision("approved", "ana"))
    result2 = await resumed.run()
    assert result2.status == "completed" and result2.outputs == {"out": {"shipped": "approved"}}
    assert resumed.events[0]["sequenceNumber"] == first_len  # gap-free across the restart
    # As upstream expects: the resumed gate completes by its human_gate:resumed, no node:completed:ask.
    assert node_sequence(resumed.events) == ["node:started:ship", "node:completed:ship",
                                             "node:started:out", "node:completed:out", "run:completed"]
    assert resumed.events[0]["type"] == "human_gate:resumed" and resumed.events[0]["decision"] == "approved"
    all_events = journal.events[result.run_id]
    assert [e["sequenceNumber"] for e in all_events] == list(range(len(all_events)))


async def test_rejected_gate_fails_its_branch_and_the_run() -> None:
    journal = MemoryJournal()
    result = await engine(journal=journal).start(load(GATE_WF), {"who": "ana"}).run()
    resumed = engine(journal=journal).resume(result.run_id, GateDecision("rejected"))
    result2 = await resumed.run()
    assert result2.status == "failed"
    assert node_sequence(resumed.events) == ["node:failed:ask", "node:skipped:ship", "node:skipped:out",
                                             "run:failed"]
    err = of_type(resumed.events, "node:failed")[0]["error"]
    assert (err["code"], err["reason"]) == ("tool_denied", "user_rejected")


async def test_expired_gate_applies_its_timeout_action() -> None:
    now = [1000.0]
    journal = MemoryJournal()
    text = GATE_WF.replace("gate_type: approval,", "gate_type: approval, timeout_ms: 5000, timeout_action: reject,")
    result = await engine(journal=journal, clock=lambda: now[0]).start(load(text), {"who": "a"}).run()
    now[0] += 60
    resumed = engine(journal=journal, clock=lambda: now[0]).resume(result.run_id, GateDecision("approved"))
    assert (await resumed.run()).status == "failed"
    assert resumed.events[0]["decidedBy"] == "timeout"


# -- agents (fake runner) ----------------------------------------------------

class FakeAgentRunner:
    """A scripted stand-in for the agent loop (built in parallel under engine/agent).

    It is a fake because no LLM can run in a unit test; it exercises the real
    protocol: grants, the event sink and invoke_agent through the registry.
    """

    def __init__(self, script: Callable[[AgentNodeRequest], Any]) -> None:
        self.script = script
        self.requests: list[AgentNodeRequest] = []

    async def run_agent(self, request: AgentNodeRequest, emit: Emit) -> AgentNodeResult:
        self.requests.append(request)
        emit(AgentToken(node_id=request.node_id, token="hi", model="fake"))
        output = self.script(request)
        if asyncio.iscoroutine(output):
            output = await output
        return AgentNodeResult(output, input_tokens=10, output_tokens=5, model="fake", cost_microcents=7)


AGENT_WF = HEAD + """  inputs: [{name: topic, type: string}]
  agents:
    - {id: lead, tools: [invoke_agent, read_file]}
    - {id: helper, tools: []}
  nodes:
    - {id: s, type: input}
    - {id: boss, type: agent, agent_ref: lead, prompt_template: 'Plan {{ inputs.topic }}', tools: [invoke_agent]}
    - {id: research, type: agent, agent_ref: helper}
    - {id: out, type: output}
  edges: [{from: s, to: boss}, {from: boss, to: out}]
"""


async def test_agent_node_and_invoke_agent_through_the_runner_protocol() -> None:
    async def script(req: AgentNodeRequest) -> Any:
        if req.node_id == "boss":
            registry: ToolRegistry = req.registry
            outcome = await registry.dispatch(
                ToolCall("invoke_agent", {"nodeId": "research", "input": {"q": req.prompt}}), req.tool_context)
            assert outcome.ok, outcome.error
            return {"plan": outcome.result}
        return f"notes on {req.prompt}"

    runner = FakeAgentRunner(script)
    result, wf_run = await run(AGENT_WF, {"topic": "tides"}, eng=engine(agent_runner=runner))
    assert result.status == "completed"
    assert result.outputs == {"out": {"plan": 'notes on {"q": "Plan tides"}'}}
    boss = runner.requests[0]
    assert boss.tools == ("invoke_agent",) and boss.tool_context.granted_tool_ids == frozenset({"invoke_agent"})
    assert runner.requests[1].invoked_by == "boss"
    costs = of_type(wf_run.events, "cost:updated")
    assert [c["cumulativeCostMicrocents"] for c in costs] == [7, 14]
    assert of_type(wf_run.events, "run:completed")[0]["totalTokensUsed"] == {"input": 20, "output": 10}
    assert "research" not in [e.get("nodeId") for e in of_type(wf_run.events, "node:started")]


async def test_agent_node_without_a_runner_fails_clearly() -> None:
    result, wf_run = await run(AGENT_WF, {"topic": "x"})
    err = of_type(wf_run.events, "node:failed")[0]["error"]
    assert result.status == "failed" and err["code"] == "provider_unavailable"


# -- cancel and run timeout ----------------------------------------------------

async def test_cancel_and_run_timeout() -> None:
    gate = asyncio.Event()

    class Args(BaseModel):
        pass

    async def wait(args: Args, host: ToolHost, ctx: ToolDispatchContext) -> Any:
        await gate.wait()
        return {}

    slow = ToolDef(id="slow", description="test-only: waits", args_model=Args, dispatch=wait,
                   policy=PolicyClass())
    text = HEAD + """  nodes:
    - {id: s, type: input}
    - {id: t, type: tool, tool_config: {tool_name: slow}}
  edges: [{from: s, to: t}]
"""
    wf_run = engine(slow).start(load(text), {})
    task = asyncio.create_task(wf_run.run())
    while "node:started:t" not in node_sequence(wf_run.events):
        await asyncio.sleep(0)
    wf_run.cancel()
    result = await task
    assert result.status == "cancelled" and wf_run.events[-1]["type"] == "run:cancelled"
    assert len([e for e in wf_run.events if e["type"].startswith("run:") and e["type"] != "run:started"]) == 1

    result, wf_run = await run(text.replace("  nodes:", "  timeout_ms: 50\n  nodes:"), eng=engine(slow))
    assert result.status == "failed"
    assert node_sequence(wf_run.events)[-3:] == ["run:timeout", "node:failed:t", "run:failed"]
    assert wf_run.events[-1]["error"]["code"] == "run_timeout"


async def test_inputs_are_admitted_strictly() -> None:
    import pytest

    from relavium_desktop.engine.workflow.errors import InputError

    eng = engine()
    wf = load(HARNESS.read_text())
    for bad in ({"n": "3"}, {}, {"n": 3, "m": 1}):
        with pytest.raises(InputError):
            eng.start(wf, bad)


async def test_templates_filters_and_read_file_through_the_tool() -> None:
    class FakeFs:
        """In-memory filesystem capability: the test checks routing through the read_file tool."""

        async def read_file(self, path: str) -> dict[str, Any]:
            return {"path": path, "content": f"<{path}>"}

    text = HEAD + """  inputs: [{name: f, type: string}, {name: opt, type: string, required: false}]
  context: [{key: body, value: '{{ inputs.f | read_file }}'}]
  agents: [{id: a}]
  nodes:
    - {id: s, type: input}
    - {id: g, type: agent, agent_ref: a,
       prompt_template: '{{ ctx.body }} {{ inputs.opt | default("none") }} {{ run.outputs["s"] | json }} {{ inputs.f | length }}'}
  edges: [{from: s, to: g}]
"""
    runner = FakeAgentRunner(lambda r: r.prompt)
    result, _ = await run(text, {"f": "a.txt"}, eng=engine(host=ToolHost(fs=FakeFs()), agent_runner=runner))  # type: ignore[arg-type]
    assert result.outputs == {"g": '<a.txt> none {"f": "a.txt"} 5'}


# -- gate timeouts while the run is live ---------------------------------------

async def test_a_gate_times_out_while_other_branches_still_run() -> None:
    """The gate's timeout_action applies on time, not only at a later resume."""
    resumed = asyncio.Event()

    class Args(BaseModel):
        pass

    async def wait(args: Args, host: ToolHost, ctx: ToolDispatchContext) -> Any:
        await resumed.wait()  # the side branch outlives the gate's timeout
        return {"side": "done"}

    slow = ToolDef(id="slow", description="test-only: waits", args_model=Args, dispatch=wait,
                   policy=PolicyClass())
    text = GATE_WF.replace("gate_type: approval,", "gate_type: approval, timeout_ms: 100, timeout_action: approve,")
    text = text.replace("{id: side, type: transform, transform: '\"independent\"'}",
                        "{id: side, type: tool, tool_config: {tool_name: slow}}")
    journal = MemoryJournal()

    def on_event(event: dict[str, Any]) -> None:
        if event["type"] == "human_gate:resumed":
            resumed.set()

    wf_run = engine(slow, journal=journal).start(load(text), {"who": "ana"}, on_event=on_event)
    result = await wf_run.run()
    assert result.status == "completed" and result.outputs == {"out": {"shipped": "approved"}}
    gate = of_type(wf_run.events, "human_gate:resumed")[0]
    assert (gate["nodeId"], gate["decision"], gate["decidedBy"]) == ("ask", "approved", "timeout")
    assert not of_type(wf_run.events, "run:paused")
    assert journal.status[result.run_id] == "completed"


async def test_a_holding_surface_applies_the_timeout_instead_of_pausing() -> None:
    text = GATE_WF.replace("gate_type: approval,", "gate_type: approval, timeout_ms: 100, timeout_action: reject,")
    wf_run = engine(hold_gates=True).start(load(text), {"who": "ana"})
    result = await wf_run.run()
    assert result.status == "failed" and not of_type(wf_run.events, "run:paused")
    gate = of_type(wf_run.events, "human_gate:resumed")[0]
    assert (gate["decision"], gate["decidedBy"]) == ("rejected", "timeout")
    err = of_type(wf_run.events, "node:failed")[0]["error"]
    assert (err["code"], err["reason"]) == ("tool_denied", "user_rejected")
    assert node_sequence(wf_run.events)[-4:] == ["node:failed:ask", "node:skipped:ship", "node:skipped:out",
                                                 "run:failed"]

    # A gate without a timeout still pauses (holding never waits forever).
    result = await engine(hold_gates=True).start(load(GATE_WF), {"who": "ana"}).run()
    assert result.status == "paused"


async def test_a_timeout_answer_is_refused_before_the_gate_is_due() -> None:
    journal = MemoryJournal()
    text = GATE_WF.replace("gate_type: approval,", "gate_type: approval, timeout_ms: 60000,")
    result = await engine(journal=journal).start(load(text), {"who": "a"}).run()
    assert result.status == "paused" and result.pending_gates[0]["timeoutMs"] == 60000
    with pytest.raises(InputError, match="has not timed out"):
        engine(journal=journal).resume(result.run_id, GateDecision("rejected", "timeout"))
