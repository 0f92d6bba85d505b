"""Engine-level semantics of issue 30: branch routing, template checks, budgets, system_prompt, save_to.

The CLI half (tests/cli/test_workflow_semantics_cli.py) runs the same rules
through ``relavium run``; here the engine's parts are driven directly: the
real loader and scheduler, the real agent loop against the scripted LLM
server where a model is involved.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.engine.agent.egress_check import (
    DEFAULT_MAX_TOKENS_ESTIMATE,
    EgressRefused,
    input_tokens_estimate,
    worst_case_microcents,
)
from relavium_desktop.engine.agent.routing import Route
from relavium_desktop.engine.events import BudgetWarning, RunEvent
from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.engine.llm.provider import ChatRequest
from relavium_desktop.engine.workflow.budget import PAUSE_REASON, BudgetGovernor
from relavium_desktop.engine.workflow.errors import WorkflowError
from relavium_desktop.engine.workflow.handlers import save_to_problem
from relavium_desktop.engine.workflow.models import Budget
from tests.engine.workflow.test_agent_loop_runner import engine as agent_engine
from tests.engine.workflow.test_agent_loop_runner import run as agent_run
from tests.engine.workflow.wfhelpers import load, node_sequence, of_type, run
from tests.fixtures.llm_server import Reply, ScriptedLLMServer

HEAD = "schema_version: '1.0'\nworkflow:\n  id: w\n"


def problems(text: str, **kw: Any) -> list[str]:
    with pytest.raises(WorkflowError) as info:
        load(text, **kw)
    return str(info.value).splitlines()


# -- 1. branch routing ----------------------------------------------------------------------

GATE_ON_UNTAKEN_BRANCH = HEAD + """  nodes:
    - {id: s, type: input}
    - {id: prep, type: transform, transform: '9'}
    - {id: pick, type: condition, expression: 'run.outputs["prep"] < 7',
       branches: [{when: true, target_node: ask}, {when: false, target_node: other}]}
    - {id: ask, type: human_gate, message_template: 'Score {{ run.outputs["prep"] }}'}
    - {id: other, type: transform, transform: '1'}
    - {id: after, type: transform, transform: '2'}
  edges: [{from: s, to: prep}, {from: prep, to: pick}, {from: ask, to: after}]
"""


def test_a_template_read_is_a_data_edge_that_orders_but_never_routes() -> None:
    plan = load(GATE_ON_UNTAKEN_BRANCH).plan
    edges = {(e.source, e.data) for e in plan.in_edges["ask"]}
    assert edges == {("pick", False), ("prep", True)}


async def test_a_gate_reading_an_earlier_output_stays_shut_on_the_untaken_branch() -> None:
    result, wf_run = await run(GATE_ON_UNTAKEN_BRANCH)
    assert result.status == "completed"
    seq = node_sequence(wf_run.events)
    assert "node:skipped:ask" in seq and "node:started:ask" not in seq
    assert "node:skipped:after" in seq  # only the skipped gate leads there
    skipped = {e["nodeId"]: e["reason"] for e in of_type(wf_run.events, "node:skipped")}
    assert skipped == {"ask": "branch_not_taken", "after": "upstream_unreachable"}
    assert not of_type(wf_run.events, "human_gate:paused")


async def test_a_node_whose_only_in_edges_are_template_reads_runs_after_what_it_reads() -> None:
    text = HEAD + """  nodes:
    - {id: s, type: input}
    - {id: a, type: transform, transform: '3'}
    - {id: ask, type: human_gate, message_template: 'a is {{ run.outputs["a"] }}'}
  edges: [{from: s, to: a}]
