"""The run story (Runs / History) tells ``budget:*`` events in words: the spend, the limit, what happened.

Real events: ``relavium run --json`` (a subprocess) against the scripted LLM
server, gpt-4o-mini's first answer costing 4,500 micro-cents and the second
request's worst case passing the 5,000 cap; the story is built from them as
History builds it from the stored log.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relavium_desktop.ui.runs.run_story import node_spans, story
from tests.cli.llm_cli import KEY, write_providers
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli

BUDGET_WF = """schema_version: '1.0'
workflow:
  id: budget-story
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

EXPECTED = {
    # mode: (row text, the row's node, shown by the Errors filter)
    "pause_for_approval": (
        "Budget: spent $0.000045 of $0.00005 — the next request of second could pass the limit, "
        "so the run is paused for approval",
        "second",
        False,
    ),
    "fail": (
        "Budget: spent $0.000045 of $0.00005 — the next request of second (up to $0.0000065) could pass "
        "the limit, so it was not sent and the run stops",
        "second",
        True,
    ),
    "warn": (
        "Budget: spent $0.000045 of $0.00005 (90% of the limit) — going on, as the workflow only asks for "
        "a warning",
        None,
        True,
    ),
}


@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_a_budget_event_is_a_story_row_in_words(
    mode: str, cli_env: dict[str, str], relavium_home: Path, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    write_providers(relavium_home, llm_server.base_url)
    wf = tmp_path / "budget.relavium.yaml"
    wf.write_text(BUDGET_WF.format(mode=mode))
    llm_server.script(Reply.say("first answer", usage=(100, 50)), Reply.say("second answer", usage=(100, 50)))
    code, events, err = run_cli(
        "run", str(wf), "--workspace", str(tmp_path), "--json", env={**cli_env, "RELAVIUM_TEST_KEY": KEY}
    )
    assert code in (0, 1, 3), err
    rows = [row for row in story(events) if row.event_type.startswith("budget:")]
    assert len(rows) == 1
    text, node, error = EXPECTED[mode]
    assert (rows[0].text, rows[0].node, rows[0].error) == (text, node, error)
    # Local words only: no event type, field name, gate id or raw micro-cent figure.
    gate_ids = [str(e["gateId"]) for e in events if e.get("gateId")]
    for code_text in ("budget:", "Microcents", "microcent", "4500", *gate_ids):
        assert code_text not in rows[0].text
    # The waterfall shows the held node waiting while the run is paused, stopped when it failed.
    held = {span.node: span.state for span in node_spans(events)}["second"]
    assert held == {"pause_for_approval": "waiting", "fail": "failed", "warn": "completed"}[mode]
