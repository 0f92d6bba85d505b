"""``relavium chat`` as a real subprocess fed over stdin, against the scripted LLM server."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.cli.llm_cli import scan_for_secret, write_agent
from tests.conftest import relavium_cmd
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli


def chat(env: dict[str, str], stdin: str, *args: str, cwd: Path) -> tuple[int, str, str]:
    proc = subprocess.run([*relavium_cmd(), "chat", *args], input=stdin, env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=60, check=False)
    return proc.returncode, proc.stdout, proc.stderr


def session_id(stdout: str) -> str:
    match = re.search(r"session ([0-9a-f]{16})", stdout)
    assert match, stdout
    return match.group(1)


def test_a_session_survives_a_restart(env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path,
                                      relavium_home: Path) -> None:
    agent = write_agent(tmp_path / "helper.agent.yaml", tools=["read_file"])
    llm_server.script(Reply.say("Nice to meet you, Ada."))
    code, out, err = chat(env, "my name is Ada\n/exit\n", "--agent", str(agent), "--workspace", str(tmp_path),
                          cwd=tmp_path)
    assert code == 0, err
    assert "Nice to meet you, Ada." in out
    sid = session_id(out)

    # A second process: the app restarted.
    llm_server.script(Reply.say("Your name is Ada."))
    code, out2, err2 = chat(env, "what is my name?\n", "--agent", str(agent), "--session", sid,
                            "--workspace", str(tmp_path), cwd=tmp_path)
    assert code == 0, err2
    assert f"session {sid} (resumed, 2 messages)" in out2 and "Your name is Ada." in out2
    sent = llm_server.requests[1].body["messages"]
    assert [(m["role"], m["content"]) for m in sent] == [
        ("system", "You help."),
        ("user", "my name is Ada"),
        ("assistant", "Nice to meet you, Ada."),
        ("user", "what is my name?"),
    ]

    code, listed, _ = run_cli("chat", "--list", "--json", env=env)
    assert code == 0 and [(s["id"], s["messageCount"], s["title"]) for s in listed] == [(sid, 4, "my name is Ada")]
    assert run_cli("chat", "--rename", sid, "--title", "Names", "--json", env=env)[1] == {"ok": True}
    assert run_cli("chat", "--list", "--json", env=env)[1][0]["title"] == "Names"
    assert scan_for_secret(relavium_home, out, err, out2, err2) == []
    assert run_cli("chat", "--delete", sid, "--json", env=env)[1] == {"ok": True}
    assert run_cli("chat", "--list", "--json", env=env)[1] == []
    code, _, err3 = chat(env, "hi\n", "--session", sid, cwd=tmp_path)
    assert code == 1 and "no session" in err3


def _write_turn(llm_server: ScriptedLLMServer, path: str = "out.txt") -> None:
    llm_server.script(Reply.call("write_file", {"path": path, "content": "written by the agent\n"}),
                      Reply.say("Done."))


def test_confirm_asks_and_yes_writes(env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    agent = write_agent(tmp_path / "w.agent.yaml", tools=["write_file"])
    _write_turn(llm_server)
    code, out, err = chat(env, "write it\ny\n/exit\n", "--agent", str(agent), "--mode", "confirm",
                          "--workspace", str(tmp_path), cwd=tmp_path)
    assert code == 0, err
    assert "mode Ask before acting (confirm)" in out
    assert "? allow write_file (fs_write)" in out and "out.txt" in out
    assert (tmp_path / "out.txt").read_text() == "written by the agent\n"
    assert "Done." in out


def test_a_new_session_asks_before_acting_by_default(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "w.agent.yaml", tools=["write_file"])
    _write_turn(llm_server)
    code, out, _ = chat(env, "write it\nn\n/exit\n", "--agent", str(agent), "--workspace", str(tmp_path),
                        cwd=tmp_path)
    assert code == 0
    assert "mode Ask before acting (confirm)" in out and "? allow write_file (fs_write)" in out
    assert not (tmp_path / "out.txt").exists()
    assert "tool_denied" in out and len(llm_server.requests) == 1
    assert run_cli("chat", "--list", "--json", env=env)[1][0]["mode"] == "confirm"


def test_always_grants_for_the_rest_of_the_session(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "w.agent.yaml", tools=["write_file"])
    _write_turn(llm_server)
    _write_turn(llm_server)
    code, out, err = chat(env, "write it\na\nagain\n/exit\n", "--agent", str(agent), "--mode", "confirm",
                          "--workspace", str(tmp_path), cwd=tmp_path)
    assert code == 0, err
    assert out.count("? allow write_file") == 1 and out.count("Done.") == 2


def test_accept_edits_writes_in_the_project_without_asking_and_asks_elsewhere(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    workspace = tmp_path / "proj"
    workspace.mkdir()
    agent = write_agent(tmp_path / "w.agent.yaml", tools=["write_file"])
    _write_turn(llm_server)
    _write_turn(llm_server, ".env")
    _write_turn(llm_server, "../escaped.txt")
    code, out, err = chat(env, "write it\nnow the env\nn\nnow outside\nn\n/exit\n", "--agent", str(agent),
                          "--mode", "accept-edits", "--workspace", str(workspace), cwd=tmp_path)
    assert code == 0, err
    assert "mode Auto-approve edits (accept-edits)" in out
    assert (workspace / "out.txt").read_text() == "written by the agent\n"
    assert out.count("? allow write_file") == 2 and "[protected path]" in out
    assert not (workspace / ".env").exists() and not (tmp_path / "escaped.txt").exists()


@pytest.mark.parametrize("mode", ["ask", "plan", "read-only", "Read-Only"])
def test_read_only_and_its_upstream_ids_deny_without_asking_and_say_why(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path, mode: str
) -> None:
    agent = write_agent(tmp_path / "w.agent.yaml", tools=["write_file"])
    _write_turn(llm_server)
    code, out, err = chat(env, "write it\n/exit\n", "--agent", str(agent), "--mode", mode,
                          "--workspace", str(tmp_path), cwd=tmp_path)
    assert code == 0, err
    assert "mode Read-only (read-only)" in out and "? allow" not in out and "tool_denied" in out
    assert "not available in Read-only mode" in out and "Ask before acting" in out
    assert not (tmp_path / "out.txt").exists()


def test_auto_mode_writes_without_asking_but_asks_for_a_protected_path(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "w.agent.yaml", tools=["write_file"])
    _write_turn(llm_server)
    _write_turn(llm_server, ".env")
    code, out, err = chat(env, "write it\nnow the env\nn\n/exit\n", "--agent", str(agent), "--mode", "auto",
                          "--workspace", str(tmp_path), cwd=tmp_path)
    assert code == 0, err
    assert (tmp_path / "out.txt").exists() and not (tmp_path / ".env").exists()
    assert out.count("? allow write_file") == 1 and ".env" in out


def test_slash_mode_switches_lists_and_refuses_nonsense(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "w.agent.yaml", tools=["write_file"])
    _write_turn(llm_server)
    code, out, err = chat(env, "/mode nonsense\n/mode\n/mode plan\nwrite it\n/exit\n", "--agent", str(agent),
                          "--mode", "auto", "--workspace", str(tmp_path), cwd=tmp_path)
    assert code == 0, err
    assert "unknown chat mode 'nonsense'; use one of: read-only, confirm, accept-edits, auto, ask, plan" in out
    assert "Ask before acting: Asks you before" in out  # the bare /mode lists every mode with its description
    assert "mode Read-only (read-only)" in out and "not available in Read-only mode" in out
    assert not (tmp_path / "out.txt").exists()
    assert run_cli("chat", "--list", "--json", env=env)[1][0]["mode"] == "read-only"


def test_help_lists_the_modes_and_a_bad_mode_is_a_usage_error(env: dict[str, str], tmp_path: Path) -> None:
    proc = subprocess.run([*relavium_cmd(), "chat", "--help"], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    for line in ("read-only     Read-only: Reads and lists files; changes nothing.",
                 "confirm       Ask before acting:", "accept-edits  Auto-approve edits:", "auto          Auto:",
                 "ask = read-only, plan = read-only"):
        assert line in proc.stdout
    code, _, err = chat(env, "", "--mode", "sometimes", cwd=tmp_path)
    assert code == 2 and "use one of: read-only, confirm, accept-edits, auto, ask, plan" in err


def test_the_built_in_chat_is_offered_and_calls_the_users_mcp_tools(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path, relavium_home: Path,
) -> None:
    """mcp.yaml's servers join `relavium chat` as in the app: discovered, offered, called, then stopped."""
    import json

    from tests.host.mcp.conftest import FIXTURE, PYTHON

    # The built-in chat agent's route is anthropic/…: point that provider name at the scripted server.
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {"anthropic": {
        "kind": "anthropic", "base_url": llm_server.base_url, "api_key": "env:RELAVIUM_TEST_KEY",
        "allow_local": True}}}))
    (relavium_home / "mcp.yaml").write_text(json.dumps({"servers": {"calc": {
        "transport": "stdio", "command": PYTHON, "args": [FIXTURE, "stdio"]}}}))
    llm_server.script(Reply.call("mcp_calc_add", {"a": 2, "b": 40}), Reply.say("It is 42."))
    code, out, err = chat(env, "add 2 and 40\n/exit\n", "--mode", "auto", "--workspace", str(tmp_path), cwd=tmp_path)
    assert code == 0, err
    assert "It is 42." in out
    offered = [t["name"] for t in llm_server.requests[0].body["tools"]]
    assert "mcp_calc_add" in offered and "read_file" in offered
    assert "42" in json.dumps(llm_server.requests[1].body["messages"])