"""
    result, wf_run = await run(text)
    assert result.status == "paused"
    assert of_type(wf_run.events, "human_gate:paused")[0]["message"] == "a is 3"


def test_validate_reports_an_authored_edge_that_bypasses_the_condition() -> None:
    text = GATE_ON_UNTAKEN_BRANCH.replace("{from: ask, to: after}]", "{from: ask, to: after}, {from: s, to: ask}]")
    (line,) = problems(text)
    assert line.startswith("wf.relavium.yaml:12:81: ")  # the edge's entry in edges:
    assert "node 'ask' is a branch target of condition 'pick', but the route from 's' reaches it" in line


def test_validate_reports_a_parallel_member_that_is_also_a_branch_target() -> None:
    text = GATE_ON_UNTAKEN_BRANCH.replace(
        "    - {id: other, type: transform, transform: '1'}",
        "    - {id: other, type: transform, transform: '1'}\n    - {id: fan, type: parallel, parallel_of: [ask]}",
    ).replace("{from: ask, to: after}]", "{from: ask, to: after}, {from: s, to: fan}]")
    (line,) = problems(text)
    assert "wf.relavium.yaml:11:" in line and "the route from 'fan' reaches it" in line


def test_a_join_of_two_branches_of_one_condition_is_not_a_bypass() -> None:
    # The shape of the spec's complete example: synthesize-report is the false branch's
    # target and also follows the gate on the true branch.
    text = GATE_ON_UNTAKEN_BRANCH.replace("target_node: other}", "target_node: after}").replace(
        "    - {id: other, type: transform, transform: '1'}\n", "")
    load(text)


# -- 5. templates checked at validation -------------------------------------------------------


def test_each_template_fault_is_named_at_its_place() -> None:
    text = HEAD + """  inputs: [{name: path, type: string}, {name: token, type: secret}]
  context:
    - {key: early, value: '{{ ctx.late }}'}
    - {key: late, value: 'x'}
    - {key: hidden, value: 'Bearer {{ inputs.token }}'}
  agents:
    - {id: a, provider: openai, model: gpt-4o-mini, system_prompt: 'Use {{ ctx.hidden }} on {{ inputs.nope }}'}
  nodes:
    - {id: s, type: input}
    - {id: ag, type: agent, agent_ref: a, prompt_template: '{{ run.outputs["ghost"] }}'}
    - {id: ask, type: human_gate, assignee: '{{ inputs.path | read_file }}'}
  edges: [{from: s, to: ag}, {from: ag, to: ask}]
"""
    lines = problems(text)
    assert lines == [
        "wf.relavium.yaml:6:20: context 'early' reads ctx.late, which is defined only after it "
        "(context entries are evaluated in order)",
        "wf.relavium.yaml:13:43: node 'ag' prompt_template reads run.outputs['ghost'], but there is no such node",
        "wf.relavium.yaml:14:35: node 'ask' assignee uses the read_file filter, which a human gate's text cannot "
        "use (read the file in a context entry and use {{ ctx.<key> }})",
        "wf.relavium.yaml:10:53: agent 'a' system_prompt reads inputs.nope, but the workflow declares no such "
        "input (declared: path, token)",
        "wf.relavium.yaml:10:53: agent 'a' system_prompt: a secret input may not be interpolated into agent text",
    ]


def test_a_filter_that_cannot_apply_to_a_declared_input_type_is_refused() -> None:
    text = HEAD + """  inputs: [{name: n, type: number}, {name: ok, type: boolean}, {name: s, type: string}]
  nodes:
    - {id: s, type: input}
    - {id: ask, type: human_gate, message_template: '{{ inputs.n | length }} {{ inputs.s | length }}',
       assignee: '{{ inputs.ok | default("x") }}'}
  edges: [{from: s, to: ask}]
"""
    (line,) = problems(text)
    assert line.endswith("node 'ask' message_template applies length to inputs.n, a number input; "
                         "length needs a string, list or object")


def test_a_ref_agents_system_prompt_is_checked_at_its_agents_entry() -> None:
    text = HEAD + """  agents: [{$ref: agents/a.agent.yaml}]
  nodes:
    - {id: s, type: input}
    - {id: ag, type: agent, agent_ref: a}
  edges: [{from: s, to: ag}]
"""
    agent = "id: a\nprovider: openai\nmodel: gpt-4o-mini\nsystem_prompt: 'Focus: {{ ctx.focus }}'\n"
    (line,) = problems(text, read_ref={"agents/a.agent.yaml": agent}.__getitem__)
    assert line == ("wf.relavium.yaml:4:12: agent 'a' system_prompt reads ctx.focus, but the workflow's context "
                    "defines no such key")


# -- 4. system_prompt sees ctx, for a node and for an invoke_agent delegate ----------------------

DELEGATE_WF = HEAD + """  inputs: [{name: who, type: string}]
  context: [{key: tone, value: 'dry'}]
  agents:
    - {id: lead, provider: openai, model: gpt-4o-mini, system_prompt: 'Lead for {{ inputs.who }}.',
       tools: [invoke_agent]}
    - {id: helper, provider: anthropic, model: claude-sonnet-4, system_prompt: 'Answer in a {{ ctx.tone }} tone.'}
  nodes:
    - {id: s, type: input}
    - {id: lead, type: agent, agent_ref: lead, prompt_template: go}
    - {id: helper, type: agent, agent_ref: helper}
  edges: [{from: s, to: lead}]
