"""A run paused by its budget is answered in the app like a human gate (Runs / History gate panel).

The run is paused by ``relavium run`` (a real subprocess) against the scripted
LLM server; a fresh window opens it from history, shows the budget gate with
its reason, and Approve sends the held request and completes the run.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.cli.llm_cli import KEY
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli
from tests.ui.test_runs_view import open_paused_run

# gpt-4o-mini: the first answer costs 4,500 micro-cents; the second request may cost
# up to 645 more, over the 5,000 cap.
BUDGET_WF = """\
schema_version: '1.0'
workflow:
  id: capped
  name: Capped
  budget: {max_cost_microcents: 5000, on_exceed: pause_for_approval}
  agents:
    - {id: a, provider: scripted-openai, model: gpt-4o-mini, system_prompt: You help., max_tokens: 10}
  nodes:
    - {id: start, type: input}
    - {id: first, type: agent, agent_ref: a, prompt_template: one}
    - {id: second, type: agent, agent_ref: a, prompt_template: two}
    - {id: out, type: output}
  edges: [{from: start, to: first}, {from: first, to: second}, {from: second, to: out}]
"""


def test_a_budget_pause_is_approved_from_the_runs_gate_panel(
    make_window, qtbot, providers: None, llm_server: ScriptedLLMServer, project: Path, cli_env: dict[str, str],
    tmp_path: Path,
) -> None:
    wf = tmp_path / "capped.relavium.yaml"
    wf.write_text(BUDGET_WF)
    llm_server.script(Reply.say("first answer", usage=(100, 50)), Reply.say("second answer", usage=(100, 50)))
    env = {**cli_env, "RELAVIUM_TEST_KEY": os.environ.get("RELAVIUM_TEST_KEY", KEY)}
    code, events, err = run_cli("run", str(wf), "--workspace", str(project), "--json", env=env)
    assert code == 3, err
    assert any(e["type"] == "budget:paused" for e in events)
    run_id = str(events[-1]["runId"])
    assert len(llm_server.requests) == 1

    _window, view = open_paused_run(make_window, qtbot, run_id)
    panel = view.gate_panel
    assert panel.isVisibleTo(view)
    assert panel.message.text().startswith(
        "budget: the run has spent $0.000045 of its $0.00005 limit (4500 of 5000 micro-cents)")
    with qtbot.waitSignal(view.resumed, timeout=30_000) as blocker:
        panel.approve_button.click()
    result = blocker.args[0]
    assert (result.run_id, result.status) == (run_id, "completed")
    assert result.outputs == {"out": "second answer"}
    assert len(llm_server.requests) == 2  # the held request went out once, after the approval