def test_a_chat_with_no_message_stores_nothing(env: dict[str, str], llm_server: ScriptedLLMServer,
                                               tmp_path: Path) -> None:
    """`relavium chat </dev/null` (or only /exit) leaves no empty "New chat" for the app to list."""
    with open(os.devnull) as devnull:
        proc = subprocess.run([*relavium_cmd(), "chat", "--workspace", str(tmp_path)], stdin=devnull, env=env,
                              cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "new session (stored with its first message)" in proc.stdout
    code, _, _ = chat(env, "\n\n/mode auto\n/rename Later\n/exit\n", "--workspace", str(tmp_path), cwd=tmp_path)
    assert code == 0
    assert run_cli("chat", "--list", "--json", env=env)[1] == []
    assert llm_server.requests == []


def test_model_flag_overrides_the_agents_route(env: dict[str, str], llm_server: ScriptedLLMServer,
                                               tmp_path: Path, relavium_home: Path) -> None:
    agent = write_agent(tmp_path / "helper.agent.yaml", tools=[])
    # The app's default model is there too: --model wins over it and over the agent's own route.
    (relavium_home / "defaults.json").write_text(json.dumps({"model": "scripted-openai/from-defaults"}))
    llm_server.script(Reply.say("Hello from xyz."))
    code, out, err = chat(env, "hi\n", "--agent", str(agent), "--model", "scripted-openai/xyz",
                          "--workspace", str(tmp_path), cwd=tmp_path)
    assert code == 0, err
    assert "Hello from xyz." in out
    assert llm_server.requests[0].body["model"] == "xyz"
    listed = run_cli("chat", "--list", "--json", env=env)[1]
    assert [(s["id"], s["title"], s["messageCount"]) for s in listed] == [(session_id(out), "hi", 2)]


def test_without_model_flag_the_apps_default_model_is_used(env: dict[str, str], llm_server: ScriptedLLMServer,
                                                           tmp_path: Path, relavium_home: Path) -> None:
    """defaults.json (what the window's model picker writes) decides the model of `relavium chat` too."""
    (relavium_home / "defaults.json").write_text(json.dumps({"model": "scripted-openai/picked-in-the-app"}))
    llm_server.script(Reply.say("Default model here."))
    code, out, err = chat(env, "hello\n", "--workspace", str(tmp_path), cwd=tmp_path)
    assert code == 0, err
    assert "Default model here." in out
    assert llm_server.requests[0].body["model"] == "picked-in-the-app"


def test_a_bad_model_route_is_a_usage_error_naming_the_form(env: dict[str, str], llm_server: ScriptedLLMServer,
                                                            tmp_path: Path) -> None:
    for bad in ("nope", "openai/", "/gpt"):
        code, out, err = chat(env, "hi\n", "--model", bad, "--workspace", str(tmp_path), cwd=tmp_path)
        assert code == 2, (bad, out, err)
        assert f"--model: {bad!r} is not a model route; expected provider/model" in err
    assert run_cli("chat", "--list", "--json", env=env)[1] == [] and llm_server.requests == []


def test_a_refused_message_is_said_and_the_chat_goes_on(env: dict[str, str], llm_server: ScriptedLLMServer,
                                                        tmp_path: Path) -> None:
    """The agent's input_schema refuses a line: an [error] line, no empty session, the next line is answered."""
    agent = write_agent(tmp_path / "t.agent.yaml", tools=[], extra="input_schema: {type: string, maxLength: 5}\n")
    llm_server.script(Reply.say("Short and sweet."))
    code, out, err = chat(env, "far too long for it\nABC\n", "--agent", str(agent), "--workspace", str(tmp_path),
                          cwd=tmp_path)
    assert code == 0, err
    assert "[error]" in out and "input_schema" in out and "Short and sweet." in out
    assert len(llm_server.requests) == 1
    assert [s["title"] for s in run_cli("chat", "--list", "--json", env=env)[1]] == ["ABC"]
