"""Upstream's agent and node fields this engine used to refuse, supported or refused with the reason.

``reasoning_effort`` is checked where it matters: in the request body each
provider's real wire client sent to the scripted LLM server (OpenAI's
``reasoning_effort``, Anthropic's extended thinking, Gemini's thinking
budget).  ``input_schema`` fails a node before any request.  The rest are
load-time behaviour of the real loader.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.workflow.agent_loop_runner import AgentLoopRunner
from relavium_desktop.engine.workflow.errors import WorkflowError
from relavium_desktop.engine.workflow.journal import MemoryJournal
from relavium_desktop.engine.workflow.run import RunResult, WorkflowEngine, WorkflowRun
from relavium_desktop.host.assembly import HostSettings, build_host
from relavium_desktop.providers.config import ProviderEntry, basic_validate_base_url, env_resolver
from relavium_desktop.providers.factory import ProviderSet
from tests.engine.workflow.wfhelpers import load, of_type
from tests.fixtures.llm_server import Reply, ScriptedLLMServer, thinking_signature

KEY = "sk-test-SPECFIELDS0123456789abcdefgh"


def engine(server: ScriptedLLMServer, tmp_path: Path) -> WorkflowEngine:
    base = server.base_url
    entries = {
        "openai": ProviderEntry(kind="openai", base_url=base + "/v1", api_key="env:K", allow_local=True),
        "anthropic": ProviderEntry(kind="anthropic", base_url=base, api_key="env:K", allow_local=True),
        "gemini": ProviderEntry(kind="gemini", base_url=base, api_key="env:K", allow_local=True),
    }
    providers = ProviderSet(entries, resolve_secret=env_resolver({"K": KEY}), validate_base_url=basic_validate_base_url)
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    host = build_host(HostSettings(workspace=ws, home=tmp_path / "home", surface="workflow"))
    return WorkflowEngine(ToolRegistry(BUILTIN_TOOLS, host), agent_runner=AgentLoopRunner(providers=providers),
                          journal=MemoryJournal())


async def run(eng: WorkflowEngine, text: str, inputs: dict[str, Any] | None = None) -> tuple[RunResult, WorkflowRun]:
    wf_run = eng.start(load(text), inputs or {})
    return await wf_run.run(), wf_run


THREE = """schema_version: '1.0'
workflow:
  id: thinkers
  agents:
    - {{id: o, provider: openai, model: o4-mini, reasoning_effort: {effort}{extra}}}
    - {{id: a, provider: anthropic, model: claude-sonnet-4, reasoning_effort: {effort}{extra}}}
    - {{id: g, provider: gemini, model: gemini-2.5-flash, reasoning_effort: {effort}{extra}}}
  nodes:
    - {{id: s, type: input}}
    - {{id: o, type: agent, agent_ref: o, prompt_template: think}}
    - {{id: a, type: agent, agent_ref: a, prompt_template: think}}
    - {{id: g, type: agent, agent_ref: g, prompt_template: think}}
  edges: [{{from: s, to: o}}, {{from: o, to: a}}, {{from: a, to: g}}]
