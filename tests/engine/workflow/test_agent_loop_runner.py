"""Workflow agent nodes driven by the real agent loop (AgentLoopRunner).

Real parts throughout: the scripted LLM server speaking the OpenAI/Anthropic
wire formats over HTTP, real provider code, a real host (files, processes)
and the real workflow engine.  Nothing is mocked.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.workflow.agent_loop_runner import (
    AgentLoopRunner,
    infer_provider,
    parse_json_reply,
)
from relavium_desktop.engine.workflow.errors import NodeError
from relavium_desktop.engine.workflow.journal import MemoryJournal
from relavium_desktop.engine.workflow.run import RunResult, WorkflowEngine, WorkflowRun
from relavium_desktop.host.assembly import HostSettings, build_host
from relavium_desktop.providers.config import ProviderEntry, basic_validate_base_url, env_resolver
from relavium_desktop.providers.factory import ProviderSet
from tests.engine.workflow.wfhelpers import load, node_sequence, of_type
from tests.fixtures.llm_server import Reply, ScriptedLLMServer

KEY = "sk-test-WFAGENTKEY0123456789abcdefgh"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("the tide turns at noon\n")
    return ws


def providers(server: ScriptedLLMServer) -> ProviderSet:
    base = server.base_url
    entries = {
        "openai": ProviderEntry(kind="openai", base_url=base + "/v1", api_key="env:K", allow_local=True),
        "anthropic": ProviderEntry(kind="anthropic", base_url=base, api_key="env:K", allow_local=True),
    }
    return ProviderSet(entries, resolve_secret=env_resolver({"K": KEY}), validate_base_url=basic_validate_base_url)


def engine(server: ScriptedLLMServer, workspace: Path, home: Path) -> WorkflowEngine:
    host = build_host(HostSettings(workspace=workspace, home=home, surface="workflow"))
    sleeps: list[float] = []

    async def no_wait(seconds: float) -> None:
        # Backoff delays are recorded, not waited: the tests assert behaviour, not time.
        sleeps.append(seconds)

    runner = AgentLoopRunner(providers=providers(server), sleep=no_wait)
    return WorkflowEngine(ToolRegistry(BUILTIN_TOOLS, host), agent_runner=runner, journal=MemoryJournal(),
                          sleep=no_wait)


async def run(eng: WorkflowEngine, text: str, inputs: dict[str, Any] | None = None) -> tuple[RunResult, WorkflowRun]:
    wf_run = eng.start(load(text), inputs or {})
    return await wf_run.run(), wf_run


def tool_names(body: dict[str, Any]) -> list[str]:
    return sorted(t["function"]["name"] for t in body.get("tools", []))


READER = """schema_version: '1.0'
workflow:
  id: reader
  inputs: [{name: file, type: string}]
  tools: {allowedCommands: ['echo ok']}
  agents:
    - id: helper
      provider: openai
      model: gpt-4o-mini
      system_prompt: You read files.
      tools: [read_file, list_directory, run_command]
  nodes:
    - {id: start, type: input}
    - {id: ask, type: agent, agent_ref: helper, tools: [read_file, run_command],
       prompt_template: 'What does {{ inputs.file }} say?'}
    - {id: out, type: output}
  edges: [{from: start, to: ask}, {from: ask, to: out}]
