"""``relavium agent run`` as a real subprocess against the scripted LLM server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.llm_cli import KEY, scan_for_secret, write_agent
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli


def test_agent_run_streams_ndjson_and_leaks_no_key(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path, relavium_home: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("the answer is 42\n")
    agent = write_agent(tmp_path / "helper.agent.yaml", tools=["read_file", "run_command"])
    llm_server.script(
        Reply.call("run_command", {"command": "echo", "args": ["api_key=" + KEY]}),
        Reply.call("read_file", {"path": "notes.txt"}),
        Reply.say("It is 42."),
    )
    code, events, err = run_cli(
        "agent", "run", str(agent), "--prompt", "what is the answer?", "--workspace", str(ws),
        "--approve-all", "process", "--policy", '{"allowedCommands": ["echo api_key=' + KEY + '"]}',
        "--json", env=env,
    )
    assert code == 0, err
    kinds = [e["type"] for e in events]
    assert kinds[0] == "run:started" and kinds[-1] == "run:completed"
    assert [e["sequenceNumber"] for e in events] == list(range(len(events)))
    assert "".join(e["token"] for e in events if e["type"] == "agent:token") == "It is 42."
    assert [e["toolId"] for e in events if e["type"] == "agent:tool_result"] == ["run_command", "read_file"]
    assert any(e["type"] == "cost:updated" for e in events)
    assert events[-1]["output"] == "It is 42."
    # Acceptance 5: the provider key (here also echoed by a tool) is in no event, file or log.
    assert scan_for_secret(relavium_home, str(events), err) == []


def test_governed_action_is_denied_without_approve_all(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "a.agent.yaml", tools=["run_command"])
    llm_server.script(Reply.call("run_command", {"command": "echo", "args": ["hi"]}), Reply.say("never"))
    code, events, _ = run_cli("agent", "run", str(agent), "--prompt", "go", "--workspace", str(tmp_path),
                              "--policy", '{"allowedCommands": ["echo hi"]}', "--json", env=env)
    assert code == 1
    assert events[-1]["type"] == "run:failed" and events[-1]["error"]["code"] == "tool_denied"
    assert len(llm_server.requests) == 1


def test_provider_auth_failure_is_a_failed_run(env: dict[str, str], llm_server: ScriptedLLMServer,
                                               tmp_path: Path, relavium_home: Path) -> None:
    agent = write_agent(tmp_path / "a.agent.yaml", tools=[])
    llm_server.script(Reply.error(401))
    code, events, err = run_cli("agent", "run", str(agent), "--prompt", "hi", "--json", env=env)
    assert code == 1 and events[-1]["error"]["code"] == "provider_auth"
    assert scan_for_secret(relavium_home, str(events), err) == []


def test_unknown_risk_is_a_usage_error(env: dict[str, str], tmp_path: Path) -> None:
    agent = write_agent(tmp_path / "a.agent.yaml", tools=[])
    code, _, err = run_cli("agent", "run", str(agent), "--prompt", "hi", "--approve-all", "everything",
                           "--json", env=env)
    assert code == 2 and "everything" in err


@pytest.mark.parametrize(
    ("body", "where", "problem"),
    [
        ("id: a\nprovider: p\nmodel: m\ntemprature: 0.2\n", "a.agent.yaml:4:1:", "unknown key 'temprature'"),
        ("id: a\nprovider: p\nmodel: m\nmax_tokens: lots\n", "a.agent.yaml:4:13:", "max_tokens"),
        ("id: a\nprovider: p\n  model: m\n", "a.agent.yaml:3:8:", "malformed YAML"),
        ("id: a\nprovider: p\nmodel: m\nretry:\n  max: 2\n  backof: fixed\n", "a.agent.yaml:6:3:",
         "unknown key 'retry.backof'"),
        ("id: a\nprovider: p\nmodel: m\nfallback_chain:\n  - provider: q\n    model: 7\n", "a.agent.yaml:6:12:",
         "fallback_chain.0.model"),
    ],
)
def test_agent_yaml_problems_name_file_line_column(
    env: dict[str, str], tmp_path: Path, body: str, where: str, problem: str
) -> None:
    (tmp_path / "a.agent.yaml").write_text(body)
    code, out, err = run_cli("agent", "run", "a.agent.yaml", "--prompt", "hi", "--json", env=env, cwd=tmp_path)
    assert code == 2 and out == ""
    assert "Traceback" not in err
    line = err.strip().splitlines()[0]
    assert line.startswith(where) and problem in line


def test_every_problem_gets_its_own_line(env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "a.agent.yaml").write_text("id: a\nprovider: p\nmodel: m\ncolour: red\ntemperature: hot\n")
    code, _, err = run_cli("agent", "run", "a.agent.yaml", "--prompt", "hi", env=env, cwd=tmp_path)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 2
    assert lines[0].startswith("a.agent.yaml:4:1:") and "colour" in lines[0]
    assert lines[1].startswith("a.agent.yaml:5:14:") and "temperature" in lines[1]