"""


def bodies(server: ScriptedLLMServer) -> dict[str, dict[str, Any]]:
    return {r.dialect.split("-")[0]: r.body for r in server.requests}


@pytest.mark.parametrize(("effort", "openai", "budget"), [
    ("low", "low", 1024), ("high", "high", 16384), ("max", "high", 24576)])
async def test_reasoning_effort_reaches_each_providers_own_control(
    llm_server: ScriptedLLMServer, tmp_path: Path, effort: str, openai: str, budget: int
) -> None:
    llm_server.script(Reply.say("o"), Reply.say("a"), Reply.say("g"))
    result, _ = await run(engine(llm_server, tmp_path), THREE.format(effort=effort, extra=""))
    assert result.status == "completed", result.error
    sent = bodies(llm_server)
    assert set(sent) == {"openai", "anthropic", "gemini"}
    assert sent["openai"]["reasoning_effort"] == openai
    assert sent["anthropic"]["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert sent["anthropic"]["max_tokens"] == 4096 + budget  # the answer keeps its room above the budget
    assert sent["gemini"]["generationConfig"]["thinkingConfig"] == {"thinkingBudget": budget}


async def test_off_and_an_explicit_cap(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    llm_server.script(Reply.say("o"), Reply.say("a"), Reply.say("g"))
    result, _ = await run(engine(llm_server, tmp_path), THREE.format(effort="off", extra=", temperature: 0.5"))
    assert result.status == "completed", result.error
    sent = bodies(llm_server)
    assert sent["openai"]["reasoning_effort"] == "minimal"
    assert "thinking" not in sent["anthropic"] and sent["anthropic"]["temperature"] == 0.5
    assert sent["gemini"]["generationConfig"]["thinkingConfig"] == {"thinkingBudget": 0}
    # A Gemini Pro model cannot stop thinking: off is its lowest budget there.
    llm_server.requests.clear()
    llm_server.script(Reply.say("o"), Reply.say("a"), Reply.say("g"))
    await run(engine(llm_server, tmp_path), THREE.format(effort="off", extra="").replace("gemini-2.5-flash",
                                                                                       "gemini-2.5-pro"))
    assert bodies(llm_server)["gemini"]["generationConfig"]["thinkingConfig"] == {"thinkingBudget": 128}

    # An author's max_tokens is a cost cap: the thinking budget fits below it, never raises it;
    # a cap under Anthropic's 1,024-token floor sends no thinking at all.
    llm_server.requests.clear()
    llm_server.script(Reply.say("o"), Reply.say("a"), Reply.say("g"))
    result, _ = await run(engine(llm_server, tmp_path), THREE.format(effort="high", extra=", max_tokens: 3000"))
    assert result.status == "completed", result.error
    anthropic = bodies(llm_server)["anthropic"]
    assert anthropic["thinking"] == {"type": "enabled", "budget_tokens": 2999} and anthropic["max_tokens"] == 3000
    openai = bodies(llm_server)["openai"]  # OpenAI's reasoning models take the cap only as max_completion_tokens
    assert openai["max_completion_tokens"] == 3000 and "max_tokens" not in openai
    llm_server.requests.clear()
    llm_server.script(Reply.say("o"), Reply.say("a"), Reply.say("g"))
    result, _ = await run(engine(llm_server, tmp_path), THREE.format(effort="high", extra=", max_tokens: 800"))
    anthropic = bodies(llm_server)["anthropic"]
    assert "thinking" not in anthropic and anthropic["max_tokens"] == 800
    # Without the field nothing is sent: the provider's default.
    llm_server.requests.clear()
    llm_server.script(Reply.say("o"), Reply.say("a"), Reply.say("g"))
    await run(engine(llm_server, tmp_path), THREE.format(effort="low", extra="").replace(", reasoning_effort: low", ""))
    sent = bodies(llm_server)
    assert "reasoning_effort" not in sent["openai"] and "thinking" not in sent["anthropic"]
    assert "thinkingConfig" not in sent["gemini"].get("generationConfig", {})


def test_an_unknown_effort_is_refused_at_its_line() -> None:
    with pytest.raises(WorkflowError) as info:
        load(THREE.format(effort="extreme", extra=""))
    assert info.value.issues[0].line == 5
    assert "'off', 'low', 'medium', 'high' or 'max'" in info.value.issues[0].message


SCHEMA_WF = """schema_version: '1.0'
workflow:
  id: typed
  inputs: [{name: payload, type: string}]
  agents:
    - id: a
      provider: openai
      model: gpt-4o-mini
      input_schema: {type: object, required: [topic], properties: {topic: {type: string}}}
  nodes:
    - {id: s, type: input}
    - {id: a, type: agent, agent_ref: a, prompt_template: '{{ inputs.payload }}'}
  edges: [{from: s, to: a}]
"""


async def test_input_schema_checks_the_agents_input_before_any_request(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    eng = engine(llm_server, tmp_path)
    result, wf_run = await run(eng, SCHEMA_WF, {"payload": '{"subject": "tides"}'})
    assert result.status == "failed"
    err = of_type(wf_run.events, "node:failed")[0]["error"]
    assert (err["code"], err["reason"]) == ("validation", "input_schema")
    assert err["message"] == "agent node 'a': input does not match the agent's input_schema (required: [\"topic\"])"
    assert "tides" not in err["message"] and llm_server.requests == []

    llm_server.script(Reply.say("ok"))
    result, _ = await run(eng, SCHEMA_WF, {"payload": '{"topic": "tides"}'})
    assert result.status == "completed", result.error
    assert llm_server.requests[0].body["messages"][-1]["content"] == '{"topic": "tides"}'


def test_an_input_schema_that_is_not_a_schema_is_refused() -> None:
    with pytest.raises(WorkflowError) as info:
        load(SCHEMA_WF.replace("{type: object,", "{type: 12,"))
    assert "input_schema is not a valid JSON Schema" in str(info.value)


MCP = """schema_version: '1.0'
workflow:
  id: tools
  mcp_servers:
    - {name: files, transport: stdio, command: mcp-files}
  agents:
    - id: a
      provider: openai
      model: gpt-4o-mini
      mcp_servers:
        - {name: calc, transport: stdio, command: calc-server, args: [--fast]}
        - {id: web, transport: http, url: 'https://mcp.example.com/mcp'}
  nodes:
    - {id: s, type: input}
    - {id: a, type: agent, agent_ref: a, prompt_template: hi}
  edges: [{from: s, to: a}]