"""


async def test_agent_node_reads_a_file_and_streams_events_into_the_run(
    llm_server: ScriptedLLMServer, workspace: Path, relavium_home: Path
) -> None:
    llm_server.script(Reply.call("read_file", {"path": "notes.txt"}), Reply.say("It says the tide turns at noon."))
    result, wf_run = await run(engine(llm_server, workspace, relavium_home), READER, {"file": "notes.txt"})

    assert result.status == "completed", result.error
    assert result.outputs == {"out": "It says the tide turns at noon."}
    ask = [e["type"] for e in wf_run.events if e.get("nodeId") == "ask"]
    assert ask[0] == "node:started" and ask[-1] == "node:completed"
    assert ask.index("agent:tool_call") < ask.index("agent:tool_result") < ask.index("agent:token")
    # usage -> exactly one cost:updated for the node (the engine's, not the loop's per turn as well)
    costs = of_type(wf_run.events, "cost:updated")
    assert len(costs) == 1 and costs[0]["nodeId"] == "ask" and costs[0]["model"] == "gpt-4o-mini"
    assert (costs[0]["inputTokens"], costs[0]["outputTokens"]) == (24, 14)
    assert costs[0]["costMicrocents"] > 0  # gpt-4o-mini has a known price
    assert of_type(wf_run.events, "run:completed")[0]["totalTokensUsed"] == {"input": 24, "output": 14}
    result_ev = of_type(wf_run.events, "agent:tool_result")[0]
    assert result_ev["toolId"] == "read_file" and result_ev["success"] is True
    # The provider saw the rendered prompt, the agent's system prompt and only the node's narrowed tools.
    first = llm_server.requests[0].body
    assert first["messages"][0] == {"role": "system", "content": "You read files."}
    assert first["messages"][-1]["content"] == "What does notes.txt say?"
    assert tool_names(first) == ["read_file", "run_command"]
    # The second turn carried the real file content back to the model.
    tool_msgs = [m for m in llm_server.requests[1].body["messages"] if m["role"] == "tool"]
    assert "the tide turns at noon" in tool_msgs[0]["content"]
    assert [e["sequenceNumber"] for e in wf_run.events] == list(range(len(wf_run.events)))


@pytest.mark.spawns  # runs a real command: kept out of the fast lane
async def test_author_trust_runs_allowed_commands_without_asking_but_guardrails_hold(
    llm_server: ScriptedLLMServer, workspace: Path, relavium_home: Path
) -> None:
    eng = engine(llm_server, workspace, relavium_home)
    # Allowed by the workflow's tools policy: runs with no approval regime.
    llm_server.script(Reply.call("run_command", {"command": "echo", "args": ["ok"]}), Reply.say("done"))
    result, wf_run = await run(eng, READER, {"file": "x"})
    assert result.status == "completed"
    ran = of_type(wf_run.events, "agent:tool_result")[0]
    assert ran["success"] is True and "ok" in ran["outputSummary"]

    # Not in allowedCommands: the node fails tool_denied and the model is not asked again.
    asked_before = len(llm_server.requests)
    # (No reply is scripted after the call: a re-ask would get HTTP 500 and fail differently.)
    llm_server.script(Reply.call("run_command", {"command": "rm", "args": ["-rf", "."]}))
    result, wf_run = await run(eng, READER, {"file": "x"})
    err = of_type(wf_run.events, "node:failed")[0]["error"]
    assert result.status == "failed"
    assert (err["code"], err["reason"]) == ("tool_denied", "command_not_allowed")
    assert len(llm_server.requests) == asked_before + 1
    assert (workspace / "notes.txt").exists()
    assert node_sequence(wf_run.events)[-3:] == ["node:failed:ask", "node:skipped:out", "run:failed"]

    # A tool the agent has but the node narrowed away is not granted.
    llm_server.script(Reply.call("list_directory", {"path": "."}))
    result, wf_run = await run(eng, READER, {"file": "x"})
    err = of_type(wf_run.events, "node:failed")[0]["error"]
    assert (err["code"], err["reason"]) == ("tool_denied", "not_granted")


ORCHESTRATED = """schema_version: '1.0'
workflow:
  id: orchestrated
  inputs: [{name: topic, type: string}]
  agents:
    - {id: lead, provider: openai, model: gpt-4o-mini, system_prompt: Delegate., tools: [invoke_agent]}
    - {id: researcher, provider: anthropic, model: claude-sonnet-4, system_prompt: Research., tools: [read_file]}
  nodes:
    - {id: start, type: input}
    - {id: lead, type: agent, agent_ref: lead, prompt_template: 'Topic: {{ inputs.topic }}'}
    - {id: research, type: agent, agent_ref: researcher}
    - {id: out, type: output}
  edges: [{from: start, to: lead}, {from: lead, to: out}]
