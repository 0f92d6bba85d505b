"""Declared environment variables pass an allowlist, through the real CLI.

``relavium tool call run_command`` with the env pinned in ``--config`` (as a
workflow author pins it) and ``allowedEnv`` in ``--policy``; a workflow's
``tools.allowedEnv`` through ``relavium run`` and ``relavium validate``.
The child is the real ``env`` program, so what it prints is what it got.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.llm_cli import write_agent
from tests.conftest import relavium_cmd
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli

# The variables the issue found passing the old refusal list, and the spellings an attacker tries next.
HIJACKS = ["GCONV_PATH", "OPENSSL_CONF", "SSLKEYLOGFILE", "ELECTRON_RUN_AS_NODE", "GOFLAGS", "VIMINIT",
           "LOCPATH", "HOSTALIASES", "ld_preload", "Gconv_Path", "Node_Options", "pythonpath", "https_proxy"]


def _call(env: dict[str, str], ws: Path, declared: dict[str, str], policy: dict[str, object] | None = None,
          ) -> tuple[int, dict[str, object], str]:
    policy = {"allowedCommands": ["env"], **(policy or {})}
    code, out, err = run_cli("tool", "call", "run_command", "--workspace", str(ws), "--policy", json.dumps(policy),
                             "--args", '{"command": "env"}', "--config", json.dumps({"env": declared}), "--json",
                             env=env)
    return code, out, err


def _child_env(out: dict[str, object]) -> dict[str, str]:
    result = out["result"]
    assert isinstance(result, dict)
    return dict(line.split("=", 1) for line in str(result["stdout"]).splitlines() if "=" in line)


@pytest.mark.parametrize("name", HIJACKS)
def test_hijack_names_are_refused_in_any_case_and_cannot_be_listed(
    cli_env: dict[str, str], tmp_path: Path, name: str
) -> None:
    code, out, _ = _call(cli_env, tmp_path, {name: "/tmp/evil"})
    assert code == 1, out
    error = out["error"]
    assert isinstance(error, dict)
    assert (error["code"], error["reason"]) == ("tool_denied", "env_not_allowed")
    assert repr(name) in error["message"] and "refused even when listed" in error["message"]
    assert "/tmp/evil" not in error["message"]  # the value is never echoed in the refusal
    # Listing it (in any spelling) is refused when the policy is read, before anything runs.
    code, out, err = _call(cli_env, tmp_path, {name: "/tmp/evil"}, {"allowedEnv": [name.swapcase()]})
    assert code == 2, out
    assert "--policy" in err and "can never be allowed" in err and repr(name.swapcase()) in err


def test_a_harmless_name_passes_only_once_listed(cli_env: dict[str, str], tmp_path: Path) -> None:
    code, out, _ = _call(cli_env, tmp_path, {"GREETING": "hello"})
    assert code == 1
    error = out["error"]
    assert isinstance(error, dict) and error["reason"] == "env_not_allowed"
    message = str(error["message"])
    # Names the variable and says how to allow it.
    assert "'GREETING' is not on the allowlist of inert names" in message
    assert '"allowedEnv": ["GREETING"]' in message and "tools.allowedEnv" in message
    code, out, err = _call(cli_env, tmp_path, {"GREETING": "hello"}, {"allowedEnv": ["GREETING"]})
    assert code == 0, (out, err)
    assert _child_env(out)["GREETING"] == "hello"


def test_inert_names_pass_without_a_listing_but_not_as_paths(cli_env: dict[str, str], tmp_path: Path) -> None:
    declared = {"CI": "true", "NODE_ENV": "test", "TZ": "Europe/Berlin", "NO_COLOR": "1", "FORCE_COLOR": "0",
                "LC_MESSAGES": "C", "TERM": "xterm-256color", "COLUMNS": "120"}
    code, out, err = _call(cli_env, tmp_path, declared)
    assert code == 0, (out, err)
    child = _child_env(out)
    assert {k: child[k] for k in declared} == declared
    # A locale or time zone that names a file is not inert.
    for name, value in (("LANG", "/tmp/evil-locale"), ("LC_ALL", "../../tmp/x"), ("TZ", "/tmp/evil-zone"),
                        ("TZ", ":/etc/shadow")):
        code, out, _ = _call(cli_env, tmp_path, {name: value})
        assert code == 1, (name, value, out)
        error = out["error"]
        assert isinstance(error, dict) and error["reason"] == "env_not_allowed"
        assert value not in error["message"]


WORKFLOW = """schema_version: '1.0'
workflow:
  id: envy
  tools: {{allowedCommands: [env]{allowed}}}
  nodes:
    - {{id: s, type: input}}
    - id: show
      type: tool
      tool_config:
        tool_name: run_command
        parameters: {{command: env, env: {{GREETING: hello, CI: 'true'}}}}
        output_mapping: {{stdout: stdout}}
    - {{id: out, type: output}}
  edges: [{{from: s, to: show}}, {{from: show, to: out}}]
