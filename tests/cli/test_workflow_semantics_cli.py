"""Workflow semantics as the upstream spec describes them, through ``relavium run --json`` (a real subprocess).

Branch routing is the condition's alone, for every node type that can be a
branch target; agent ``retry.max`` counts every attempt; ``system_prompt``
sees ``ctx``; template faults are found by ``validate`` or fail their node;
``save_to`` needs media; ``budget`` is enforced before each LLM request.
The provider is the scripted LLM server (each provider's real wire format),
so request counts are counted where they arrive.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli

HEAD = "schema_version: '1.0'\nworkflow:\n"


def kinds(events: list[dict[str, Any]], node: str) -> list[str]:
    return [e["type"] for e in events if e.get("nodeId") == node and e["type"].startswith(("node:", "human_gate:"))]


def line_of(wf: Path, needle: str) -> int:
    """The 1-based line of a file where ``needle`` first appears."""
    return next(i for i, line in enumerate(wf.read_text().splitlines(), 1) if needle in line)


def as_list(events: Any) -> list[dict[str, Any]]:
    return events if isinstance(events, list) else [events]


# -- 1. branch routing: decided by the condition alone --------------------------------------

# `prep` runs before the condition; every branch target below reads its output in a
# template or an expression, the case where a human_gate used to start on the untaken branch.
BRANCH_WF = HEAD + """  id: branch-{kind}
  agents: [{{id: a, provider: scripted-openai, model: gpt-4o-mini, system_prompt: You help.}}]
  nodes:
    - {{id: start, type: input}}
    - {{id: prep, type: transform, transform: '({{name: "made.txt", score: 9}})'}}
    - {{id: route, type: condition, expression: 'run.outputs["prep"].score < 7',
       branches: [{{when: true, target_node: target}}, {{when: false, target_node: other}}]}}
{target}
    - {{id: other, type: transform, transform: '"the other branch"'}}
    - {{id: out, type: output}}
  edges: [{{from: start, to: prep}}, {{from: prep, to: route}}, {{from: other, to: out}}]