"""


async def test_invoke_agent_delegates_to_another_agent_node(
    llm_server: ScriptedLLMServer, workspace: Path, relavium_home: Path
) -> None:
    llm_server.script(
        Reply.call("invoke_agent", {"nodeId": "research", "input": {"question": "when does the tide turn?"}}),
        Reply.call("read_file", {"path": "notes.txt"}),  # the researcher (anthropic wire)
        Reply.say("At noon."),                            # researcher's answer
        Reply.say("Summary: the tide turns at noon."),    # lead's final answer
    )
    result, wf_run = await run(engine(llm_server, workspace, relavium_home), ORCHESTRATED, {"topic": "tides"})

    assert result.status == "completed", result.error
    assert result.outputs == {"out": "Summary: the tide turns at noon."}
    assert [r.dialect for r in llm_server.requests] == ["openai", "anthropic", "anthropic", "openai"]
    # The researcher got the explicit input as its prompt, and only its own tools.
    research_body = llm_server.requests[1].body
    assert research_body["messages"][0]["content"] in (
        '{"question": "when does the tide turn?"}',
        [{"type": "text", "text": '{"question": "when does the tide turn?"}'}],
    )
    assert [t["name"] for t in research_body["tools"]] == ["read_file"]
    # The delegate's answer came back to the lead as the invoke_agent tool result.
    lead_tool = [m for m in llm_server.requests[3].body["messages"] if m["role"] == "tool"]
    assert "At noon." in lead_tool[0]["content"]
    calls = [(e["nodeId"], e["toolId"]) for e in of_type(wf_run.events, "agent:tool_call")]
    assert calls == [("lead", "invoke_agent"), ("research", "read_file")]
    assert [c["nodeId"] for c in of_type(wf_run.events, "cost:updated")] == ["research", "lead"]
    assert "research" not in [e.get("nodeId") for e in of_type(wf_run.events, "node:started")]


async def test_a_wrong_delegate_id_is_fed_back_and_a_failing_delegate_fails_the_caller_with_its_cause(
    llm_server: ScriptedLLMServer, workspace: Path, relavium_home: Path
) -> None:
    eng = engine(llm_server, workspace, relavium_home)
    # A node id that is no agent node: the model is told and corrects itself.
    llm_server.script(
        Reply.call("invoke_agent", {"nodeId": "out", "input": "q"}),
        Reply.call("invoke_agent", {"nodeId": "research", "input": "q"}),
        Reply.say("At noon."),
        Reply.say("Fixed."),
    )
    result, wf_run = await run(eng, ORCHESTRATED, {"topic": "tides"})
    assert result.status == "completed" and result.outputs == {"out": "Fixed."}
    first = of_type(wf_run.events, "agent:tool_result")[0]
    assert first["success"] is False and first["error"]["code"] == "invalid_args"
    fed_back = next(m for m in llm_server.requests[1].body["messages"] if m["role"] == "tool")["content"]
    assert "'out' is not an agent node" in fed_back

    # The delegate's key is refused: the caller fails with provider_auth, not a generic tool_failed.
    before = len(llm_server.requests)
    llm_server.script(Reply.call("invoke_agent", {"nodeId": "research", "input": "q"}), Reply.error(401))
    result, wf_run = await run(eng, ORCHESTRATED, {"topic": "tides"})
    err = of_type(wf_run.events, "node:failed")[0]
    assert result.status == "failed" and err["nodeId"] == "lead"
    assert err["error"]["code"] == "provider_auth" and err["error"]["retryable"] is False
    assert "HTTP 401" in err["error"]["message"]
    assert len(llm_server.requests) == before + 2  # the lead was not asked again


SCHEMA_WF = """schema_version: '1.0'
workflow:
  id: structured
  agents:
    - id: judge
      provider: openai
      model: gpt-4o-mini
      system_prompt: You judge.
      output_schema: {type: object, required: [verdict], properties: {verdict: {type: string}}}
  nodes:
    - {id: start, type: input}
    - {id: judge, type: agent, agent_ref: judge, prompt_template: 'Judge it.'}
    - {id: out, type: output}
  edges: [{from: start, to: judge}, {from: judge, to: out}]
"""


async def test_output_schema_asks_for_json_and_checks_the_reply(
    llm_server: ScriptedLLMServer, workspace: Path, relavium_home: Path
) -> None:
    eng = engine(llm_server, workspace, relavium_home)
    llm_server.script(Reply.say('```json\n{"verdict": "ship it"}\n```'))
    result, _ = await run(eng, SCHEMA_WF)
    assert result.status == "completed"
    assert result.outputs == {"out": {"verdict": "ship it"}}
    system = llm_server.requests[0].body["messages"][0]["content"]
    assert system.startswith("You judge.") and '"required": ["verdict"]' in system

    llm_server.script(Reply.say("I think it is fine."))
    result, wf_run = await run(eng, SCHEMA_WF)
    err = of_type(wf_run.events, "node:failed")[0]["error"]
    assert (err["code"], err["reason"]) == ("validation", "output_schema")
    assert "not JSON" in err["message"]

    llm_server.script(Reply.say('{"score": 3}'))
    result, wf_run = await run(eng, SCHEMA_WF)
    err = of_type(wf_run.events, "node:failed")[0]["error"]
    assert err["code"] == "validation" and "output.verdict is required" in err["message"]


RETRY_WF = """schema_version: '1.0'
workflow:
  id: retrying
  agents:
    - id: a
      provider: openai
      model: gpt-4o-mini
      retry: {max: 2, backoff: linear, backoff_ms: 10}
      fallback_chain: [{provider: anthropic, model: claude-sonnet-4}]
  nodes:
    - {id: start, type: input}
    - {id: a, type: agent, agent_ref: a, prompt_template: hi}
  edges: [{from: start, to: a}]
