"""``relavium run`` text mode (a real subprocess): budget events in words, author text through the display rule.

The budget cases run against the scripted LLM server (the OpenAI wire
format) with the cap arithmetic of tests/cli/test_workflow_semantics_cli.py:
gpt-4o-mini's first answer (100 in, 50 out tokens) costs 4,500 micro-cents,
and the second request's worst case (645 more) would pass a 5,000 cap.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli

BUDGET_WF = """schema_version: '1.0'
workflow:
  id: budget-words
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
    "pause_for_approval": (
        3,
        "budget: spent $0.000045 of $0.00005 — the next request of second could pass the "
        "limit, so the run is paused for approval; answer with relavium gate approve {run_id} "
        "(or reject)",
    ),
    "fail": (
        1,
        "budget: spent $0.000045 of $0.00005 — the next request of second (up to $0.0000065) could pass "
        "the limit, so it was not sent and the run stops",
    ),
    "warn": (
        0,
        "budget: spent $0.000045 of $0.00005 (90% of the limit) — going on, as the workflow only asks "
        "for a warning",
    ),
}


@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_a_budget_event_is_one_readable_line_in_text_mode(
    mode: str, env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    wf = tmp_path / "budget.relavium.yaml"
    wf.write_text(BUDGET_WF.format(mode=mode))
    llm_server.script(Reply.say("first answer", usage=(100, 50)), Reply.say("second answer", usage=(100, 50)))
    code, out, err = run_cli("run", str(wf), "--workspace", str(tmp_path), env=env)
    want_code, line = EXPECTED[mode]
    assert code == want_code, out + err
    run_id = err.split("run ", 1)[1].split(" started", 1)[0]
    budget_lines = [text.split("] ", 1)[1] for text in out.splitlines() if "] budget: " in text]
    assert budget_lines == [line.format(run_id=run_id)]
    assert "Microcents" not in out  # no field names, no raw figures


def test_the_printed_answer_command_answers_the_budget_pause(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    wf = tmp_path / "budget.relavium.yaml"
    wf.write_text(BUDGET_WF.format(mode="pause_for_approval"))
    llm_server.script(Reply.say("first answer", usage=(100, 50)), Reply.say("second answer", usage=(100, 50)))
    code, out, err = run_cli("run", str(wf), "--workspace", str(tmp_path), env=env)
    assert code == 3, out + err
    command = out.split("answer with ", 1)[1].split(" (or reject)", 1)[0]
    assert command.startswith("relavium gate approve ")
    code, out, err = run_cli(*command.split()[1:], env=env)
    assert code == 0, out + err
    assert len(llm_server.requests) == 2


GATE_WF = """schema_version: '1.0'
workflow:
  id: spoof
  nodes:
    - {id: start, type: input}
    - id: check
      type: human_gate
      message_template: "Deploy to staging?\\e[2K\\rAlready approved \\u202eexe.txt\\nSecond line"
    - {id: out, type: output}
  edges: [{from: start, to: check}, {from: check, to: out}]
"""


def test_a_gate_message_with_control_and_bidi_characters_cannot_rewrite_the_line(
    env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "spoof.relavium.yaml"
    wf.write_text(GATE_WF)
    code, out, err = run_cli("run", str(wf), "--workspace", str(tmp_path), env=env)
    assert code == 3, out + err
    for raw in ("\x1b", "\r", "\u202e"):
        assert raw not in out and raw not in err
    paused = next(text for text in out.splitlines() if "human_gate:paused" in text)
    assert paused.endswith(
        "human_gate:paused check: Deploy to staging?⟦\\x1b⟧[2K⟦\\r⟧Already approved ⟦U+202E RLO⟧exe.txt Second line"
    )
    assert "paused at gate check; resume with: relavium run --resume" in err


BAD_TEMPLATE_WF = """schema_version: '1.0'
workflow:
  id: bad-template
  nodes:
    - {id: start, type: input}
    - {id: check, type: human_gate, message_template: "Ship {{ inputs.name\\u202e\\e[2K }}?"}
    - {id: out, type: output}
  edges: [{from: start, to: check}, {from: check, to: out}]
"""


@pytest.mark.parametrize("command", ["run", "validate"])
def test_an_invalid_workflow_quoting_bidi_and_escape_characters_is_reported_with_markers(
    command: str, env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "bad.relavium.yaml"
    wf.write_text(BAD_TEMPLATE_WF)
    code, out, err = run_cli(command, str(wf), env=env)
    assert code == 2, out + err
    assert "\u202e" not in err and "\x1b" not in err
    assert f"{wf}:6:" in err and "⟦U+202E RLO⟧⟦\\x1b⟧[2K" in err