"""


def test_a_workflows_tools_allowed_env(cli_env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "envy.relavium.yaml"
    wf.write_text(WORKFLOW.format(allowed=""))
    # Unlisted, the pinned name is an authored error found at load, at its line; the run never starts.
    code, out, err = run_cli("validate", str(wf), "--json", env=cli_env)
    assert code == 2 and out == "", (out, err)
    (issue,) = json.loads(err)["issues"]
    assert issue["line"] == 11 and "'GREETING' is not on the allowlist" in issue["message"]
    assert "tools.allowedEnv" in issue["message"]
    code, _, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=cli_env, cwd=tmp_path)
    assert code == 2 and "GREETING" in err

    wf.write_text(WORKFLOW.format(allowed=", allowedEnv: [GREETING]"))
    code, events, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=cli_env, cwd=tmp_path)
    assert code == 0, (events, err)
    stdout = events[-1]["outputs"]["out"]["stdout"]
    assert "GREETING=hello" in stdout.splitlines() and "CI=true" in stdout.splitlines()

    # A hijack name in the workflow's allowedEnv is an authored error, reported with its line.
    wf.write_text(WORKFLOW.format(allowed=", allowedEnv: [GREETING, Ld_Preload]"))
    code, out, err = run_cli("validate", str(wf), "--json", env=cli_env)
    assert code == 2 and out == "", (out, err)
    messages = [i["message"] for i in json.loads(err)["issues"]]
    assert any("'Ld_Preload' can never be allowed" in m for m in messages), messages


def test_relavium_chat_tool_config_env_meets_the_policys_allowed_env(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "c.agent.yaml", tools=["run_command"])
    config = json.dumps({"run_command": {"parameters": {"env": {"GREETING": "hello-from-chat"}}}})
    base = ["chat", "--agent", str(agent), "--workspace", str(tmp_path), "--tool-config", config]
    # Not listed: refused before a session starts, naming the variable and the fix.
    code, out, err = run_cli(*base, "--policy", '{"allowedCommands": ["env"]}', env=env, input="hi\n")
    assert code == 2, (out, err)
    assert "'GREETING' is not on the allowlist" in err and "allowedEnv" in err
    assert llm_server.requests == []
    # A hijack name cannot be listed at all.
    code, _, err = run_cli(*base, "--policy", '{"allowedCommands": ["env"], "allowedEnv": ["Ld_Audit"]}',
                           env=env, input="hi\n")
    assert code == 2 and "'Ld_Audit' can never be allowed" in err
    # Listed: the command runs with it (after the user approves it at the prompt).
    llm_server.script(Reply.call("run_command", {"command": "env"}), Reply.say("done"))
    proc = subprocess.run(
        [*relavium_cmd(), *base, "--policy", '{"allowedCommands": ["env"], "allowedEnv": ["GREETING"]}'],
        input="show env\ny\n/exit\n", env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "GREETING=hello-from-chat" in json.dumps(llm_server.requests[1].body["messages"])
