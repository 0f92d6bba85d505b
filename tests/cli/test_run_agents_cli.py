"""``relavium run`` on workflows with agent nodes, as a real subprocess.

The provider is the scripted LLM server (real HTTP, each provider's real SSE
wire format); its entries are written to ``providers.yaml`` with the local
endpoint opted in explicitly (``allow_local: true``) and the key as an
``env:`` reference.  Tools run on the real host in a temporary workspace.
"""

from __future__ import annotations

import json
import shutil
from itertools import groupby
from pathlib import Path
from typing import Any

import pytest

from tests.cli.llm_cli import KEY, scan_for_secret
from tests.conftest import REPO
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli

EXAMPLES = REPO / "resources" / "examples"

WORKFLOW = """schema_version: '1.0'
workflow:
  id: cli-agents
  inputs: [{name: file, type: string}]
  agents:
    - {id: lead, provider: scripted-openai, model: gpt-4o-mini,
       system_prompt: Delegate reading to node reader., tools: [invoke_agent]}
    - {id: reader, provider: scripted-anthropic, model: claude-sonnet-4,
       system_prompt: Read the file you are asked about., tools: [read_file]}
  nodes:
    - {id: start, type: input}
    - {id: lead, type: agent, agent_ref: lead, prompt_template: 'Summarise {{ inputs.file }}'}
    - {id: reader, type: agent, agent_ref: reader}
    - {id: out, type: output, save_to: summary.md}
  edges: [{from: start, to: lead}, {from: lead, to: out}]
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("the deploy is on friday\n")
    return ws


def shape(events: list[dict[str, Any]]) -> list[str]:
    """Event types with their node, runs of tokens collapsed to one entry."""
    names = [e["type"] + (f":{e['nodeId']}" if "nodeId" in e else "") for e in events]
    return [name for name, _ in groupby(names)]


def test_agent_nodes_run_with_a_tool_round_trip_and_invoke_agent(
    env: dict[str, str], llm_server: ScriptedLLMServer, workspace: Path, tmp_path: Path, relavium_home: Path
) -> None:
    wf = tmp_path / "agents.relavium.yaml"
    wf.write_text(WORKFLOW)
    llm_server.script(
        Reply.call("invoke_agent", {"nodeId": "reader", "input": "What does notes.txt say?"}),  # lead
        Reply.call("read_file", {"path": "notes.txt"}),                                        # reader
        Reply.say("It says the deploy is on friday."),                                         # reader
        Reply.say("Deploy: friday."),                                                          # lead
    )
    code, events, err = run_cli("run", str(wf), "--input", "file=notes.txt", "--workspace", str(workspace),
                                "--json", env=env)

    assert code == 0, err
    assert shape(events) == [
        "run:started", "node:started:start", "node:completed:start", "node:started:lead",
        "agent:tool_call:lead",                                    # invoke_agent
        "agent:tool_call:reader", "agent:tool_result:reader",      # read_file, inside the delegate
        "agent:token:reader", "cost:updated:reader",
        "agent:tool_result:lead",
        "agent:token:lead", "cost:updated:lead", "node:completed:lead",
        "node:started:out", "agent:tool_call:out", "agent:tool_result:out", "node:completed:out",  # save_to
        "run:completed",
    ]
    assert [e["sequenceNumber"] for e in events] == list(range(len(events)))
    by_node = {n: "".join(e["token"] for e in events if e["type"] == "agent:token" and e["nodeId"] == n)
               for n in ("lead", "reader")}
    assert by_node == {"lead": "Deploy: friday.", "reader": "It says the deploy is on friday."}
    read = next(e for e in events if e["type"] == "agent:tool_result" and e["nodeId"] == "reader")
    assert read["toolId"] == "read_file" and read["success"] is True
    done = events[-1]
    assert done["outputs"] == {"out": "Deploy: friday."}
    assert done["totalTokensUsed"] == {"input": 48, "output": 28}
    assert (workspace / "summary.md").read_text() == "Deploy: friday."
    # Each provider got its own wire format; the delegate's answer went back to the lead.
    assert [r.dialect for r in llm_server.requests] == ["openai", "anthropic", "anthropic", "openai"]
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    lead_tool = [m for m in llm_server.requests[3].body["messages"] if m["role"] == "tool"]
    assert "It says the deploy is on friday." in lead_tool[0]["content"]
    # The key is in no event, no stderr line and no file under the data dir (history.db included).
    assert scan_for_secret(relavium_home, json.dumps(events), err) == []


AUTH_WF = """schema_version: '1.0'
workflow:
  id: auth
  agents: [{id: a, provider: scripted-anthropic, model: claude-sonnet-4, tools: []}]
  nodes:
    - {id: start, type: input}
    - {id: a, type: agent, agent_ref: a, prompt_template: hello, retry: {max: 3, backoff_ms: 0}}
    - {id: out, type: output}
  edges: [{from: start, to: a}, {from: a, to: out}]
