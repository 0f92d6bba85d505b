"""git_commit downstream of an approved human gate, through a real workflow run and a real repo.

A gate approves what the workflow's *author* wrote after it; a model's own
git_commit must stay ``gate_required`` however many gates sit upstream (the
spec: production agent producers always pass "not approved").  The agent
here is a scripted runner (no LLM can run in a unit test) that dispatches
git_commit through the real registry, exactly as the agent loop does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import ToolCall
from relavium_desktop.engine.workflow.agents import AgentNodeRequest, AgentNodeResult
from relavium_desktop.engine.workflow.journal import MemoryJournal
from relavium_desktop.engine.workflow.run import GateDecision
from relavium_desktop.host.process import ProcessHost
from tests.engine.workflow.wfhelpers import engine, load, of_type
from tests.host.process.conftest import git

HEAD = "schema_version: '1.0'\nworkflow:\n  id: w\n"

# gate -> (tool node commit, agent node commit).
WF = HEAD + """  agents:
    - {id: committer, tools: [git_commit]}
  nodes:
    - {id: s, type: input}
    - {id: ask, type: human_gate, gate_type: approval, message_template: 'Commit?'}
    - id: authored
      type: tool
      tool_config: {tool_name: git_commit, input_mapping: {message: 'authored commit'}}
    - {id: model, type: agent, agent_ref: committer, prompt_template: 'commit please'}
    - {id: out, type: output}
  edges: [{from: s, to: ask}, {from: ask, to: authored}, {from: ask, to: model},
          {from: authored, to: out}, {from: model, to: out}]
"""


class CommittingAgent:
    """Scripted agent: asks for git_commit through the registry with the node's own context."""

    def __init__(self) -> None:
        self.outcomes: list[Any] = []

    async def run_agent(self, request: AgentNodeRequest, emit: Any) -> AgentNodeResult:
        registry: ToolRegistry = request.registry
        if request.node_id == "boss":  # delegates to the committer through invoke_agent
            delegated = await registry.dispatch(ToolCall("invoke_agent", {"nodeId": "model", "input": {}}),
                                                request.tool_context)
            return AgentNodeResult(delegated.result, model="scripted")
        outcome = await registry.dispatch(ToolCall("git_commit", {"message": "model commit"}),
                                          request.tool_context)
        self.outcomes.append(outcome)
        return AgentNodeResult("done", model="scripted")


def commits(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s").splitlines()


async def _approved_run(repo: Path, host: ProcessHost, agent: CommittingAgent) -> Any:
    (repo / "a.txt").write_text("a2\n")
    git(repo, "add", "a.txt")
    journal = MemoryJournal()
    th = ToolHost(process=host)
    paused = await engine(host=th, journal=journal, agent_runner=agent).start(load(WF), {}).run()
    assert paused.status == "paused"
    assert commits(repo) == ["initial"]  # nothing commits before the gate is answered
    resumed = engine(host=th, journal=journal, agent_runner=agent).resume(paused.run_id, GateDecision("approved"))
    return await resumed.run(), resumed


async def test_only_the_authored_tool_node_commits_after_an_approved_gate(repo: Path, host: ProcessHost) -> None:
    agent = CommittingAgent()
    result, wf_run = await _approved_run(repo, host, agent)
    assert result.status == "completed"
    assert commits(repo) == ["authored commit", "initial"]
    [outcome] = agent.outcomes
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.reason) == ("tool_denied", "gate_required")
    [model_result] = [e for e in of_type(wf_run.events, "agent:tool_result") if e["nodeId"] == "model"]
    assert model_result["success"] is False and model_result["error"]["reason"] == "gate_required"


INVOKED = HEAD + """  agents:
    - {id: lead, tools: [invoke_agent]}
    - {id: committer, tools: [git_commit]}
  nodes:
    - {id: s, type: input}
    - {id: ask, type: human_gate, gate_type: approval, message_template: 'Commit?'}
    - {id: boss, type: agent, agent_ref: lead, prompt_template: 'delegate', tools: [invoke_agent]}
    - {id: model, type: agent, agent_ref: committer, prompt_template: 'commit please'}
    - {id: out, type: output}
  edges: [{from: s, to: ask}, {from: ask, to: boss}, {from: boss, to: out}]
"""


async def test_an_agent_invoked_by_another_agent_after_an_approved_gate_still_cannot_commit(
    repo: Path, host: ProcessHost
) -> None:
    agent = CommittingAgent()
    (repo / "a.txt").write_text("a2\n")
    git(repo, "add", "a.txt")
    journal = MemoryJournal()
    th = ToolHost(process=host)
    paused = await engine(host=th, journal=journal, agent_runner=agent).start(load(INVOKED), {}).run()
    resumed = engine(host=th, journal=journal, agent_runner=agent).resume(paused.run_id, GateDecision("approved"))
    await resumed.run()
    [outcome] = agent.outcomes
    assert outcome.error is not None and outcome.error.reason == "gate_required"
    assert commits(repo) == ["initial"]
