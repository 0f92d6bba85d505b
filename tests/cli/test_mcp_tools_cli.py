"""Discovered MCP tools through the real ``relavium`` console script and the real SDK fixture server.

Covers issue 16 parts 2 and 3 on the command line: ``tools list`` shows each
server's tools as ``mcp_<server>_<tool>`` with the server's schema (stdio and
Streamable HTTP), the allowlist hides tools, a dead server is a reason on
stderr, ``tool call mcp_<server>_<tool>`` runs through the full pipeline, bad
arguments never reach the server, a workflow's own stdio server needs
``--approve-mcp`` (and is never spawned without it), and an agent run whose
scripted model calls a discovered tool.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.llm_cli import write_agent
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli
from tests.host.mcp.conftest import FIXTURE, PYTHON, HttpServer, process_gone, start_http_server


def _stdio(extra: str = "") -> str:
    return (f"    transport: stdio\n    command: {json.dumps(PYTHON)}\n"
            f"    args: [{json.dumps(FIXTURE)}, stdio]\n{extra}")


def _write_mcp(home: Path, servers: dict[str, str]) -> None:
    body = "".join(f"  {name}:\n{entry}" for name, entry in servers.items())
    (home / "mcp.yaml").write_text("servers:\n" + body)


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[HttpServer]:
    server = start_http_server(tmp_path)
    yield server
    server.proc.kill()
    server.proc.wait()


def _rows(out: Any) -> dict[str, dict[str, Any]]:
    assert isinstance(out, list)
    return {row["id"]: row for row in out}


def test_tools_list_shows_each_servers_tools_with_their_schema_stdio_and_http(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path, http_server: HttpServer,
) -> None:
    _write_mcp(relavium_home, {
        "fixture": _stdio(),
        "remote": f"    transport: http\n    url: {http_server.url()}\n    allowLocal: true\n",
    })
    code, out, err = run_cli("tools", "list", "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 0, err
    rows = _rows(out)
    for server in ("fixture", "remote"):
        add = rows[f"mcp_{server}_add"]
        assert add["source"] == "mcp" and add["server"] == server
        assert add["parameters"]["properties"]["a"]["type"] == "integer"
        assert sorted(add["parameters"]["required"]) == ["a", "b"]
        assert "Add two integers." in add["description"] and add["policy"]["egress"] == "mcp"
        assert f"mcp_{server}_echo" in rows
    assert "server" not in rows["read_file"] and rows["read_file"]["source"] == "builtin"


def test_the_allowlist_hides_tools_and_a_dead_server_is_a_reason_on_stderr(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, {
        "fixture": _stdio("    toolsAllowlist: [add]\n"),
        "dead": (f"    transport: stdio\n    command: {json.dumps(PYTHON)}\n"
                 "    args: [-c, 'import sys; sys.exit(3)']\n"),
    })
    code, out, err = run_cli("tools", "list", "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 0, err
    mcp_ids = sorted(i for i in _rows(out) if i.startswith("mcp_") and i != "mcp_call")
    assert mcp_ids == ["mcp_fixture_add"]
    assert "MCP server dead: unavailable:" in err


def test_tool_call_runs_a_discovered_tool_and_ends_its_server(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, {"fixture": _stdio()})
    code, out, err = run_cli("tool", "call", "mcp_fixture_add", "--args", json.dumps({"a": 2, "b": 40}),
                             "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 0, err
    assert out["ok"] is True and out["tool"] == "mcp_fixture_add"
    assert out["result"]["structuredContent"]["result"] == 42 and "42" in out["model_facing"]
    assert [e["type"] for e in out["events"]] == ["agent:tool_call", "agent:tool_result"]
    assert out["events"][0]["toolInput"] == {"a": 2, "b": 40}
    code, out, _ = run_cli("tool", "call", "mcp_fixture_pid", "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 0
    assert process_gone(out["result"]["structuredContent"]["result"])


def test_invalid_arguments_are_refused_by_the_schema_before_the_server_is_called(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    pid_file = tmp_path / "called.pid"
    _write_mcp(relavium_home, {"fixture": _stdio(f"    env: {{MCP_FIXTURE_PIDFILE: {json.dumps(str(pid_file))}}}\n")})
    code, out, _ = run_cli("tool", "call", "mcp_fixture_sleep", "--args", json.dumps({"seconds": "long"}),
                           "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 1 and out["error"]["code"] == "invalid_args"
    assert "seconds: must be of type number" in out["error"]["message"]
    assert not pid_file.exists()  # the sleep tool writes it first thing: it never ran
    code, out, _ = run_cli("tool", "call", "mcp_fixture_sleep", "--args", json.dumps({"seconds": 0}),
                           "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 0 and pid_file.exists()  # the same call with valid arguments does reach it


def test_tool_call_of_a_dead_servers_tool_says_why(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, {"dead": (f"    transport: stdio\n    command: {json.dumps(PYTHON)}\n"
                                        "    args: [-c, 'import sys; sys.exit(3)']\n")})
    code, out, _ = run_cli("tool", "call", "mcp_dead_add", "--args", "{}", "--workspace", str(tmp_path),
                           "--json", env=cli_env)
    assert code == 1 and out["error"]["code"] == "tool_unavailable"
    assert "MCP server dead: unavailable" in out["error"]["message"]


WORKFLOW = """schema_version: '1.0'
workflow:
  id: wf-mcp
  mcp_servers:
    wfcalc:
      transport: stdio
      command: {python}
      args: [-c, {starter}, {started}, {fixture}]
      env: {{MCP_FIXTURE_PIDFILE: {pidfile}}}
  nodes:
    - {{id: s, type: input}}
    - {{id: t, type: tool, tool_config: {{tool_name: mcp_call,
        parameters: {{server: wfcalc, tool: sleep, arguments: {{seconds: 0}}}}}}}}
    - {{id: out, type: output}}
  edges: [{{from: s, to: t}}, {{from: t, to: out}}]