"""
DEEPER = "    - {id: deeper, type: transform, transform: 'run.outputs[\"prep\"].score'}"
TARGETS = {
    "agent": "    - {id: target, type: agent, agent_ref: a, prompt_template: 'Score {{ run.outputs[\"prep\"].score }}'}",
    "tool": ("    - {id: target, type: tool, tool_config: {tool_name: write_file,\n"
             "       input_mapping: {path: '{{ run.outputs[\"prep\"].name }}', content: 'should never be written'}}}"),
    "transform": "    - {id: target, type: transform, transform: 'run.outputs[\"prep\"].score'}",
    "human_gate": ("    - {id: target, type: human_gate,\n"
                   "       message_template: 'Score {{ run.outputs[\"prep\"].score }}/10. Approve?'}"),
    "condition": ("    - {id: target, type: condition, expression: 'run.outputs[\"prep\"].score > 0',\n"
                  "       branches: [{when: true, target_node: deeper}]}\n" + DEEPER),
    "parallel": "    - {id: target, type: parallel, parallel_of: [deeper]}\n" + DEEPER,
    "merge": "    - {id: target, type: merge, merge_strategy: concat}",
    "output": "    - {id: target, type: output, save_to: made.txt}",
}


@pytest.mark.parametrize("kind", sorted(TARGETS))
def test_a_node_only_an_untaken_branch_reaches_never_starts_whatever_its_templates_read(
    kind: str, env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    wf = tmp_path / f"branch-{kind}.relavium.yaml"
    wf.write_text(BRANCH_WF.format(kind=kind, target=TARGETS[kind]))
    code, events, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=env)

    assert code == 0, err  # not 3: no gate opened
    assert kinds(events, "target") == ["node:skipped"]
    assert next(e for e in events if e.get("nodeId") == "target")["reason"] == "branch_not_taken"
    if kind in ("condition", "parallel"):  # what only the skipped node routes to is unreachable
        assert kinds(events, "deeper") == ["node:skipped"]
    assert kinds(events, "other") == ["node:started", "node:completed"]
    assert events[-1]["type"] == "run:completed" and events[-1]["outputs"] == {"out": "the other branch"}
    assert llm_server.requests == []  # the agent never called its model
    assert not (tmp_path / "made.txt").exists()  # neither the tool nor save_to wrote anything


def test_the_taken_branch_still_opens_its_gate_with_the_message_it_reads(
    env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "taken.relavium.yaml"
    wf.write_text(BRANCH_WF.format(kind="gate", target=TARGETS["human_gate"]).replace("score < 7", "score > 7"))
    code, events, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=env)
    assert code == 3, err
    paused = next(e for e in events if e["type"] == "human_gate:paused")
    assert paused["nodeId"] == "target" and paused["message"] == "Score 9/10. Approve?"
    assert kinds(events, "other") == ["node:skipped"]


def test_validate_names_an_edge_that_would_run_a_branch_target_outside_its_branch(
    env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "bypass.relavium.yaml"
    text = BRANCH_WF.format(kind="gate", target=TARGETS["human_gate"]).replace(
        "{from: other, to: out}]", "{from: other, to: out}, {from: prep, to: target}]")
    wf.write_text(text)
    code, out, err = run_cli("validate", str(wf), env=env)
    assert code == 2
    line = 1 + text.splitlines().index(next(x for x in text.splitlines() if x.startswith("  edges:")))
    assert (f"{wf.name}:{line}:" in out + err) and (
        "node 'target' is a branch target of condition 'route', but the route from 'prep' reaches it without "
        "passing through 'route'" in out + err)


# -- 3. agent retry.max counts attempts ------------------------------------------------------

RETRY_WF = HEAD + """  id: retries
  agents:
    - id: a
      provider: scripted-anthropic
      model: claude-sonnet-4
      system_prompt: You help.
      retry: {{max: 3, backoff: fixed, backoff_ms: 0}}
{fallback}  nodes:
    - {{id: start, type: input}}
    - {{id: a, type: agent, agent_ref: a, prompt_template: hello}}
    - {{id: out, type: output}}
  edges: [{{from: start, to: a}}, {{from: a, to: out}}]
"""
# The agent spec's own example chain: gpt-4o with 2 attempts, then one more model.
CHAIN = """      fallback_chain:
        - {provider: scripted-openai, model: gpt-4o, max_attempts: 2}
        - {provider: scripted-anthropic, model: claude-3-5-haiku, max_attempts: 1}
"""


@pytest.mark.parametrize(("fallback", "per_attempt"), [("", 1), (CHAIN, 4)], ids=["alone", "with-fallback-chain"])
def test_agent_retry_max_is_the_total_number_of_attempts(
    fallback: str, per_attempt: int, env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    wf = tmp_path / "retries.relavium.yaml"
    wf.write_text(RETRY_WF.format(fallback=fallback))
    llm_server.script(*[Reply.error(503) for _ in range(3 * per_attempt + 2)])
    code, events, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=env)

    assert code == 1, err
    # max: 3 is three attempts of the whole chain: 3 requests alone, 12 with the 4-request chain.
    assert len(llm_server.requests) == 3 * per_attempt
    assert [e["attemptNumber"] for e in events if e["type"] == "node:retrying"] == [2, 3]
    failed = next(e for e in events if e["type"] == "node:failed")
    assert failed["attemptNumber"] == 3 and failed["error"]["code"] == "provider_unavailable"
    assert events[-1]["type"] == "run:failed"


def test_an_agent_file_run_alone_counts_attempts_the_same_way(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = tmp_path / "a.agent.yaml"
    agent.write_text("id: a\nprovider: scripted-openai\nmodel: gpt-4o-mini\nsystem_prompt: You help.\n"
                     "retry: {max: 3, backoff: fixed, backoff_ms: 0}\n")
    llm_server.script(*[Reply.error(503) for _ in range(5)])
    code, events, err = run_cli("agent", "run", str(agent), "--prompt", "hi", "--json", env=env)
    assert code == 1, err
    assert len(llm_server.requests) == 3
    assert [e["attemptNumber"] for e in as_list(events) if e["type"] == "node:retrying"] == [2, 3]

    agent.write_text(agent.read_text().replace("max: 3", "max: 0"))
    code, out, err = run_cli("agent", "run", str(agent), "--prompt", "hi", "--json", env=env)
    assert code == 2
    assert "retry.max counts every attempt, the first included: at least 1" in json.dumps(out) + err


# -- 4. system_prompt sees ctx and the declared inputs ---------------------------------------

SYSTEM_WF = HEAD + """  id: system-prompt
  inputs: [{name: who, type: string}]
  context:
    - {key: focus_area, value: 'security vulnerabilities and type safety'}
  agents:
    - id: summarizer
      provider: scripted-openai
      model: gpt-4o-mini
      system_prompt: |
        You are a concise summarizer. Summarize the input in 3 bullet points.
        Focus on: {{ctx.focus_area}}. Write for {{ inputs.who }}.
  nodes:
    - {id: start, type: input}
    - {id: summarize, type: agent, agent_ref: summarizer, prompt_template: '{{inputs.who}} asks for a summary'}
    - {id: out, type: output}
  edges: [{from: start, to: summarize}, {from: summarize, to: out}]
