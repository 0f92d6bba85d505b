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