"""


async def test_a_delegates_system_prompt_is_rendered_with_the_runs_ctx(
    llm_server: ScriptedLLMServer, tmp_path: Path, relavium_home: Path
) -> None:
    llm_server.script(Reply.call("invoke_agent", {"nodeId": "helper", "input": "hi"}), Reply.say("Fine."),
                      Reply.say("Done."))
    result, _ = await agent_run(agent_engine(llm_server, tmp_path, relavium_home), DELEGATE_WF, {"who": "ana"})
    assert result.status == "completed"
    lead, helper, _ = llm_server.requests
    assert lead.body["messages"][0] == {"role": "system", "content": "Lead for ana."}
    system = helper.body["system"]
    text = system if isinstance(system, str) else "".join(b["text"] for b in system)
    assert text == "Answer in a dry tone."


# -- 2. budget: the estimate and the governor ---------------------------------------------------


def _request(model: str = "gpt-4o-mini", max_tokens: int | None = 10) -> ChatRequest:
    return ChatRequest(model=model, messages=[Message.user("two")], system="You help.", max_tokens=max_tokens)


def test_the_worst_case_is_the_input_estimate_plus_all_of_max_tokens_at_the_models_price() -> None:
    assert input_tokens_estimate(_request()) == 3  # 12 characters, four a token, rounded up
    assert worst_case_microcents(_request()) == 3 * 15 + 10 * 60  # gpt-4o-mini: 15 and 60 micro-cents a token
    assert worst_case_microcents(_request(max_tokens=None)) == 45 + DEFAULT_MAX_TOKENS_ESTIMATE * 60
    assert worst_case_microcents(_request(model="llama3:8b")) is None


def test_the_governor_counts_the_nodes_own_turns_and_warns_once() -> None:
    emitted: list[RunEvent] = []
    state: dict[str, Any] = {"costMicrocents": 4000}
    governor = BudgetGovernor(Budget(max_cost_microcents=5000, on_exceed="warn"), state, emitted.append)
    check = governor.for_node("n")
    route = Route("openai", "gpt-4o-mini")
    check(route, _request(), 0)  # 4,000 + 645 fits
    assert emitted == []
    check(route, _request(), 500)  # 4,500 spent with this node's turns: over
    check(route, _request(), 900)
    assert emitted == [BudgetWarning(spent_microcents=4500, limit_microcents=5000, threshold_pct=90)]

    paused = BudgetGovernor(Budget(max_cost_microcents=5000, on_exceed="pause_for_approval"), state, emitted.append)
    with pytest.raises(EgressRefused) as info:
        paused.for_node("n")(route, _request(), 500)
    assert info.value.code == "budget_exceeded" and info.value.reason == PAUSE_REASON
    state["budgetApproved"] = True  # a person let the run go past the cap
    paused.for_node("n")(route, _request(), 500)


def test_a_budget_with_an_unpriced_fallback_model_is_refused() -> None:
    text = HEAD + """  budget: {max_cost_microcents: 100000, on_exceed: fail}
  agents:
    - {id: a, provider: openai, model: gpt-4o-mini, fallback_chain: [{provider: ollama, model: llama3:8b}]}
  nodes:
    - {id: s, type: input}
    - {id: ag, type: agent, agent_ref: a}
  edges: [{from: s, to: ag}]
"""
    (line,) = problems(text)
    assert line.startswith("wf.relavium.yaml:6:7: budget: no price is known for model 'llama3:8b' (agent 'a')")
    # Without the budget the same workflow is valid: nothing is promised that cannot be kept.
    load(text.replace("  budget: {max_cost_microcents: 100000, on_exceed: fail}\n", ""))
    # A node's own model override is named at the node.
    override = text.replace(", fallback_chain: [{provider: ollama, model: llama3:8b}]", "").replace(
        "{id: ag, type: agent, agent_ref: a}", "{id: ag, type: agent, agent_ref: a, model: qwen2.5}")
    (line,) = problems(override)
    assert line.startswith("wf.relavium.yaml:9:") and "no price is known for model 'qwen2.5'" in line


# -- 6. save_to --------------------------------------------------------------------------------


def test_save_to_needs_media_for_a_media_name_and_saves_text_under_a_text_name() -> None:
    problem = save_to_problem("out", "out/r1/image.png", {"caption": "a cat"}, ["draw"])
    assert problem is not None and "names a media file, but 'draw' produced no media" in problem
    assert save_to_problem("out", "out/r1/no-extension", "text", ["draw"]) is not None
    assert save_to_problem("out", "reports/r1.md", "# Report", ["draw"]) is None
    handle = "media://sha256-" + "a" * 64
    media = save_to_problem("out", "image.png", {"media": {"handle": handle}}, ["read"])
    assert media is not None and "saving media bytes (1 handle(s) from 'read')" in media