"""


def test_a_refused_key_fails_the_run_with_provider_auth(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path, relavium_home: Path
) -> None:
    wf = tmp_path / "auth.relavium.yaml"
    wf.write_text(AUTH_WF)
    llm_server.script(Reply.error(401))
    code, events, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=env)

    assert code == 1, err
    assert shape(events)[-3:] == ["node:failed:a", "node:skipped:out", "run:failed"]
    error = events[-1]["error"]
    assert error["code"] == "provider_auth" and error["nodeId"] == "a"
    # Our sentence, then what the server itself said.
    assert error["message"] == ("scripted-anthropic: HTTP 401: the key was refused "
                                "(check the provider key reference). The server said: scripted 401")
    assert len(llm_server.requests) == 1  # not retried: another attempt would not fix the key
    assert scan_for_secret(relavium_home, json.dumps(events), err) == []

    # Without --json the person at the terminal reads the same reason.
    llm_server.script(Reply.error(401))
    code, out, err = run_cli("run", str(wf), "--workspace", str(tmp_path), env=env)
    assert code == 1
    assert "run:failed: provider_auth: scripted-anthropic: HTTP 401: the key was refused" in out


def test_a_local_endpoint_needs_the_explicit_opt_in(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path, relavium_home: Path
) -> None:
    settings = json.loads((relavium_home / "providers.yaml").read_text())
    del settings["providers"]["scripted-anthropic"]["allow_local"]
    (relavium_home / "providers.yaml").write_text(json.dumps(settings))
    wf = tmp_path / "auth.relavium.yaml"
    wf.write_text(AUTH_WF)
    code, events, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=env)

    assert code == 1, err
    error = events[-1]["error"]
    assert error["code"] == "validation" and "allow_local: true" in error["message"]
    assert llm_server.requests == []  # refused before any connection


def example_providers(home: Path, base_url: str) -> None:
    """Point the examples' ``anthropic`` entry at the scripted server (opted in as local)."""
    entries = {"providers": {"anthropic": {"kind": "anthropic", "base_url": base_url,
                                           "api_key": "env:RELAVIUM_TEST_KEY", "allow_local": True}}}
    (home / "providers.yaml").write_text(json.dumps(entries))


def test_the_shipped_agent_examples_run_against_the_scripted_server(
    cli_env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path, relavium_home: Path
) -> None:
    example_providers(relavium_home, llm_server.base_url)
    env = {**cli_env, "RELAVIUM_TEST_KEY": KEY}
    project = tmp_path / "project"
    shutil.copytree(EXAMPLES, project / "examples")
    (project / "app.py").write_text("def add(a, b):\n    return a - b\n")

    # review-file: a $ref agent, a read_file context, a read_file tool call, save_to.
    llm_server.script(Reply.call("read_file", {"path": "app.py"}), Reply.say("- add() subtracts"))
    code, events, err = run_cli("run", str(project / "examples" / "review-file.relavium.yaml"),
                                "--input", "file=app.py", "--workspace", str(project), "--json", env=env)
    assert code == 0, err
    run_id = events[-1]["runId"]
    assert (project / "reviews" / f"{run_id}.md").read_text() == "- add() subtracts"
    prompt = llm_server.requests[0].body["messages"][0]["content"]
    assert "return a - b" in json.dumps(prompt)  # the context's read_file filter fed the prompt
    assert llm_server.requests[0].body["model"] == "claude-sonnet-4-6"

    # orchestrated-summary: the lead delegates to the unscheduled research node.
    llm_server.script(
        Reply.call("invoke_agent", {"nodeId": "research", "input": "What does app.py do?"}),
        Reply.call("list_directory", {"path": "."}),
        Reply.say("It defines add()."),
        Reply.say("# Summary\napp.py defines add()."),
    )
    code, events, err = run_cli("run", str(project / "examples" / "orchestrated-summary.relavium.yaml"),
                                "--input", "topic=app.py", "--workspace", str(project), "--json", env=env)
    assert code == 0, err
    assert events[-1]["outputs"] == {"out": "# Summary\napp.py defines add()."}
    tool_calls = [(e["nodeId"], e["toolId"]) for e in events if e["type"] == "agent:tool_call"]
    assert tool_calls == [("lead", "invoke_agent"), ("research", "list_directory")]
    assert scan_for_secret(relavium_home, json.dumps(events), err) == []