"""


def test_an_agents_system_prompt_sees_ctx_and_inputs(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    wf = tmp_path / "system.relavium.yaml"
    wf.write_text(SYSTEM_WF)
    llm_server.script(Reply.say("- one\n- two\n- three"))
    code, _, err = run_cli("run", str(wf), "--input", "who=ana", "--workspace", str(tmp_path), "--json", env=env)
    assert code == 0, err
    (request,) = llm_server.requests
    system = request.body["messages"][0]
    assert system["role"] == "system"
    assert system["content"] == ("You are a concise summarizer. Summarize the input in 3 bullet points.\n"
                                 "Focus on: security vulnerabilities and type safety. Write for ana.\n")


def test_validate_refuses_a_system_prompt_that_reads_outputs_or_an_unknown_key(
    env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "system-bad.relavium.yaml"
    wf.write_text(SYSTEM_WF.replace("{{ctx.focus_area}}", "{{ctx.focus}} {{ run.outputs[\"start\"] }}"))
    code, out, err = run_cli("validate", str(wf), env=env)
    assert code == 2
    text = out + err
    assert f"{wf.name}:{line_of(wf, 'system_prompt:')}:7: agent 'summarizer' system_prompt reads" in text
    assert "agent 'summarizer' system_prompt reads ctx.focus, but the workflow's context defines no such key" in text
    assert "agent 'summarizer' system_prompt reads run.outputs; an agent's system_prompt sees inputs and ctx" in text


# -- 5. templates: found by validate where they can be, a node failure where they cannot ----

GATE_WF = HEAD + """  id: gate-template
  inputs: [{name: path, type: file_path}]
  nodes:
    - {id: start, type: input}
    - {id: prep, type: transform, transform: '42'}
    - id: ask
      type: human_gate
      message_template: 'Please review {{ inputs.path | read_file }}'
    - {id: out, type: output}
  edges: [{from: start, to: prep}, {from: prep, to: ask}, {from: ask, to: out}]
