"""``sandbox:`` in a workflow's tools block and in --policy, through the real CLI and a real kernel sandbox.

An allowlisted interpreter runs a small escape script that writes into a
sibling folder of the project.  Strict (the default) blocks it; ``sandbox:
off`` is the author's explicit opt-in, so the write lands -- and ``relavium
run`` / ``relavium tool call`` say, in one stderr line, that commands ran
unconfined.  (SB1's full escape matrix lives in test_sandbox_escape_cli.py;
this file checks only that the policy value reaches the process.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli

ESCAPE = """\
import sys
target = sys.argv[1]
try:
    with open(target, "w") as f:
        f.write("escaped")
    print("WROTE")
except OSError as exc:
    print(f"BLOCKED errno={exc.errno}")
"""

WORKFLOW = """\
schema_version: '1.0'
workflow:
  id: escape
  tools:
    allowedCommands: ['python3 escape.py {target}']
{sandbox}  nodes:
    - {{id: s, type: input}}
    - id: try
      type: tool
      tool_config:
        tool_name: run_command
        parameters: {{command: python3, args: [escape.py, '{target}']}}
        output_mapping: {{stdout: stdout}}
    - {{id: out, type: output}}
  edges: [{{from: s, to: try}}, {{from: try, to: out}}]
"""

OFF_LINE = "relavium: warning: sandbox: off -- commands run unconfined"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "escape.py").write_text(ESCAPE, encoding="utf-8")
    (tmp_path / "sibling").mkdir()
    return folder


def run_workflow(cli_env: dict[str, str], project: Path, sandbox_line: str) -> tuple[int, str, str, Path]:
    target = project.parent / "sibling" / "pwned.txt"
    wf = project.parent / "escape.relavium.yaml"
    wf.write_text(WORKFLOW.format(sandbox=sandbox_line, target=target), encoding="utf-8")
    code, out, err = run_cli("run", str(wf), "--workspace", str(project), env=cli_env, cwd=project)
    return code, out, err, target


def test_the_default_strict_sandbox_blocks_the_write_and_warns_nothing(
    cli_env: dict[str, str], project: Path
) -> None:
    code, out, err, target = run_workflow(cli_env, project, "")
    assert code == 0, (out, err)
    assert "BLOCKED errno=13" in out  # EACCES from Landlock: the process's own error
    assert not target.exists()
    assert "sandbox: off" not in err


def test_sandbox_off_in_a_workflow_lets_the_script_write_outside_and_says_so(
    cli_env: dict[str, str], project: Path
) -> None:
    code, out, err, target = run_workflow(cli_env, project, "    sandbox: 'off'\n")
    assert code == 0, (out, err)
    assert "WROTE" in out
    assert target.read_text(encoding="utf-8") == "escaped"
    warnings = [line for line in err.splitlines() if line.startswith(OFF_LINE)]
    assert len(warnings) == 1, err  # one line, not one per command


def test_sandbox_off_in_tool_call_policy_warns_once_and_runs_unconfined(
    cli_env: dict[str, str], project: Path
) -> None:
    target = project.parent / "sibling" / "pwned.txt"
    argv = ["python3", "escape.py", str(target)]
    base = [
        "tool",
        "call",
        "run_command",
        "--workspace",
        str(project),
        "--args",
        json.dumps({"command": argv[0], "args": argv[1:]}),
    ]
    allow = {"allowedCommands": [" ".join(argv)]}

    code, out, err = run_cli(*base, "--policy", json.dumps(allow), env=cli_env)
    assert code == 0, (out, err)
    assert "BLOCKED errno=13" in out and not target.exists()
    assert "sandbox: off" not in err

    code, out, err = run_cli(*base, "--policy", json.dumps({**allow, "sandbox": "off"}), env=cli_env)
    assert code == 0, (out, err)
    assert "WROTE" in out and target.exists()
    assert [line for line in err.splitlines() if line.startswith(OFF_LINE)] != []
    assert err.count("sandbox: off") == 1


def test_a_bad_sandbox_value_is_a_usage_error_naming_the_choices(
    cli_env: dict[str, str], project: Path
) -> None:
    code, _out, err = run_cli(
        "tool",
        "call",
        "run_command",
        "--workspace",
        str(project),
        "--args",
        '{"command": "true"}',
        "--policy",
        '{"allowedCommands": ["true"], "sandbox": "loose"}',
        env=cli_env,
    )
    assert code == 2
    assert "--policy" in err and "must be one of strict, network or off" in err


def test_an_older_kernel_refuses_strict_with_tool_unavailable_and_off_still_runs(
    cli_env: dict[str, str], project: Path
) -> None:
    env = {**cli_env, "RELAVIUM_SANDBOX_ABI_CAP": "3"}  # simulated: this kernel has Landlock ABI 7
    target = project.parent / "sibling" / "pwned.txt"
    args = json.dumps({"command": "python3", "args": ["escape.py", str(target)]})
    allow = {"allowedCommands": [f"python3 escape.py {target}"]}
    base = ["tool", "call", "run_command", "--workspace", str(project), "--args", args, "--json"]

    code, out, err = run_cli(*base, "--policy", json.dumps(allow), env=env)
    assert code == 1, (out, err)
    assert out["error"]["code"] == "tool_unavailable"
    message = out["error"]["message"]
    assert "strict sandbox cannot be enforced" in message
    assert "TCP connect/bind rules (Landlock ABI 4)" in message and "sandbox: off" in message
    assert not target.exists()  # refused, never run unconfined

    code, out, err = run_cli(*base, "--policy", json.dumps({**allow, "sandbox": "off"}), env=env)
    assert code == 0 and out["ok"], (out, err)
    assert target.exists()
    assert err.count("sandbox: off") == 1


def test_an_unconfined_mcp_server_in_a_workflow_is_said_on_stderr(
    cli_env: dict[str, str], project: Path
) -> None:
    servers = "  mcp_servers:\n    helper: {transport: stdio, command: their-server, sandbox: 'off'}\n"
    code, out, err, _target = run_workflow(cli_env, project, servers)
    # Not consented to, so the run stops -- after the warning, which the user reads before consenting.
    assert code == 1 and "--approve-mcp helper" in err, (out, err)
    lines = err.splitlines()
    (line,) = [line for line in lines if "MCP server 'helper'" in line]
    assert line.startswith("relavium: warning: sandbox: off") and "unconfined" in line
    assert lines.index(line) < next(i for i, x in enumerate(lines) if "--approve-mcp" in x)
    assert OFF_LINE not in err  # the tools block itself stays strict: no line for it


def test_sandbox_off_in_chat_and_agent_run_policies_is_said_once_on_stderr(
    env: dict[str, str], llm_server, tmp_path: Path
) -> None:
    import subprocess

    from tests.cli.llm_cli import write_agent
    from tests.conftest import relavium_cmd
    from tests.fixtures.llm_server import Reply

    off = json.dumps({"sandbox": "off"})
    chat = subprocess.run([*relavium_cmd(), "chat", "--policy", off, "--workspace", str(tmp_path)], input="",
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert chat.returncode == 0, chat.stderr
    assert chat.stderr.count("sandbox: off -- commands run unconfined") == 1, chat.stderr
    llm_server.script(Reply.say("Done."))
    agent = write_agent(tmp_path / "a.agent.yaml", tools=[])
    run = subprocess.run([*relavium_cmd(), "agent", "run", str(agent), "--prompt", "hi", "--policy", off,
                          "--workspace", str(tmp_path)], env=env, cwd=tmp_path, capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("sandbox: off -- commands run unconfined") == 1, run.stderr
    # The default (strict) says nothing.
    quiet = subprocess.run([*relavium_cmd(), "chat", "--workspace", str(tmp_path)], input="", env=env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=60, check=False)
    assert "sandbox" not in quiet.stderr