"""


# The declared server first leaves a mark that it was started, then becomes the fixture server.
# The fixture's path is also an argument: the OS sandbox lets a server read its own program's folder.
STARTER = "import os, sys; open(sys.argv[1], 'w').close(); os.execv(sys.executable, [sys.executable, {}, 'stdio'])"


def _workflow_text(started: Path, pid_file: Path) -> str:
    return WORKFLOW.format(python=json.dumps(PYTHON), starter=json.dumps(STARTER.format(repr(FIXTURE))),
                           fixture=json.dumps(FIXTURE),
                           started=json.dumps(str(started)), pidfile=json.dumps(str(pid_file)))


@pytest.fixture
def workflow(tmp_path: Path) -> tuple[Path, Path, Path]:
    path = tmp_path / "wf.relavium.yaml"
    started, pid_file = tmp_path / "started", tmp_path / "wf.pid"
    path.write_text(_workflow_text(started, pid_file))
    return path, started, pid_file


def test_a_workflows_own_stdio_server_is_refused_without_approve_mcp_and_never_spawned(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path, workflow: tuple[Path, Path, Path],
) -> None:
    path, started, _ = workflow
    code, out, err = run_cli("run", str(path), "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 1, err
    message = ("MCP server wfcalc (from the workflow) needs your consent before it starts: "
               "run again with --approve-mcp wfcalc")
    assert out == "" and json.loads(err) == {"type": "error", "code": "tool_denied", "message": message}
    assert not started.exists()  # the declared command never ran
    # Approving another name does not approve this one.
    code, _, err = run_cli("run", str(path), "--workspace", str(tmp_path), "--approve-mcp", "other", env=cli_env)
    assert code == 1 and message in err and not started.exists()


def test_a_workflows_own_stdio_server_runs_with_approve_mcp(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path, workflow: tuple[Path, Path, Path],
) -> None:
    path, started, pid_file = workflow
    code, events, err = run_cli("run", str(path), "--workspace", str(tmp_path), "--approve-mcp", "wfcalc",
                                "--json", env=cli_env)
    assert code == 0, err
    assert events[-1]["type"] == "run:completed"
    assert started.exists() and pid_file.exists()
    assert process_gone(int(pid_file.read_text()))


def test_a_broken_workflow_servers_block_is_a_validation_error(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    path = tmp_path / "bad.relavium.yaml"
    path.write_text(_workflow_text(tmp_path / "s", tmp_path / "p").replace("transport: stdio",
                                                                           "transport: carrier-pigeon"))
    code, out, err = run_cli("run", str(path), "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 2 and out == ""
    assert json.loads(err)["code"] == "validation" and "wfcalc" in json.loads(err)["message"]
    code, out, err = run_cli("validate", str(path), "--json", env=cli_env)
    assert code == 2 and out == "" and "servers.wfcalc" in json.loads(err)["message"]


def test_validate_refuses_an_agents_server_that_clashes_with_the_workflows_as_run_does(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    path = tmp_path / "clash.relavium.yaml"
    path.write_text("""schema_version: '1.0'