"""


def test_read_file_in_a_gate_message_is_a_validate_error_at_its_line_and_column(
    env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "gate.relavium.yaml"
    wf.write_text(GATE_WF)
    code, out, err = run_cli("validate", str(wf), env=env)
    assert code == 2
    assert (f"{wf.name}:{line_of(wf, 'message_template:')}:7: node 'ask' message_template uses the read_file filter, which a human gate's text "
            "cannot use") in out + err
    # relavium run refuses it the same way, before anything runs.
    code, events, err = run_cli("run", str(wf), "--input", "path=a.txt", "--workspace", str(tmp_path), "--json",
                                env=env)
    assert code == 2 and "run:started" not in json.dumps(events)


@pytest.mark.parametrize("fault", ["inputs.nope", "ctx.nope", 'run.outputs["nope"]'])
def test_a_reference_to_nothing_is_a_validate_error(fault: str, env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "ref.relavium.yaml"
    wf.write_text(GATE_WF.replace("inputs.path | read_file", fault))
    code, out, err = run_cli("validate", str(wf), env=env)
    assert code == 2
    where = f"{wf.name}:{line_of(wf, 'message_template:')}:7"
    assert f"{where}: node 'ask' message_template reads {fault.split('[', maxsplit=1)[0]}" in out + err


def test_a_template_that_fails_at_run_time_fails_its_node_never_the_run_loop(
    env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "late.relavium.yaml"
    # `length` of a number can only be known when the number exists.
    wf.write_text(GATE_WF.replace("inputs.path | read_file", 'run.outputs["prep"] | length'))
    assert run_cli("validate", str(wf), env=env)[0] == 0
    code, events, err = run_cli("run", str(wf), "--input", "path=a.txt", "--workspace", str(tmp_path), "--json",
                                env=env)
    assert code == 1, err
    assert "internal error" not in err
    assert kinds(events, "ask") == ["node:started", "node:failed"]
    failed = next(e for e in events if e["type"] == "node:failed")
    assert failed["error"]["code"] == "validation"
    assert failed["error"]["message"] == "length applies to a string, list or object"
    assert events[-1]["type"] == "run:failed" and events[-1]["error"]["nodeId"] == "ask"
    assert kinds(events, "out") == ["node:skipped"]


def test_read_file_of_a_missing_file_in_a_prompt_fails_the_agent_node(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    wf = tmp_path / "missing.relavium.yaml"
    wf.write_text(SYSTEM_WF.replace("prompt_template: '{{inputs.who}} asks for a summary'",
                                    "prompt_template: '{{ inputs.who | read_file }}'"))
    code, events, err = run_cli("run", str(wf), "--input", "who=absent.txt", "--workspace", str(tmp_path),
                                "--json", env=env)
    assert code == 1, err
    assert "internal error" not in err
    failed = next(e for e in events if e["type"] == "node:failed")
    assert failed["nodeId"] == "summarize" and failed["error"]["code"] == "tool_failed"
    assert events[-1]["type"] == "run:failed"
    assert llm_server.requests == []


# -- 6. save_to needs media ------------------------------------------------------------------

SAVE_WF = HEAD + """  id: save
  nodes:
    - {id: start, type: input}
    - {id: draw, type: transform, transform: '({caption: "a cat", width: 512})'}
    - {id: out, type: output, save_to: 'out/{{ run.id }}/image.png'}
  edges: [{from: start, to: draw}, {from: draw, to: out}]
"""


def test_save_to_an_image_path_without_media_fails_with_the_reason_and_writes_nothing(
    env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "save.relavium.yaml"
    wf.write_text(SAVE_WF)
    code, events, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=env)
    assert code == 1, err
    failed = next(e for e in events if e["type"] == "node:failed")
    run_id = events[0]["runId"]
    assert failed["nodeId"] == "out" and failed["error"]["reason"] == "save_to_no_media"
    assert failed["error"]["message"].startswith(
        f"output 'out': save_to 'out/{run_id}/image.png' names a media file, but 'draw' produced no media")
    assert events[-1]["type"] == "run:failed"
    assert not (tmp_path / "out").exists()


def test_save_to_a_text_name_still_saves_a_text_report(env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "report.relavium.yaml"
    wf.write_text(SAVE_WF.replace("transform: '({caption: \"a cat\", width: 512})'", "transform: '\"# Report\"'")
                  .replace("image.png", "report.md"))
    code, events, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=env)
    assert code == 0, err
    assert (tmp_path / "out" / events[0]["runId"] / "report.md").read_text() == "# Report"


# -- 2. budget: a pre-egress cap in each on_exceed mode ---------------------------------------

# gpt-4o-mini costs 15 micro-cents an input token and 60 an output token.  The first
# request (a 10-token cap) may cost at most 645; its 100 + 50 tokens cost 4,500.  The
# second request's worst case (4,500 + 645) passes the 5,000 cap, so it is checked first.
BUDGET_WF = HEAD + """  id: budget
  budget: {{max_cost_microcents: 5000, on_exceed: {mode}}}
  agents:
    - {{id: a, provider: scripted-openai, model: gpt-4o-mini, system_prompt: You help., max_tokens: 10}}
  nodes:
    - {{id: start, type: input}}
    - {{id: first, type: agent, agent_ref: a, prompt_template: one}}
    - {{id: second, type: agent, agent_ref: a, prompt_template: two}}
    - {{id: out, type: output}}
  edges: [{{from: start, to: first}}, {{from: first, to: second}}, {{from: second, to: out}}]