"""


def test_mcp_servers_may_be_written_as_upstreams_list() -> None:
    wf = load(MCP)
    assert wf.file.workflow.mcp_servers == {"files": {"transport": "stdio", "command": "mcp-files"}}
    assert wf.agents["a"].mcp_servers == {
        "calc": {"transport": "stdio", "command": "calc-server", "args": ["--fast"]},
        "web": {"transport": "http", "url": "https://mcp.example.com/mcp"},
    }
    for broken, words in (
        ("- {id: web,", "names 'calc' twice", ),
        ("- {name: calc,", "needs a name"),
    ):
        text = MCP.replace(broken, "- {id: calc," if "twice" in words else "- {",  1)
        with pytest.raises(WorkflowError) as info:
            load(text)
        assert words in str(info.value), str(info.value)


AGENT_NODE = """schema_version: '1.0'
workflow:
  id: f
  agents:
    - {{id: a, provider: openai, model: gpt-4o-mini{agent}}}
  nodes:
    - {{id: s, type: input}}
    - {{id: a, type: agent, agent_ref: a, prompt_template: hi{node}}}
    - {{id: m, type: merge{merge}}}
  edges: [{{from: s, to: a}}, {{from: a, to: m}}]
"""


@pytest.mark.parametrize(("agent", "node", "merge", "words"), [
    ("", ", count: 4", "", "count is not supported yet"),
    ("", ", duration_seconds: 8", "", "duration_seconds is not supported yet"),
    (", memory: {type: window, window_size: 5}", "", "", "memory type 'window' is not supported yet: window and "
     "summary memory are a later phase upstream"),
    ("", "", ", merge_strategy: object_merge, merge_fn: 'a'", "upstream accepts and ignores it"),
])
def test_later_phase_fields_are_refused_saying_so(agent: str, node: str, merge: str, words: str) -> None:
    with pytest.raises(WorkflowError) as info:
        load(AGENT_NODE.format(agent=agent, node=node, merge=merge))
    assert words in str(info.value), str(info.value)


def test_fields_that_run_are_accepted() -> None:
    wf = load(AGENT_NODE.format(agent=", memory: {type: none}, retry: {max: 2, retry_on: [sandbox_error, tool_failed]}",
                                node="", merge=""))
    agent = wf.agents["a"]
    assert agent.memory is not None and agent.memory.type == "none"
    assert agent.retry is not None and agent.retry.retry_on == ["sandbox_error", "tool_failed"]


THINK_TOOLS = """schema_version: '1.0'
workflow:
  id: thinking-tools
  agents:
    - {id: a, provider: anthropic, model: claude-sonnet-4, reasoning_effort: low, tools: [read_file]}
  nodes:
    - {id: s, type: input}
    - {id: a, type: agent, agent_ref: a, prompt_template: 'What does notes.txt say?'}
  edges: [{from: s, to: a}]
"""


async def test_anthropic_signed_thinking_goes_back_in_the_tool_loop(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    """With extended thinking on, Anthropic requires the signed thinking block in a tool loop's assistant turn."""
    eng = engine(llm_server, tmp_path)
    (tmp_path / "ws" / "notes.txt").write_text("the tide turns at noon\n")
    thought = "I should read the file first."
    llm_server.script(replace(Reply.call("read_file", {"path": "notes.txt"}), reasoning=thought),
                      Reply.say("It says the tide turns at noon."))
    result, _ = await run(eng, THINK_TOOLS)
    assert result.status == "completed", result.error
    first, second = (r.body for r in llm_server.requests)
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assistant = next(m for m in second["messages"] if m["role"] == "assistant")
    assert assistant["content"][0] == {"type": "thinking", "thinking": thought,
                                       "signature": thinking_signature(thought)}
    assert assistant["content"][1]["type"] == "tool_use"
