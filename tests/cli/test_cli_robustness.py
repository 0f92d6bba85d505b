"""The CLI never prints a Python traceback (issue 11, point 5).

Real ``relavium`` subprocesses wherever the defect lives in process plumbing
(argv decoding, a closed stdout pipe, the interpreter's final flush); the
last-resort handler is also driven in-process through ``cli.main``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.cli import main
from relavium_desktop.cli.jsonargs import dumps_json
from relavium_desktop.engine.host import SpawnOptions
from relavium_desktop.host.output_store import FileOutputStore
from relavium_desktop.host.process import ProcessHost, workspace_cwd_resolver
from tests.cli.llm_cli import KEY, write_agent, write_providers
from tests.conftest import relavium_cmd
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli

NOISE = ("Traceback", "Exception ignored", "BrokenPipeError", "ValueError", "UnicodeEncodeError")


def run_bytes(*argv: str | bytes, env: dict[str, str], cwd: Path | None = None) -> tuple[int, bytes, str]:
    """The real console script with raw (possibly non-UTF-8) argv; stdout kept as bytes."""
    proc = subprocess.run(
        [*relavium_cmd(), *argv], env=env, cwd=cwd, capture_output=True, timeout=60, check=False,
    )
    return proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace")


def one_document(stdout: bytes) -> Any:
    """stdout is valid UTF-8 holding exactly one JSON document (one line)."""
    text = stdout.decode("utf-8")  # strict: a raw surrogate byte would fail here
    assert text.endswith("\n") and text.count("\n") == 1, text[:500]
    return json.loads(text)


def quiet(stderr: str) -> None:
    for word in NOISE:
        assert word not in stderr, stderr


# -- JSON output escapes what UTF-8 cannot carry -----------------------------------------


def test_lone_surrogate_escape_in_an_args_file_is_printed_as_an_escape(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    args = tmp_path / "args.json"
    args.write_text('{"path": "\\ud800.txt"}', encoding="ascii")  # a JSON escape of a lone surrogate
    code, out, err = run_bytes("tool", "call", "read_file", "--args", f"@{args}", "--workspace", str(tmp_path),
                               "--json", env=cli_env)
    quiet(err)
    assert code == 1
    doc = one_document(out)
    assert doc["ok"] is False and doc["tool"] == "read_file"
    assert doc["events"][0]["toolInput"] == {"path": "\ud800.txt"}  # round-trips as the same string
    assert b"\\ud800" in out
    # Human-readable output does not crash on it either.
    code, out, err = run_bytes("tool", "call", "read_file", "--args", f"@{args}", "--workspace", str(tmp_path),
                               env=cli_env)
    quiet(err)
    assert code == 1 and out.decode("utf-8").startswith("read_file: ")


def test_a_non_utf8_byte_in_argv_reaches_the_tool_and_prints_valid_json(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    # Python decodes argv with surrogateescape: b"\xff" arrives as "\udcff" and, as a
    # path, encodes back to the same byte -- a real file with a non-UTF-8 name.
    (tmp_path / os.fsdecode(b"\xff.txt")).write_text("hello\n")
    code, out, err = run_bytes("tool", "call", "read_file", "--args", b'{"path": "\xff.txt"}',
                               "--workspace", str(tmp_path), "--json", env=cli_env)
    quiet(err)
    assert code == 0, err
    doc = one_document(out)
    assert doc["result"]["content"] == "hello\n" and doc["result"]["path"] == "\udcff.txt"
    # An unknown tool id made of such bytes: the human-readable error names it escaped.
    code, out, err = run_bytes("tool", "call", b"x\xff", env=cli_env)
    quiet(err)
    assert code == 1 and "x\\udcff" in out.decode("utf-8")
    code, out, err = run_bytes("tool", "call", b"x\xff", "--json", env=cli_env)
    quiet(err)
    assert code == 1 and one_document(out)["error"]["code"] == "unknown_tool"


def test_json_printer_escapes_surrogates_and_non_finite_numbers() -> None:
    text = dumps_json({"s": "a\ud800b\udcff", "big": float("inf"), "nan": [float("nan")], "k\udfff": 1})
    text.encode("utf-8")  # strict
    assert json.loads(text) == {"s": "a\ud800b\udcff", "big": None, "nan": [None], "k\udfff": 1}
    assert dumps_json({"s": "é\ud800"}, ascii_only=True) == '{"s": "\\u00e9\\ud800"}'


def test_unusable_json_values_are_usage_errors(cli_env: dict[str, str], tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    digits = tmp_path / "digits.json"
    digits.write_text('{"a": ' + "9" * 5000 + "}")
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes(b'{"a": "\xe9"}')
    for path, says in ((deep, "nested too deeply"), (digits, "digits"), (latin1, "not UTF-8")):
        code, out, err = run_cli("tool", "call", "read_file", "--args", f"@{path}", "--json", env=cli_env)
        quiet(err)
        assert code == 2 and out == "" and says in err and len(err.strip().splitlines()) == 1, err


# -- a closed stdout ends the command quietly ----------------------------------------------


def _closed_pipe(argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run with stdout a pipe whose reader is gone before the first write (``| head -c0``)."""
    proc = subprocess.Popen([*relavium_cmd(), *argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode("utf-8", "replace")
    return proc.wait(timeout=60), err


@pytest.mark.parametrize("argv", [
    ["tools", "list", "--json"],
    ["tools", "list"],
    ["tool", "call", "list_directory", "--args", '{"path": "."}', "--json"],
])
def test_a_closed_stdout_pipe_exits_1_without_a_word(argv: list[str], cli_env: dict[str, str],
                                                     tmp_path: Path) -> None:
    code, err = _closed_pipe([*argv, *(["--workspace", str(tmp_path)] if argv[0] == "tool" else [])], cli_env)
    assert (code, err) == (1, "")


def test_a_stdout_closed_from_the_start_exits_1_without_a_word(cli_env: dict[str, str]) -> None:
    proc = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *relavium_cmd(), "tools", "list", "--json"],
                          env=cli_env, capture_output=True, text=True, timeout=60, check=False)
    assert (proc.returncode, proc.stderr) == (1, "")