"""
FIGURES = {"spentMicrocents": 4500, "limitMicrocents": 5000}


def budget_run(mode: str, server: ScriptedLLMServer, env: dict[str, str], tmp_path: Path) -> tuple[int, Any, str]:
    wf = tmp_path / f"budget-{mode}.relavium.yaml"
    wf.write_text(BUDGET_WF.format(mode=mode))
    server.script(Reply.say("first answer", usage=(100, 50)), Reply.say("second answer", usage=(100, 50)))
    return run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=env)


def test_budget_fail_stops_before_the_request_that_could_pass_the_cap(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    code, events, err = budget_run("fail", llm_server, env, tmp_path)
    assert code == 1, err
    assert len(llm_server.requests) == 1  # the second request was never sent
    cost = next(e for e in events if e["type"] == "cost:updated")
    assert cost["cumulativeCostMicrocents"] == 4500
    exceeded = next(e for e in events if e["type"] == "budget:exceeded")
    assert {k: exceeded[k] for k in ("nodeId", "spentMicrocents", "limitMicrocents", "estimatedMicrocents")} == {
        "nodeId": "second", **FIGURES, "estimatedMicrocents": 645}
    assert kinds(events, "second") == ["node:started", "node:failed"]
    failed = next(e for e in events if e["type"] == "node:failed")
    assert failed["error"]["code"] == "budget_exceeded" and "(4500 of 5000 micro-cents)" in failed["error"]["message"]
    assert events[-1]["type"] == "run:failed" and events[-1]["error"]["code"] == "budget_exceeded"
    assert events[-1]["totalCostMicrocents"] == 4500


def test_budget_warn_warns_once_and_goes_ahead(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    code, events, err = budget_run("warn", llm_server, env, tmp_path)
    assert code == 0, err
    warnings = [e for e in events if e["type"] == "budget:warning"]
    assert len(warnings) == 1
    assert {k: warnings[0][k] for k in ("spentMicrocents", "limitMicrocents", "thresholdPct")} == {
        **FIGURES, "thresholdPct": 90}
    # The warning comes before the request it is about.
    types = [e["type"] + ":" + e.get("nodeId", "") for e in events]
    assert types.index("budget:warning:") < types.index("node:completed:second")
    assert len(llm_server.requests) == 2
    assert events[-1]["type"] == "run:completed" and events[-1]["totalCostMicrocents"] == 9000


def test_budget_pause_waits_like_a_gate_and_resumes_on_approval(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    code, events, err = budget_run("pause_for_approval", llm_server, env, tmp_path)
    assert code == 3, err
    assert len(llm_server.requests) == 1
    paused = next(e for e in events if e["type"] == "budget:paused")
    assert {k: paused[k] for k in ("nodeId", "spentMicrocents", "limitMicrocents")} == {"nodeId": "second", **FIGURES}
    assert events[-1]["type"] == "run:paused" and events[-1]["gateIds"] == [paused["gateId"]]
    assert "node:failed" not in [e["type"] for e in events]
    run_id = events[0]["runId"]

    code, resumed, err = run_cli("run", "--resume", run_id, "--decision", "approve", "--json", env=env)
    assert code == 0, err
    assert [e["type"] for e in resumed][:2] == ["human_gate:resumed", "node:started"]
    assert resumed[0]["gateId"] == paused["gateId"] and resumed[0]["decision"] == "approved"
    assert len(llm_server.requests) == 2  # the approved request went out, once
    assert resumed[-1]["type"] == "run:completed" and resumed[-1]["outputs"] == {"out": "second answer"}


def test_budget_pause_rejected_fails_the_run_with_budget_exceeded(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    code, events, err = budget_run("pause_for_approval", llm_server, env, tmp_path)
    assert code == 3, err
    code, resumed, err = run_cli("run", "--resume", events[0]["runId"], "--decision", "reject", "--json", env=env)
    assert code == 1, err
    assert kinds(resumed, "second") == ["human_gate:resumed", "node:failed"]
    assert resumed[-1]["type"] == "run:failed" and resumed[-1]["error"]["code"] == "budget_exceeded"
    assert len(llm_server.requests) == 1


@pytest.mark.parametrize(("change", "message"), [
    ("model: gpt-4o-mini", "budget: no price is known for model 'llama3:8b' (agent 'a')"),
    ("on_exceed: fail}", "unknown key 'strict_cost_cap'"),
    ("max_cost_microcents: 5000, on_exceed: fail", "missing required key 'on_exceed'"),
])
def test_a_budget_the_engine_cannot_enforce_is_refused_at_validation(
    change: str, message: str, env: dict[str, str], tmp_path: Path
) -> None:
    replacement = {"model: gpt-4o-mini": "model: llama3:8b", "on_exceed: fail}": "on_exceed: fail, strict_cost_cap: true}",
                   "max_cost_microcents: 5000, on_exceed: fail": "max_cost_microcents: 5000"}[change]
    wf = tmp_path / "budget-bad.relavium.yaml"
    wf.write_text(BUDGET_WF.format(mode="fail").replace(change, replacement))
    code, out, err = run_cli("validate", str(wf), env=env)
    assert code == 2
    assert message in out + err


# -- the spec's complete example (workflow-yaml-spec.md), wrapped to run here -----------------
#
# Changes from the spec's text, and why: providers are the scripted server's entries;
# the two reviewers declare output_schema {type: object} (their replies are JSON the
# condition and the object_merge read; the spec's text leaves the replies as prose);
# max_parallel: 1 keeps the scripted replies in plan order; its file_change trigger is
# left out (runs start only when asked here, so validate refuses a trigger nothing fires:
# tests/cli/test_unhonoured_fields_cli.py).

SPEC_COMPLETE_EXAMPLE = """schema_version: '1.0'
workflow:
  id: code-review-pipeline
  version: '1.2.0'
  name: Code Review Pipeline
  tags: [engineering, review, security]
  max_parallel: 1
  inputs:
    - {name: file_path, type: file_path, required: true}
    - {name: reviewer_email, type: string, required: false, default: 'team@example.com'}
  context:
    - {key: focus_area, value: 'security vulnerabilities and type safety'}
    - {key: code_content, value: '{{inputs.file_path | read_file}}'}
  agents:
    - id: security-scanner
      model: claude-sonnet-4-6
      provider: scripted-anthropic
      system_prompt: |
        You are a security-focused code reviewer. Focus: {{ctx.focus_area}}.
        Return a JSON object: {issues: [{severity, line, description, fix}], score: 0-10}
      temperature: 0.1
      max_tokens: 1024
      output_schema: {type: object}
      retry: {max: 3, backoff: exponential}
      fallback_chain: [{model: gpt-4o, provider: scripted-openai, max_attempts: 2}]
    - id: style-reviewer
      model: claude-sonnet-4-6
      provider: scripted-anthropic
      system_prompt: 'Return JSON: {suggestions: [{type, line, message}], overall_grade: A|B|C|D|F}'
      output_schema: {type: object}
    - id: report-synthesizer
      model: claude-sonnet-4-6
      provider: scripted-anthropic
      system_prompt: Combine the results into one markdown report.
  nodes:
    - {id: input, type: input}
    - {id: fan-out, type: parallel, parallel_of: [security-scan-node, style-review-node]}
    - id: security-scan-node
      type: agent
      agent_ref: security-scanner
      prompt_template: "Review this TypeScript file for security issues:\\n{{ctx.code_content}}"
      timeout_ms: 60000
    - id: style-review-node
      type: agent
      agent_ref: style-reviewer
      prompt_template: "Review this TypeScript file for style:\\n{{ctx.code_content}}"
      timeout_ms: 60000
    - {id: merge, type: merge, merge_strategy: object_merge}
    - id: severity-gate
      type: condition
      expression: 'run.outputs["security-scan-node"].score < 7'
      branches:
        - {when: true, target_node: human-approval}
        - {when: false, target_node: synthesize-report}
      default: synthesize-report
    - id: human-approval
      type: human_gate
      gate_type: approval
      assignee: '{{inputs.reviewer_email}}'
      message_template: |
        Security scan flagged issues in {{inputs.file_path}}.
        Score: {{run.outputs["security-scan-node"].score}}/10.
        Issues found: {{run.outputs["security-scan-node"].issues | length}}.
      timeout_ms: 86400000
      timeout_action: reject
    - id: synthesize-report
      type: agent
      agent_ref: report-synthesizer
      prompt_template: |
        Security results: {{run.outputs["security-scan-node"] | json}}
        Style results: {{run.outputs["style-review-node"] | json}}
        Human gate decision: {{run.outputs["human-approval"].decision | default("not required")}}
      timeout_ms: 45000
    - {id: output, type: output, output_format: markdown}
  edges:
    - {from: input, to: fan-out}
    - {from: fan-out, to: security-scan-node}
    - {from: fan-out, to: style-review-node}
    - {from: security-scan-node, to: merge}
    - {from: style-review-node, to: merge}
    - {from: merge, to: severity-gate}
    - {from: 'severity-gate:true', to: human-approval}
    - {from: 'severity-gate:false', to: synthesize-report}
    - {from: human-approval, to: synthesize-report}
    - {from: synthesize-report, to: output}
