"""``relavium agent run`` with an agent file's ``tool_config``: web_search through a configured SearXNG.

Real subprocess, real scripted LLM server, real local SearXNG-shaped server
reached through the production egress path (``allowLocal`` is the author's
explicit opt-in for a self-hosted instance).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli.llm_cli import write_agent
from tests.conftest import relavium_cmd
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.fixtures.searxng_server import SearxngServer, searxng_server_fixture  # noqa: F401
from tests.helpers import run_cli


def _searx_config(server: SearxngServer, **extra: object) -> str:
    params = {"provider": "searxng", "baseUrl": server.base_url, "allowLocal": True, **extra}
    return "tool_config:\n  web_search:\n    parameters: " + json.dumps(params) + "\n"


def test_an_agent_searches_through_its_configured_searxng(
    env: dict[str, str], llm_server: ScriptedLLMServer, searxng_server: SearxngServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "s.agent.yaml", tools=["web_search"], extra=_searx_config(searxng_server))
    llm_server.script(
        # The model tries to steer the provider; config-only values it sends are dropped.
        Reply.call("web_search", {"query": "relavium tool config", "provider": "brave"}),
        Reply.say("Found it."),
    )
    code, events, err = run_cli("agent", "run", str(agent), "--prompt", "search", "--approve-all", "egress",
                                "--json", env=env)
    assert code == 0, err
    assert searxng_server.searches() == ["relavium tool config"]
    result = next(e for e in events if e["type"] == "agent:tool_result")
    assert result["success"] is True and result["toolId"] == "web_search"
    # The result went back to the model as the tool's answer.
    second = json.dumps(llm_server.requests[1].body["messages"])
    assert "SearXNG result for relavium tool config" in second
    # The provider settings are not offered to the model.
    offered = llm_server.requests[0].body["tools"][0]["function"]["parameters"]["properties"]
    assert set(offered) == {"query", "count"}


def test_without_the_local_opt_in_the_search_is_refused_with_the_reason(
    env: dict[str, str], llm_server: ScriptedLLMServer, searxng_server: SearxngServer, tmp_path: Path
) -> None:
    extra = _searx_config(searxng_server).replace('"allowLocal": true', '"allowLocal": false')
    agent = write_agent(tmp_path / "s.agent.yaml", tools=["web_search"], extra=extra)
    llm_server.script(Reply.call("web_search", {"query": "q"}), Reply.say("no"))
    code, events, _ = run_cli("agent", "run", str(agent), "--prompt", "search", "--approve-all", "egress",
                                "--json", env=env)
    assert searxng_server.searches() == []
    result = next(e for e in events if e["type"] == "agent:tool_result")
    assert result["success"] is False and "allowLocal" in result["error"]["message"]
    assert code == 1


def test_a_misnamed_parameter_is_a_usage_error_naming_the_field(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    extra = "tool_config:\n  web_search:\n    parameters: {provder: searxng, credentialRef: not-a-ref-sk-123}\n"
    agent = write_agent(tmp_path / "s.agent.yaml", tools=["web_search"], extra=extra)
    code, _, err = run_cli("agent", "run", str(agent), "--prompt", "x", "--json", env=env)
    assert code == 2
    assert "tool_config.web_search.parameters.provder" in err
    assert "tool_config.web_search.parameters.credentialRef" in err
    assert "not-a-ref-sk-123" not in err
    assert llm_server.requests == []


def test_a_config_for_an_ungranted_tool_is_reported_at_its_line(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    extra = "tool_config:\n  http_request:\n    parameters: {}\n"
    agent = write_agent(tmp_path / "s.agent.yaml", tools=["web_search"], extra=extra)
    code, _, err = run_cli("agent", "run", str(agent), "--prompt", "x", "--json", env=env)
    assert code == 2
    assert "s.agent.yaml:8:3:" in err and "'http_request'" in err


def test_relavium_chat_searches_through_tool_config(
    env: dict[str, str], llm_server: ScriptedLLMServer, searxng_server: SearxngServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "c.agent.yaml", tools=["web_search"])
    config = {"web_search": {"parameters": {"provider": "searxng", "baseUrl": searxng_server.base_url,
                                            "allowLocal": True}}}
    (tmp_path / "tools.json").write_text(json.dumps(config))
    llm_server.script(Reply.call("web_search", {"query": "chat parity"}), Reply.say("Here is what I found."))
    proc = subprocess.run(
        [*relavium_cmd(), "chat", "--agent", str(agent), "--workspace", str(tmp_path),
         "--tool-config", f"@{tmp_path / 'tools.json'}"],
        input="look it up\ny\n/exit\n", env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert searxng_server.searches() == ["chat parity"]
    assert "Here is what I found." in proc.stdout
    assert "SearXNG result for chat parity" in json.dumps(llm_server.requests[1].body["messages"])


def test_relavium_chat_refuses_a_bad_tool_config_before_starting(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    bad = json.dumps({"web_search": {"parameters": {"credentialRef": "sk-pasted-KEY-123"}}})
    code, out, err = run_cli("chat", "--workspace", str(tmp_path), "--tool-config", bad, env=env, input="hi\n")
    assert code == 2
    assert "--tool-config" in err and "web_search parameter credentialRef" in err
    assert "sk-pasted-KEY-123" not in err + str(out)
    assert llm_server.requests == []
    assert run_cli("chat", "--list", "--json", env=env)[1] == []  # no session was created


WORKFLOW = """schema_version: '1.0'
workflow:
  id: searchy
  agents:
    - id: researcher
      provider: scripted-openai
      model: gpt-4o-mini
      system_prompt: Search, then answer.
      tools: [web_search, read_file]
      tool_config:
        web_search:
          parameters: {params}
  nodes:
    - {{id: start, type: input}}
    - {{id: look, type: agent, agent_ref: researcher, tools: [web_search], prompt_template: 'find it'}}
    - {{id: out, type: output}}
  edges: [{{from: start, to: look}}, {{from: look, to: out}}]