workflow:
  id: clash
  mcp_servers:
    calc: {transport: stdio, command: /usr/bin/true}
  agents:
    - id: a
      model: gpt-4o-mini
      mcp_servers:
        calc: {transport: stdio, command: /usr/bin/false}
  nodes:
    - {id: s, type: input}
    - {id: out, type: output}
  edges: [{from: s, to: out}]
""")
    for command in (("validate", str(path)), ("run", str(path), "--workspace", str(tmp_path))):
        code, out, err = run_cli(*command, "--json", env=cli_env)
        assert code == 2 and out == "", (command, err)
        assert "'calc' is also declared, differently" in json.loads(err)["message"]


def test_an_agent_run_whose_model_calls_a_discovered_tool(
    env: dict[str, str], llm_server: ScriptedLLMServer, relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, {"fixture": _stdio()})
    agent = write_agent(tmp_path / "calc.agent.yaml", tools=["mcp_fixture_add"])
    llm_server.script(Reply.call("mcp_fixture_add", {"a": 19, "b": 23}), Reply.say("The sum is 42."))
    code, events, err = run_cli("agent", "run", str(agent), "--prompt", "add 19 and 23", "--workspace",
                                str(tmp_path), "--approve-all", "egress", "--json", env=env)
    assert code == 0, err
    results = [e for e in events if e["type"] == "agent:tool_result"]
    assert [(r["toolId"], r["success"]) for r in results] == [("mcp_fixture_add", True)]
    assert "42" in results[0]["outputSummary"]
    # The model was offered the tool with the server's own schema.
    offered = llm_server.requests[0].body["tools"]
    (add,) = [t["function"] for t in offered if t["function"]["name"] == "mcp_fixture_add"]
    assert add["parameters"]["properties"]["b"]["type"] == "integer"
    assert events[-1]["type"] == "run:completed" and events[-1]["output"] == "The sum is 42."


def test_an_agent_files_own_stdio_server_needs_approve_mcp_then_its_tools_are_offered(
    env: dict[str, str], llm_server: ScriptedLLMServer, relavium_home: Path, tmp_path: Path,
) -> None:
    started = tmp_path / "agent-started"
    servers = ("mcp_servers:\n  own:\n    transport: stdio\n"
               f"    command: {json.dumps(PYTHON)}\n"
               f"    args: [-c, {json.dumps(STARTER.format(repr(FIXTURE)))}, {json.dumps(str(started))}, "
               f"{json.dumps(FIXTURE)}]\n")
    agent = write_agent(tmp_path / "own.agent.yaml", tools=["mcp_own_add"], extra=servers)
    code, _, err = run_cli("agent", "run", str(agent), "--prompt", "add", "--workspace", str(tmp_path),
                           "--approve-all", "egress", "--json", env=env)
    assert code == 1 and not started.exists()
    assert ("MCP server own (from the agent file) needs your consent before it starts: "
            "run again with --approve-mcp own") in err
    assert llm_server.requests == []  # refused before the model was asked anything
    llm_server.script(Reply.call("mcp_own_add", {"a": 1, "b": 2}), Reply.say("3"))
    code, events, err = run_cli("agent", "run", str(agent), "--prompt", "add", "--workspace", str(tmp_path),
                                "--approve-all", "egress", "--approve-mcp", "own", "--json", env=env)
    assert code == 0, err
    assert started.exists()
    assert [(e["toolId"], e["success"]) for e in events if e["type"] == "agent:tool_result"] == [
        ("mcp_own_add", True)]


def test_a_stored_consent_lets_the_same_launch_start_and_a_changed_one_is_asked_again(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path, workflow: tuple[Path, Path, Path],
) -> None:
    from ruamel.yaml import YAML

    from relavium_desktop.application.mcp import mcp_consents
    from relavium_desktop.host.mcp.config import parse_servers
    from relavium_desktop.host.mcp.fingerprint import stdio_fingerprint

    path, started, _ = workflow
    entry = parse_servers(YAML(typ="safe").load(path.read_text())["workflow"]["mcp_servers"])["wfcalc"]
    store = mcp_consents(relavium_home)
    try:  # what the app's consent prompt stores when the user allows it for this project
        store.grant(tmp_path, "wfcalc", stdio_fingerprint(entry))
    finally:
        store.close()
    code, _, err = run_cli("run", str(path), "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 0, err
    assert started.exists()
    started.unlink()
    # The file now runs something else under the same name: that launch was never consented to.
    path.write_text(path.read_text().replace("args: [-c,", "args: [-B, -c,"))
    code, _, err = run_cli("run", str(path), "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 1 and "needs your consent" in err and not started.exists()
    # The original launch in another project: consent is per project.
    path.write_text(path.read_text().replace("args: [-B, -c,", "args: [-c,"))
    other = tmp_path / "other-project"
    other.mkdir()
    code, _, err = run_cli("run", str(path), "--workspace", str(other), env=cli_env)
    assert code == 1 and "needs your consent" in err and not started.exists()


def test_a_calls_progress_and_server_log_lines_are_run_events(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, {"fixture": _stdio()})
    code, out, err = run_cli("tool", "call", "mcp_fixture_progress", "--args", json.dumps({"steps": 3}),
                             "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 0, err
    progress = [e for e in out["events"] if e["type"] == "agent:tool_progress"]
    assert [(p["progress"], p.get("total"), p.get("message")) for p in progress] == [
        (1, 3, "step 1 of 3"), (2, 3, "step 2 of 3"), (3, 3, "step 3 of 3")]
    assert {p["toolId"] for p in progress} == {"mcp_fixture_progress"}
    kinds = [e["type"] for e in out["events"]]
    assert kinds[0] == "agent:tool_call" and kinds[-1] == "agent:tool_result"
    code, out, err = run_cli("tool", "call", "mcp_fixture_chatty", "--args",
                             json.dumps({"text": "token=sk-live-ABCDEFGH0123456789abcdef"}),
                             "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 0, err
    logs = [(e["level"], e["message"]) for e in out["events"] if e["type"] == "agent:tool_log"]
    assert [level for level, _ in logs] == ["info", "warning"]
    assert all("sk-live-ABCDEFGH" not in message for _, message in logs)  # masked like every event


def test_elicitation_is_declined_on_the_command_line_with_a_clear_message(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, {"fixture": _stdio()})
    code, out, err = run_cli("tool", "call", "mcp_fixture_ask_name", "--workspace", str(tmp_path), "--json",
                             env=cli_env)
    assert code == 0, err
    assert "no name (decline)" in out["model_facing"]
    assert "MCP server fixture asked for input; the command line cannot show forms" in err


def test_sampling_is_refused_on_the_command_line(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, {"fixture": _stdio()})
    code, out, _ = run_cli("tool", "call", "mcp_fixture_ask_model", "--args", json.dumps({"question": "hi?"}),
                           "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 1 and out["error"]["code"] == "tool_failed"
    assert "sampling" in out["error"]["message"].lower()


def test_a_workflow_tool_node_calls_a_discovered_tool_of_its_own_server(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path, workflow: tuple[Path, Path, Path],
) -> None:
    path, started, _ = workflow
    text = path.read_text().replace(
        "tool_config: {tool_name: mcp_call,\n        parameters: {server: wfcalc, tool: sleep, arguments: {seconds: 0}}}",
        "tool_config: {tool_name: mcp_wfcalc_add, parameters: {a: 20, b: 22}}")
    assert "mcp_wfcalc_add" in text
    path.write_text(text)
    code, events, err = run_cli("run", str(path), "--workspace", str(tmp_path), "--approve-mcp", "wfcalc",
                                "--json", env=cli_env)
    assert code == 0, err
    results = [e for e in events if e["type"] == "agent:tool_result"]
    assert [(r["toolId"], r["success"]) for r in results] == [("mcp_wfcalc_add", True)]
    assert "42" in results[0]["outputSummary"] and started.exists()


def test_server_everythings_form_is_declined_on_the_command_line(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    """The third-party reference server's elicitation: the CLI cannot show forms, so it declines, saying so."""
    from tests.fixtures.mcp_everything import everything_entry

    (relavium_home / "mcp.yaml").write_text(json.dumps({"servers": {"everything": everything_entry()}}))
    code, out, err = run_cli("tool", "call", "mcp_everything_trigger-elicitation-request", "--workspace",
                             str(tmp_path), "--json", env=cli_env)
    assert code == 0, err
    assert "declined" in out["model_facing"]
    assert "MCP server everything asked for input; the command line cannot show forms" in err