"""


def _review_replies(server: ScriptedLLMServer, score: int) -> None:
    issues = [{"severity": "high", "line": 2, "description": "eval of input", "fix": "parse it"}]
    server.script(Reply.say(json.dumps({"issues": issues, "score": score})),
                  Reply.say(json.dumps({"suggestions": [], "overall_grade": "B"})),
                  Reply.say("# Review\nAll done."))


@pytest.mark.parametrize("score", [4, 9])
def test_the_specs_complete_example_routes_by_its_condition_alone(
    score: int, env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.ts").write_text("const x = eval(input);\n")
    wf = tmp_path / "code-review-pipeline.relavium.yaml"
    wf.write_text(SPEC_COMPLETE_EXAMPLE)
    assert run_cli("validate", str(wf), env=env)[0] == 0
    _review_replies(llm_server, score)
    code, events, err = run_cli("run", str(wf), "--input", "file_path=src/app.ts", "--workspace", str(tmp_path),
                                "--json", env=env)
    if score < 7:  # the true branch: the gate asks, with the figures its message reads
        assert code == 3, err
        paused = next(e for e in events if e["type"] == "human_gate:paused")
        assert paused["message"] == "Security scan flagged issues in src/app.ts.\nScore: 4/10.\nIssues found: 1.\n"
        assert paused["assignee"] == "team@example.com"
        assert kinds(events, "synthesize-report") == []
        code, events, err = run_cli("run", "--resume", events[0]["runId"], "--decision", "approve", "--json",
                                    env=env)
        decision = "approved"
    else:  # the false branch: the gate never starts, though its message reads the scan
        assert kinds(events, "human-approval") == ["node:skipped"]
        decision = "not required"
    assert code == 0, err
    assert events[-1]["type"] == "run:completed" and events[-1]["outputs"] == {"output": "# Review\nAll done."}
    scan, _style, report = llm_server.requests
    system = scan.body["system"]
    system_text = system if isinstance(system, str) else "".join(block["text"] for block in system)
    assert "Focus: security vulnerabilities and type safety." in system_text  # ctx in the system_prompt
    assert f"Human gate decision: {decision}" in json.dumps(report.body["messages"])


# -- the agent spec's example (agent-yaml-spec.md), verbatim, as a $ref of its own workflow -----

SPEC_AGENT_EXAMPLE = """# .relavium/agents/summarizer.agent.yaml
id: summarizer
name: Summarizer Agent
description: Produces a concise 3-bullet summary focused on a context-supplied area.
model: claude-sonnet-4-6
provider: anthropic
system_prompt: |
  You are a concise summarizer. Summarize the input in 3 bullet points.
  Focus on: {{ctx.focus_area}}