"""


def test_a_workflow_agent_node_that_narrows_tools_keeps_the_agents_tool_config(
    env: dict[str, str], llm_server: ScriptedLLMServer, searxng_server: SearxngServer, tmp_path: Path
) -> None:
    params = json.dumps({"provider": "searxng", "baseUrl": searxng_server.base_url, "allowLocal": True})
    wf = tmp_path / "search.relavium.yaml"
    wf.write_text(WORKFLOW.format(params=params))
    llm_server.script(Reply.call("web_search", {"query": "from a workflow"}), Reply.say("Answer."))
    code, events, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=env)
    assert code == 0, err
    assert searxng_server.searches() == ["from a workflow"]
    assert [(e["nodeId"], e["toolId"], e["success"]) for e in events if e["type"] == "agent:tool_result"] == [
        ("look", "web_search", True)]
    assert "SearXNG result for from a workflow" in json.dumps(llm_server.requests[1].body["messages"])


def test_relavium_validate_reports_a_misnamed_tool_config_parameter_at_its_line(
    env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "search.relavium.yaml"
    wf.write_text(WORKFLOW.format(params='{provder: searxng, credentialRef: "sk-not-a-ref-777"}'))
    code, out, err = run_cli("validate", str(wf), "--json", env=env)
    assert code == 2 and out == "", (out, err)
    messages = {(i["line"], i["message"]) for i in json.loads(err)["issues"]}
    assert any(line == 12 and "has no parameter 'provder'" in m for line, m in messages), messages
    assert any(line == 12 and "parameter credentialRef" in m for line, m in messages), messages
    assert "sk-not-a-ref-777" not in json.dumps(out) + err


def test_relavium_validate_reports_a_config_for_a_tool_the_agent_lacks(env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "w.relavium.yaml"
    wf.write_text(WORKFLOW.format(params="{}").replace("web_search:\n          parameters",
                                                       "http_request:\n          parameters"))
    code, out, err = run_cli("validate", str(wf), "--json", env=env)
    assert code == 2 and out == ""
    (issue,) = json.loads(err)["issues"]
    assert (issue["line"], issue["column"]) == (10, 7)  # the agent's tool_config block
    assert "'http_request', which is not one of this agent's tools" in issue["message"]
