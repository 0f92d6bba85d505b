"""Loading: strict schema, graph checks, each a positioned, single clear message."""

from __future__ import annotations

import pytest

from relavium_desktop.engine.agent.yaml_source import parse_agent_yaml
from relavium_desktop.engine.workflow.errors import WorkflowError
from tests.engine.workflow.wfhelpers import HARNESS, load

HEAD = "schema_version: '1.0'\nworkflow:\n  id: w\n"


def issues(text: str, **kw: object) -> list[str]:
    with pytest.raises(WorkflowError) as info:
        load(text, "bad.relavium.yaml", **kw)
    return str(info.value).splitlines()


def test_the_harness_fixture_loads_with_authored_order_ties() -> None:
    wf = load(HARNESS.read_text())
    assert wf.plan.order == ["start", "check", "hi", "lo", "out"]


def test_unknown_key_names_file_line_column() -> None:
    text = HEAD + "  nodes:\n    - id: a\n      type: input\n      colour: red\n"
    assert issues(text) == ["bad.relavium.yaml:7:7: unknown key 'colour'"]


def test_unknown_top_level_key_and_bad_schema_version() -> None:
    text = "schema_version: '2.0'\nworkflow:\n  id: w\n  nodez: []\n  nodes: [{id: a, type: input}]\n"
    out = issues(text)
    assert out[0].startswith("bad.relavium.yaml:1:1: schema_version")
    assert out[1] == "bad.relavium.yaml:4:3: unknown key 'nodez'"


def test_cycle_is_named() -> None:
    text = HEAD + (
        "  nodes:\n    - {id: s, type: input}\n    - {id: a, type: transform, transform: '1'}\n"
        "    - {id: b, type: transform, transform: '2'}\n"
        "  edges: [{from: s, to: a}, {from: a, to: b}, {from: b, to: a}]\n"
    )
    assert issues(text) == ["bad.relavium.yaml:6:7: cycle: a → b → a"]


def test_missing_agent_ref() -> None:
    text = HEAD + (
        "  agents: [{id: writer, model: m}]\n"
        "  nodes:\n    - {id: s, type: input}\n    - {id: a, type: agent, agent_ref: wirter}\n"
        "  edges: [{from: s, to: a}]\n"
    )
    assert issues(text) == ["bad.relavium.yaml:7:28: agent_ref 'wirter' names no agent in agents"]


def test_widening_node_tools_is_refused() -> None:
    text = HEAD + (
        "  agents: [{id: writer, tools: [read_file]}]\n"
        "  nodes:\n    - {id: s, type: input}\n"
        "    - {id: a, type: agent, agent_ref: writer, tools: [read_file, run_command]}\n"
        "  edges: [{from: s, to: a}]\n"
    )
    (line,) = issues(text)
    assert line.startswith("bad.relavium.yaml:7:47: node 'a' tools may only narrow agent 'writer'")
    assert line.endswith("not granted to the agent: run_command")


def test_narrowing_is_fine() -> None:
    text = HEAD + (
        "  agents: [{id: writer, tools: [read_file, write_file]}]\n"
        "  nodes:\n    - {id: s, type: input}\n    - {id: a, type: agent, agent_ref: writer, tools: [read_file]}\n"
        "  edges: [{from: s, to: a}]\n"
    )
    assert load(text).plan.order == ["s", "a"]


def test_unreachable_node_and_unknown_edge_target() -> None:
    text = HEAD + (
        "  nodes:\n    - {id: s, type: input}\n    - {id: a, type: transform, transform: '1'}\n"
        "    - {id: lost, type: transform, transform: '2'}\n"
        "  edges: [{from: s, to: a}, {from: a, to: nowhere}]\n"
    )
    assert issues(text) == [
        "bad.relavium.yaml:8:39: edge target 'nowhere' is not a node",
        "bad.relavium.yaml:7:7: node 'lost' is unreachable from the workflow's input",
    ]


def test_condition_edges_need_a_matching_handle() -> None:
    text = HEAD + (
        "  nodes:\n    - {id: s, type: input}\n"
        "    - {id: c, type: condition, expression: 'true', branches: [{when: true, target_node: a}]}\n"
        "    - {id: a, type: transform, transform: '1'}\n"
        "  edges: [{from: s, to: c}, {from: 'c:maybe', to: a}, {from: c, to: a}]\n"
    )
    out = issues(text)
    assert "condition 'c' has no branch 'maybe'" in out[0]
    assert "needs a branch handle" in out[1]


def test_yaml_syntax_error_is_positioned() -> None:
    assert issues(HEAD + "  nodes: [\n")[0].startswith("bad.relavium.yaml:5:")


def test_secret_input_cannot_reach_a_prompt_even_through_context() -> None:
    text = HEAD + (
        "  inputs: [{name: token, type: secret}]\n"
        "  context: [{key: t, value: 'x {{ inputs.token }}'}, {key: u, value: '{{ ctx.t }}'}]\n"
        "  agents: [{id: w}]\n"
        "  nodes:\n    - {id: s, type: input}\n"
        "    - {id: a, type: agent, agent_ref: w, prompt_template: 'use {{ ctx.u }}'}\n"
        "  edges: [{from: s, to: a}]\n"
    )
    (line,) = issues(text)
    assert "a secret input may not be interpolated into prompt_template" in line


def test_unknown_tool_and_template_filter() -> None:
    text = HEAD + (
        "  nodes:\n    - {id: s, type: input}\n"
        "    - {id: t, type: tool, tool_config: {tool_name: rm_rf}}\n"
        "    - {id: u, type: tool, tool_config: {tool_name: write_file,"
        " input_mapping: {path: a, content: '{{ inputs.x | shout }}'}}}\n"
        "  edges: [{from: s, to: t}, {from: s, to: u}]\n"
    )
    out = issues(text, known_tools={"write_file", "read_file"})
    assert any("unknown tool 'rm_rf'" in line for line in out)
    assert any("unknown template filter 'shout'" in line for line in out)