temperature: 0.3
max_tokens: 512
tools: []
retry:
  max: 3
  backoff: exponential
fallback_chain:
  - model: gpt-4o
    provider: openai
    max_attempts: 2
  - model: gemini-2.5-pro
    provider: gemini
    max_attempts: 1
"""
# The spec's "Referencing an agent from a workflow" node, with the input and context it reads.
SPEC_AGENT_WORKFLOW = HEAD + """  id: summarize
  inputs: [{name: text, type: string}]
  context: [{key: focus_area, value: risks to the launch date}]
  agents: [{$ref: agents/summarizer.agent.yaml}]
  nodes:
    - {id: start, type: input}
    - id: summarize
      type: agent
      agent_ref: summarizer          # resolves to the agent above
      prompt_template: '{{inputs.text}}'
    - {id: out, type: output}
  edges: [{from: start, to: summarize}, {from: summarize, to: out}]
"""


@pytest.fixture
def spec_providers(env: dict[str, str], relavium_home: Path, llm_server: ScriptedLLMServer) -> dict[str, str]:
    """The spec's provider names (anthropic, openai, gemini), each pointing at the scripted server."""
    base = llm_server.base_url
    entries = {name: {"kind": name, "base_url": base + ("/v1" if name == "openai" else ""),
                      "api_key": "env:RELAVIUM_TEST_KEY", "allow_local": True}
               for name in ("anthropic", "openai", "gemini")}
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": entries}))
    return env