def test_agent_run_with_a_closed_stdout_ends_quietly(cli_env: dict[str, str], relavium_home: Path,
                                                     tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        write_providers(relavium_home, server.base_url)
        agent = write_agent(tmp_path / "a.agent.yaml", tools=[])
        for flags in (["--json"], []):
            server.script(Reply.say("word " * 40_000))
            code, err = _closed_pipe(["agent", "run", str(agent), "--prompt", "hi", *flags],
                                     {**cli_env, "RELAVIUM_TEST_KEY": KEY})
            assert (code, err) == (1, ""), flags


# -- human-readable errors everywhere ------------------------------------------------------


@pytest.fixture
def agent_env(cli_env: dict[str, str], relavium_home: Path) -> Iterator[tuple[dict[str, str], ScriptedLLMServer]]:
    with ScriptedLLMServer() as server:
        write_providers(relavium_home, server.base_url)
        yield {**cli_env, "RELAVIUM_TEST_KEY": KEY}, server


def test_agent_run_failure_is_one_readable_line_not_a_dict(
    agent_env: tuple[dict[str, str], ScriptedLLMServer], tmp_path: Path
) -> None:
    env, server = agent_env
    agent = write_agent(tmp_path / "a.agent.yaml", tools=["run_command"])
    server.script(Reply.call("run_command", {"command": "echo", "args": ["hi"]}))  # the denial ends the run
    code, out, err = run_cli("agent", "run", str(agent), "--prompt", "go", "--workspace", str(tmp_path), env=env)
    assert code == 1
    quiet(err)
    assert "{'code'" not in err and "{'code'" not in out
    assert "relavium agent: run failed: tool_denied/commands_disabled: run_command is disabled" in err
    assert "[tool] run_command failed: tool_denied/commands_disabled: " in err
    # With --json the failure is a JSON document: the terminal event, one per line.
    server.script(Reply.call("run_command", {"command": "echo", "args": ["hi"]}))
    code, events, err = run_cli("agent", "run", str(agent), "--prompt", "go", "--workspace", str(tmp_path),
                                "--json", env=env)
    assert code == 1 and events[-1]["type"] == "run:failed"
    assert events[-1]["error"]["reason"] == "commands_disabled"


def test_provider_failure_reads_as_code_and_message(
    agent_env: tuple[dict[str, str], ScriptedLLMServer], tmp_path: Path
) -> None:
    env, server = agent_env
    agent = write_agent(tmp_path / "a.agent.yaml", tools=[])
    server.script(Reply.error(401))
    code, _, err = run_cli("agent", "run", str(agent), "--prompt", "hi", env=env)
    assert code == 1
    quiet(err)
    line = next(x for x in err.splitlines() if x.startswith("relavium agent: run failed: "))
    assert line.startswith("relavium agent: run failed: provider_auth: ") and "{" not in line
    assert KEY not in err


def _explode(message: str) -> Any:
    def run(args: Any) -> int:
        raise RuntimeError(message)

    return run


def test_an_unexpected_exception_is_one_masked_line_and_one_json_document(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import relavium_desktop.cli.tools_cmd as tools_cmd

    monkeypatch.setattr(tools_cmd, "run", _explode(f"boom\nwith api_key={KEY} inside"))
    monkeypatch.delenv("RELAVIUM_DEBUG", raising=False)
    assert main(["tools", "list"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("relavium: internal error: RuntimeError: boom with api_key=") and err.count("\n") == 1
    assert KEY not in err
    assert main(["tools", "list", "--json"]) == 1
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["ok"] is False and doc["error"]["code"] == "internal"
    assert doc["error"]["message"].startswith("internal error: RuntimeError: boom") and KEY not in out
    # Only an explicit debug switch shows the traceback.
    monkeypatch.setenv("RELAVIUM_DEBUG", "1")
    with pytest.raises(RuntimeError):
        main(["tools", "list"])


def test_an_unexpected_exception_in_a_real_process_prints_no_traceback(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    # A real interpreter whose command raises something nobody expected (a bug):
    # the console entry point's own streams and exit path, not capsys.
    crash = ("import sys; import relavium_desktop.cli.tools_cmd as t\n"
             "def boom(args): raise RuntimeError('boom with api_key=sk-ant-' + 'x' * 40)\n"
             "t.run = boom\n"
             "from relavium_desktop.cli import entry\n"
             "sys.argv = ['relavium', *sys.argv[1:]]\n"
             "entry()\n")
    for argv, as_json in ((["tools", "list"], False), (["tools", "list", "--json"], True)):
        proc = subprocess.run([sys.executable, "-c", crash, *argv], env=cli_env, capture_output=True, timeout=60,
                              check=False)
        err = proc.stderr.decode("utf-8", "replace")
        quiet(err)
        assert proc.returncode == 1
        assert len(err.strip().splitlines()) == 1 and "internal error: RuntimeError: boom" in err
        assert "sk-ant-" + "x" * 40 not in err + proc.stdout.decode()
        if as_json:
            assert one_document(proc.stdout)["error"]["code"] == "internal"
        else:
            assert proc.stdout == b""


def test_arguments_nested_thousands_deep_get_an_ordinary_answer(cli_env: dict[str, str], tmp_path: Path) -> None:
    # Masking the call's arguments for its event once recursed until Python's limit.
    args = tmp_path / "deep.json"
    args.write_text('{"path": ' + "[" * 700 + "]" * 700 + "}")
    code, out, err = run_bytes("tool", "call", "read_file", "--args", f"@{args}", "--workspace", str(tmp_path),
                               "--json", env=cli_env)
    quiet(err)
    assert code == 1 and err == ""
    doc = one_document(out)
    assert doc["ok"] is False and doc["error"]["code"] == "invalid_args", doc["error"]


def test_http_request_ssrf_denial_does_not_suggest_an_option_it_lacks(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    code, out, err = run_cli(
        "tool", "call", "http_request", "--args", '{"url": "https://127.0.0.1/"}',
        "--policy", '{"allowedDomains": ["127.0.0.1"]}', "--workspace", str(tmp_path), "--json", env=cli_env,
    )
    assert code == 1, err
    error = out["error"]
    assert (error["code"], error["reason"]) == ("tool_denied", "ssrf_blocked")
    assert "allowLocal" not in error["message"] and "opt-in" not in error["message"]
    assert "loopback" in error["message"] and "refused" in error["message"]
    assert "allowedDomains does not lift" in error["message"]


INVOKE_WF = """schema_version: '1.0'
workflow:
  id: delegate
  agents:
    - {id: helper, provider: scripted-openai, model: gpt-4o-mini, system_prompt: Help., tools: [invoke_agent]}
  nodes:
    - {id: s, type: input}
    - id: call
      type: tool
      tool_config:
        tool_name: invoke_agent
        input_mapping: {nodeId: nope, input: hi}
    - {id: research, type: agent, agent_ref: helper, prompt_template: 'x'}
    - {id: out, type: output}
  edges: [{from: s, to: call}, {from: call, to: out}]
"""


def test_invoke_agent_with_an_unknown_node_id_is_invalid_args_naming_the_agent_nodes(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "delegate.relavium.yaml"
    wf.write_text(INVOKE_WF)
    code, events, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=cli_env, cwd=tmp_path)
    assert code == 1, err
    result = next(e for e in events if e["type"] == "agent:tool_result")
    assert (result["toolId"], result["error"]["code"]) == ("invoke_agent", "invalid_args")
    assert "'nope' is not an agent node" in result["error"]["message"]
    assert "agent nodes: 'research'" in result["error"]["message"]


# -- the pipe-widening step never races a fast child ---------------------------------------


async def test_fast_exiting_commands_never_trip_the_pipe_widening(tmp_path: Path) -> None:
    """A child that exits at once may have its pipes closed before the protocol connects."""
    ws = tmp_path / "ws"
    ws.mkdir()
    host = ProcessHost(store=FileOutputStore(tmp_path / "runs"), resolve_cwd=workspace_cwd_resolver(ws))
    loop = asyncio.get_running_loop()
    problems: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: problems.append(context))
    try:
        for _ in range(300):
            result = await host.spawn("true", [], {}, SpawnOptions(run_id="fast"))
            assert result["exitCode"] == 0
    finally:
        loop.set_exception_handler(None)
    assert [str(p.get("exception") or p.get("message")) for p in problems] == []


def test_fast_exiting_commands_via_the_cli_print_no_error(cli_env: dict[str, str], tmp_path: Path) -> None:
    policy = json.dumps({"allowedCommands": ["true"]})
    for _ in range(3):
        code, out, err = run_cli("tool", "call", "run_command", "--args", '{"command": "true"}', "--policy", policy,
                                 "--workspace", str(tmp_path), "--json", env=cli_env)
        assert code == 0 and out["result"]["exitCode"] == 0, err
        assert err == ""