"""


async def test_fallback_within_an_attempt_then_node_retry_then_auth_is_final(
    llm_server: ScriptedLLMServer, workspace: Path, relavium_home: Path
) -> None:
    eng = engine(llm_server, workspace, relavium_home)
    # Primary 503 -> fallback model in the same attempt answers.
    llm_server.script(Reply.error(503), Reply.say("from the fallback"))
    result, wf_run = await run(eng, RETRY_WF)
    assert result.status == "completed" and result.outputs == {"a": "from the fallback"}
    fallback = of_type(wf_run.events, "agent:provider_fallback")[0]
    assert fallback["to"] == {"provider": "anthropic", "model": "claude-sonnet-4"}
    assert of_type(wf_run.events, "cost:updated")[0]["model"] == "claude-sonnet-4"
    assert not of_type(wf_run.events, "node:retrying")

    # The whole chain unavailable -> the node is retried as the agent's retry says.
    llm_server.script(Reply.error(503), Reply.error(502), Reply.say("second attempt"))
    result, wf_run = await run(eng, RETRY_WF)
    assert result.status == "completed" and result.outputs == {"a": "second attempt"}
    retrying = of_type(wf_run.events, "node:retrying")
    assert len(retrying) == 1 and retrying[0]["error"]["code"] == "provider_unavailable"

    # A refused key is not retried and stops the chain: another model would not fix it.
    before = len(llm_server.requests)
    llm_server.script(Reply.error(401))
    result, wf_run = await run(eng, RETRY_WF)
    err = of_type(wf_run.events, "node:failed")[0]["error"]
    assert result.status == "failed" and err["code"] == "provider_auth"
    assert "HTTP 401" in err["message"] and KEY not in json.dumps(wf_run.events)
    assert len(llm_server.requests) == before + 1 and not of_type(wf_run.events, "node:retrying")


async def test_cancelling_the_run_stops_a_streaming_agent(
    llm_server: ScriptedLLMServer, workspace: Path, relavium_home: Path
) -> None:
    llm_server.script(Reply.stall("thinking about"))
    wf_run = engine(llm_server, workspace, relavium_home).start(load(READER), {"file": "x"})
    task = asyncio.create_task(wf_run.run())
    while not of_type(wf_run.events, "agent:token"):
        await asyncio.sleep(0.01)
    wf_run.cancel()
    result = await asyncio.wait_for(task, 10)
    assert result.status == "cancelled"
    terminal = [e["type"] for e in wf_run.events if e["type"] in ("run:completed", "run:failed", "run:cancelled")]
    assert terminal == ["run:cancelled"]


async def test_an_unknown_provider_entry_fails_the_node_clearly(
    llm_server: ScriptedLLMServer, workspace: Path, relavium_home: Path
) -> None:
    text = READER.replace("provider: openai", "provider: nowhere")
    result, wf_run = await run(engine(llm_server, workspace, relavium_home), text, {"file": "x"})
    err = of_type(wf_run.events, "node:failed")[0]["error"]
    assert result.status == "failed" and err["code"] == "validation"
    assert "no provider named 'nowhere'" in err["message"] and llm_server.requests == []


def test_provider_inference_and_json_replies() -> None:
    assert infer_provider("claude-sonnet-4-6") == "anthropic"
    assert infer_provider("gpt-4o-mini") == "openai"
    assert infer_provider("gemini-2.5-flash") == "gemini"
    assert infer_provider("llama3:8b") is None
    assert parse_json_reply("n", ' [1, 2] ') == [1, 2]
    assert parse_json_reply("n", "```\n{\"a\": 1}\n```") == {"a": 1}
    with pytest.raises(NodeError) as info:
        parse_json_reply("n", "{not json")
    assert info.value.reason == "output_schema"


async def test_an_agent_without_a_provider_or_a_known_model_family_fails_before_any_request(
    llm_server: ScriptedLLMServer, workspace: Path, relavium_home: Path
) -> None:
    text = READER.replace("      provider: openai\n      model: gpt-4o-mini\n", "      model: llama3\n")
    result, wf_run = await run(engine(llm_server, workspace, relavium_home), text, {"file": "x"})
    err = of_type(wf_run.events, "node:failed")[0]["error"]
    assert result.status == "failed" and err["code"] == "validation" and "set provider:" in err["message"]
    assert llm_server.requests == []


FAILING_AFTER_SPEND_WF = """schema_version: '1.0'
workflow:
  id: spends-then-fails
  tools: {allowedCommands: ['echo ok']}
  agents:
    - {id: a, provider: openai, model: gpt-4o-mini, tools: [run_command]}
  nodes:
    - {id: start, type: input}
    - {id: a, type: agent, agent_ref: a, prompt_template: go}
  edges: [{from: start, to: a}]