def test_the_agent_specs_example_resolves_ctx_and_retries_its_whole_chain_three_times(
    spec_providers: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "summarizer.agent.yaml").write_text(SPEC_AGENT_EXAMPLE)
    wf = tmp_path / "summarize.relavium.yaml"
    wf.write_text(SPEC_AGENT_WORKFLOW)
    argv = ("run", str(wf), "--input", "text=The launch slips if QA finds more bugs.", "--workspace", str(tmp_path),
            "--json")
    llm_server.script(Reply.say("- QA\n- bugs\n- date"))
    code, events, err = run_cli(*argv, env=spec_providers)
    assert code == 0, err
    system = llm_server.requests[0].body["system"]
    text = system if isinstance(system, str) else "".join(block["text"] for block in system)
    assert text.endswith("Focus on: risks to the launch date\n")  # {{ctx.focus_area}} resolved

    # Every model of the chain unavailable: 3 attempts x (1 + 2 + 1 requests) = 12, in each dialect.
    before = len(llm_server.requests)
    llm_server.script(*[Reply.error(503) for _ in range(14)])
    code, events, err = run_cli(*argv, env=spec_providers)
    assert code == 1, err
    sent = llm_server.requests[before:]
    assert len(sent) == 12
    assert [r.dialect for r in sent[:4]] == ["anthropic", "openai", "openai", "gemini"]
    assert [e["attemptNumber"] for e in events if e["type"] == "node:retrying"] == [2, 3]
