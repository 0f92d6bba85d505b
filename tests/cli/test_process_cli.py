"""run_command through the real ``relavium`` CLI: literal argv, built env, spills."""

from __future__ import annotations

import hashlib
import json
import os
import pwd
from pathlib import Path

from relavium_desktop.host.process.environment import POSIX_BASE_NAMES
from relavium_desktop.host.process.executables import default_search_path
from tests.helpers import run_cli


def call(env: dict[str, str], workspace: Path, policy: dict, args: dict, config: dict | None = None):
    argv = [
        "tool", "call", "run_command", "--workspace", str(workspace),
        "--policy", json.dumps(policy), "--args", json.dumps(args), "--json",
    ]
    if config is not None:
        argv += ["--config", json.dumps(config)]
    return run_cli(*argv, env=env)


def test_shell_metacharacters_are_literal(cli_env: dict[str, str], tmp_path: Path) -> None:
    script = "echo $HOME; env"
    code, out, _ = call(
        cli_env, tmp_path,
        {"allowedCommands": [f'sh -c "{script}"', "printf '%s\\n' 'a;b' 'x|y' '$(id)' '>made'"]},
        {"command": "printf", "args": ["%s\\n", "a;b", "x|y", "$(id)", ">made"]},
    )
    assert code == 0, out
    assert out["result"]["stdout"] == "a;b\nx|y\n$(id)\n>made\n"
    assert not (tmp_path / "made").exists()
    # sh receives the one string; its own $HOME is the host-built one
    cli_env["HOME"] = str(tmp_path / "fake-home")
    code, out, _ = call(cli_env, tmp_path, {"allowedCommands": [f'sh -c "{script}"']},
                        {"command": "sh", "args": ["-c", script]})
    assert code == 0, out
    assert out["result"]["stdout"].splitlines()[0] == pwd.getpwuid(os.getuid()).pw_dir


def test_child_env_has_only_base_and_declared_variables(cli_env: dict[str, str], tmp_path: Path) -> None:
    cli_env["RELAVIUM_TEST_SECRET"] = "hunter2-secret"
    cli_env["GITHUB_TOKEN"] = "ghp_notforchildren"
    code, out, _ = call(cli_env, tmp_path, {"allowedCommands": ["env"], "allowedEnv": ["GREETING"]},
                        {"command": "env"}, {"env": {"GREETING": "hello"}})
    assert code == 0, out
    stdout = out["result"]["stdout"]
    names = {line.split("=", 1)[0] for line in stdout.splitlines()}
    # Plus the orphan watcher's marker (a random per-process token, no secret): see host/process/guard.py.
    assert names == {*POSIX_BASE_NAMES, "GREETING", "RELAVIUM_CHILD_GUARD"}
    assert "hunter2-secret" not in stdout and "ghp_notforchildren" not in stdout
    assert f"PATH={os.pathsep.join(default_search_path())}" in stdout.splitlines()


def test_declared_ld_preload_is_env_not_allowed(cli_env: dict[str, str], tmp_path: Path) -> None:
    code, out, _ = call(cli_env, tmp_path, {"allowedCommands": ["env"]}, {"command": "env"},
                        {"env": {"LD_PRELOAD": "/tmp/evil.so"}})
    assert code == 1
    assert out["error"]["code"] == "tool_denied" and out["error"]["reason"] == "env_not_allowed"
    assert "LD_PRELOAD" in out["error"]["message"]


def test_unlisted_command_is_denied(cli_env: dict[str, str], tmp_path: Path) -> None:
    code, out, _ = call(cli_env, tmp_path, {"allowedCommands": ["npm test"]},
                        {"command": "npm", "args": ["test", "--coverage"]})
    assert code == 1 and out["error"]["reason"] == "command_not_allowed"
    code, out, _ = call(cli_env, tmp_path, {}, {"command": "npm", "args": ["test"]})
    assert code == 1 and out["error"]["reason"] == "commands_disabled"


def test_missing_command_is_named_without_path_contents(cli_env: dict[str, str], tmp_path: Path) -> None:
    code, out, _ = call(cli_env, tmp_path, {"allowedCommands": ["relavium-missing-tool --version"]},
                        {"command": "relavium-missing-tool", "args": ["--version"]})
    assert code == 1
    message = out["error"]["message"]
    assert out["error"]["code"] == "tool_failed"
    assert "relavium-missing-tool" in message and "not found" in message
    for folder in [*default_search_path(), *cli_env["PATH"].split(os.pathsep)]:
        if folder:
            assert folder not in message


def test_large_output_spills_every_byte_and_names_the_file(cli_env: dict[str, str], tmp_path: Path) -> None:
    total = 3_000_000
    script = f"yes relavium | head -c {total}"
    code, out, _ = call(cli_env, tmp_path, {"allowedCommands": [f"sh -c '{script}'"]},
                        {"command": "sh", "args": ["-c", script]})
    assert code == 0, out
    spill = out["result"]["stdoutSpill"]
    data = Path(spill["path"]).read_bytes()
    assert spill["bytes"] == total == len(data)
    assert hashlib.sha256(data).digest() == hashlib.sha256((b"relavium\n" * total)[:total]).digest()
    assert Path(spill["path"]).is_relative_to(Path(cli_env["RELAVIUM_HOME"]) / "runs")
    assert len(out["result"]["stdout"].encode()) < 60_000
    assert spill["path"] in out["model_facing"]  # the model is told where the full stream is


def test_timeout_through_the_cli(cli_env: dict[str, str], tmp_path: Path) -> None:
    code, out, _ = call(cli_env, tmp_path, {"allowedCommands": ["sleep 30"]},
                        {"command": "sleep", "args": ["30"]}, {"timeoutMs": 300})
    assert code == 1 and out["error"]["code"] == "tool_failed"
    assert "timed out after 300 ms" in out["error"]["message"]


def test_cwd_follows_the_file_policy(cli_env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / ".ssh").mkdir()
    ok = {"allowedCommands": ["pwd"]}
    code, out, _ = call(cli_env, tmp_path, ok, {"command": "pwd"}, {"cwd": "sub"})
    assert code == 0 and out["result"]["stdout"].strip() == os.path.realpath(tmp_path / "sub")
    code, out, _ = call(cli_env, tmp_path, ok, {"command": "pwd"}, {"cwd": "/etc"})
    assert code == 1 and out["error"]["reason"] == "outside_scope"
    code, out, _ = call(cli_env, tmp_path, ok, {"command": "pwd"}, {"cwd": ".ssh"})  # read floor
    assert code == 1 and out["error"]["reason"] == "protected_path"