def test_parallel_fan_out_edges_must_agree_with_parallel_of() -> None:
    text = HEAD + (
        "  nodes:\n    - {id: s, type: input}\n    - {id: p, type: parallel, parallel_of: [a]}\n"
        "    - {id: a, type: transform, transform: '1'}\n    - {id: b, type: transform, transform: '2'}\n"
        "  edges: [{from: s, to: p}, {from: p, to: b}]\n"
    )
    assert "fans out only to its parallel_of members" in issues(text)[0]


def test_agent_ref_files_are_read_through_the_callers_reader() -> None:
    text = HEAD + (
        "  agents: [{$ref: agents/w.agent.yaml}]\n"
        "  nodes:\n    - {id: s, type: input}\n    - {id: a, type: agent, agent_ref: w}\n"
        "  edges: [{from: s, to: a}]\n"
    )
    files = {"agents/w.agent.yaml": "schema_version: '1.0'\nagent:\n  id: w\n  tools: [read_file]\n"}
    wf = load(text, read_ref=files.__getitem__)
    assert wf.agents["w"].tools == ["read_file"]
    bad = {"agents/w.agent.yaml": "agent:\n  id: w\n  temprature: 1\n"}
    with pytest.raises(WorkflowError) as info:
        load(text, read_ref=bad.__getitem__)
    assert str(info.value) == "agents/w.agent.yaml:3:3: unknown key 'temprature'"


REF_WF = HEAD + (
    "  agents: [{$ref: agents/w.agent.yaml}]\n"
    "  nodes:\n    - {id: s, type: input}\n    - {id: a, type: agent, agent_ref: w}\n"
    "  edges: [{from: s, to: a}]\n"
)

# Issue 6's flat *.agent.yaml, exactly as `relavium agent run` reads it.
AGENT_FILE = """\
id: w
name: Writer
provider: openai
model: gpt-4o-mini
system_prompt: You write.
tools: [read_file]
retry: {max: 1, backoff: fixed, backoff_ms: 250, retry_on: [provider_unavailable]}
fallback_chain: [{provider: anthropic, model: claude-sonnet-4, max_attempts: 2}]
"""


def test_a_ref_may_be_an_agent_run_file_with_the_agent_specs_retry_block() -> None:
    # The same text is a valid agent for `relavium agent run` ...
    spec = parse_agent_yaml(AGENT_FILE, "agents/w.agent.yaml")
    assert (spec.retry.max, spec.retry.backoff) == (1, "fixed")
    # ... and a valid $ref agent of a workflow, with the same retry and fallback models.
    wf = load(REF_WF, read_ref={"agents/w.agent.yaml": AGENT_FILE}.__getitem__)
    agent = wf.agents["w"]
    assert agent.retry == spec.retry and agent.fallback_chain == list(spec.fallback_chain)
    assert (agent.provider, agent.model, agent.tools) == ("openai", "gpt-4o-mini", ["read_file"])


def test_upstream_wrapped_agent_files_and_inline_agents_keep_parsing() -> None:
    wrapped = ("schema_version: '1.0'\nagent:\n  id: w\n  model: claude-sonnet-4-6\n"
               "  retry: {max: 2, backoff: linear, backoff_ms: 10}\n")
    wf = load(REF_WF, read_ref={"agents/w.agent.yaml": wrapped}.__getitem__)
    assert (wf.agents["w"].retry.max, wf.agents["w"].retry.backoff) == (2, "linear")
    inline = HEAD + (
        "  agents: [{id: w, model: gpt-4o, retry: {max: 1, backoff: fixed}}]\n"
        "  nodes:\n    - {id: s, type: input}\n    - {id: a, type: agent, agent_ref: w}\n"
        "  edges: [{from: s, to: a}]\n"
    )
    assert load(inline).agents["w"].retry.max == 1


def test_agent_file_retry_and_fallback_problems_name_file_line_column() -> None:
    bad = AGENT_FILE.replace("backoff: fixed", "backoff: jittery").replace("max_attempts: 2", "max_attempts: 9")
    with pytest.raises(WorkflowError) as info:
        load(REF_WF, read_ref={"agents/w.agent.yaml": bad}.__getitem__)
    lines = str(info.value).splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("agents/w.agent.yaml:7:17: retry.backoff: Input should be 'fixed', 'linear' or")
    assert lines[1].startswith("agents/w.agent.yaml:8:")
    assert "fallback_chain.max_attempts: Input should be less than or equal to 5" in lines[1]
    unknown = AGENT_FILE.replace("retry: {max: 1,", "retry: {max: 1, jitter: true,")
    with pytest.raises(WorkflowError) as info:
        load(REF_WF, read_ref={"agents/w.agent.yaml": unknown}.__getitem__)
    assert str(info.value) == "agents/w.agent.yaml:7:17: unknown key 'jitter'"


def test_agent_retry_max_counts_attempts_so_zero_is_refused_with_the_rule() -> None:
    # The agent spec: retry.max is the total number of attempts, the first included.
    zero = AGENT_FILE.replace("retry: {max: 1,", "retry: {max: 0,")
    with pytest.raises(WorkflowError) as info:
        load(REF_WF, read_ref={"agents/w.agent.yaml": zero}.__getitem__)
    assert str(info.value) == ("agents/w.agent.yaml:7:9: retry.max: retry.max counts every attempt, the first "
                               "included: at least 1 (1 is no retry)")
