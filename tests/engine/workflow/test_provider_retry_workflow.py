"""A workflow agent node under the one retry policy, against the scripted LLM server.

The real workflow engine, agent loop and provider code over HTTP; sleeps are
recorded instead of waited (the tests assert the waits chosen, not time).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.workflow.test_agent_loop_runner import engine, run
from tests.engine.workflow.wfhelpers import of_type
from tests.fixtures.llm_server import Reply, ScriptedLLMServer


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


WF = """schema_version: '1.0'
workflow:
  id: limited
  agents:
    - id: a
      provider: openai
      model: gpt-4o-mini
{retry}
  nodes:
    - {{id: start, type: input}}
    - {{id: a, type: agent, agent_ref: a, prompt_template: hi}}
  edges: [{{from: start, to: a}}]
"""


async def test_a_workflows_own_retry_waits_at_least_retry_after(
    llm_server: ScriptedLLMServer, workspace: Path, relavium_home: Path
) -> None:
    # The case: a fixed 500 ms backoff against a server asking for 5 s.
    eng = engine(llm_server, workspace, relavium_home)
    llm_server.script(Reply.error(429, retry_after="5"), Reply.say("after five seconds"))
    result, wf_run = await run(eng, WF.format(retry="      retry: {max: 2, backoff: fixed, backoff_ms: 500}"))
    assert result.status == "completed" and result.outputs == {"a": "after five seconds"}
    (retrying,) = of_type(wf_run.events, "node:retrying")
    assert retrying["delayMs"] == 5000 and retrying["error"]["retryAfter"] == 5.0
    assert not of_type(wf_run.events, "agent:retrying")  # its own retry wins: no second layer


async def test_without_retry_settings_a_workflow_node_waits_out_a_429_in_the_turn(
    llm_server: ScriptedLLMServer, workspace: Path, relavium_home: Path
) -> None:
    eng = engine(llm_server, workspace, relavium_home)
    llm_server.script(Reply.error(429, retry_after="3"), Reply.error(502), Reply.say("third time"))
    result, wf_run = await run(eng, WF.format(retry=""))
    assert result.status == "completed" and result.outputs == {"a": "third time"}
    waits = of_type(wf_run.events, "agent:retrying")
    assert [w["attemptNumber"] for w in waits] == [2, 3]
    assert waits[0]["delayMs"] == 3000 and waits[0]["message"] == "rate limited, retrying in 3 s"
    assert waits[1]["message"].startswith("the server is unavailable (HTTP 502), retrying in")
    assert not of_type(wf_run.events, "node:retrying")