def test_a_run_paused_at_a_gate_resumes_with_its_own_server_and_still_needs_consent(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path, workflow: tuple[Path, Path, Path],
) -> None:
    """The workflow's own server block is kept with the run: the resumed half can call its tools."""
    path, started, _ = workflow
    text = path.read_text().replace(
        "    - {id: t, type: tool, tool_config: {tool_name: mcp_call,\n"
        "        parameters: {server: wfcalc, tool: sleep, arguments: {seconds: 0}}}}\n",
        "    - {id: gate, type: human_gate}\n"
        "    - {id: t, type: tool, tool_config: {tool_name: mcp_wfcalc_add, parameters: {a: 20, b: 22}}}\n",
    ).replace("edges: [{from: s, to: t}", "edges: [{from: s, to: gate}, {from: gate, to: t}")
    assert "mcp_wfcalc_add" in text and "to: gate" in text
    path.write_text(text)
    code, events, err = run_cli("run", str(path), "--workspace", str(tmp_path), "--approve-mcp", "wfcalc",
                                "--json", env=cli_env)
    assert code == 3, err
    run_id = events[-1]["runId"]
    # The resume is a new process: the same consent rule applies to the kept server.
    code, _out, err = run_cli("run", "--resume", run_id, "--decision", "approve", "--json", env=cli_env)
    assert code == 1 and "needs your consent before it starts" in err
    started.unlink(missing_ok=True)
    code, resumed, err = run_cli("run", "--resume", run_id, "--decision", "approve", "--approve-mcp", "wfcalc",
                                 "--json", env=cli_env)
    assert code == 0, err
    results = [e for e in resumed if e["type"] == "agent:tool_result"]
    assert [(r["toolId"], r["success"]) for r in results] == [("mcp_wfcalc_add", True)]
    assert "42" in results[0]["outputSummary"] and started.exists()