"""


@pytest.mark.spawns  # runs a real command: kept out of the fast lane
async def test_tokens_of_an_agent_that_then_fails_are_counted(
    llm_server: ScriptedLLMServer, workspace: Path, relavium_home: Path
) -> None:
    eng = engine(llm_server, workspace, relavium_home)
    # Two paid turns (12 in / 7 out each), then a denied command fails the node.
    llm_server.script(Reply.call("run_command", {"command": "echo", "args": ["ok"]}),
                      Reply.call("run_command", {"command": "rm", "args": ["-rf", "."]}))
    result, wf_run = await run(eng, FAILING_AFTER_SPEND_WF)
    assert result.status == "failed"
    assert of_type(wf_run.events, "node:failed")[0]["error"]["code"] == "tool_denied"
    cost = of_type(wf_run.events, "cost:updated")
    assert [(c["nodeId"], c["inputTokens"], c["outputTokens"]) for c in cost] == [("a", 24, 14)]
    assert of_type(wf_run.events, "run:failed")[0]["totalTokensUsed"] == {"input": 24, "output": 14}
    # The journal's totals (what Runs/History shows) carry the same figures.
    assert eng.journal.summaries[result.run_id]["totalTokensUsed"] == {"input": 24, "output": 14}

    # A reply that misses the agent's output_schema was paid for too.
    schema_wf = FAILING_AFTER_SPEND_WF.replace(
        "tools: [run_command]}", "tools: [run_command], output_schema: {type: object}}")
    llm_server.script(Reply.say("prose, not JSON", usage=(30, 5)))
    result, wf_run = await run(eng, schema_wf)
    assert result.status == "failed"
    assert of_type(wf_run.events, "run:failed")[0]["totalTokensUsed"] == {"input": 30, "output": 5}


REF_AGENT_WF = """schema_version: '1.0'
workflow:
  id: ref-agent
  agents: [{$ref: agents/a.agent.yaml}]
  nodes:
    - {id: start, type: input}
    - {id: a, type: agent, agent_ref: a, prompt_template: hi}
  edges: [{from: start, to: a}]
"""


async def test_a_ref_agent_run_file_runs_with_its_retry_counting_attempts(
    llm_server: ScriptedLLMServer, workspace: Path, relavium_home: Path
) -> None:
    eng = engine(llm_server, workspace, relavium_home)
    # max: 2 is two attempts, the first included (agent spec).
    agent_file = "id: a\nprovider: openai\nmodel: gpt-4o-mini\nretry: {max: 2, backoff: fixed, backoff_ms: 250}\n"
    wf = load(REF_AGENT_WF, read_ref={"agents/a.agent.yaml": agent_file}.__getitem__)
    llm_server.script(Reply.error(503), Reply.say("second attempt"))
    wf_run = eng.start(wf, {})
    result = await wf_run.run()
    assert result.status == "completed" and result.outputs == {"a": "second attempt"}
    assert [(e["attemptNumber"], e["delayMs"]) for e in of_type(wf_run.events, "node:retrying")] == [(2, 250)]

    # max: 1 (the agent spec's default) is no retry at all.
    no_retry = agent_file.replace("max: 2", "max: 1")
    wf = load(REF_AGENT_WF, read_ref={"agents/a.agent.yaml": no_retry}.__getitem__)
    llm_server.script(Reply.error(503))
    wf_run = eng.start(wf, {})
    result = await wf_run.run()
    assert result.status == "failed" and not of_type(wf_run.events, "node:retrying")
    assert of_type(wf_run.events, "node:failed")[0]["error"]["code"] == "provider_unavailable"
