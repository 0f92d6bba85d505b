"""The CI contract of upstream's "Run a workflow in CI" tutorial, through the real ``relavium``.

A CI job has no keyring: the provider key comes from ``RELAVIUM_<PROVIDER>_API_KEY``.
A missing key fails the invocation up front with exit 2, before any node runs.
Under ``--json`` an exit-2 fault is one ``{"type": "error", ...}`` document on
stderr and stdout stays empty.  The environment of these subprocesses holds
no keyring bus and no other key: the provider entry names a keyring secret
that cannot resolve here, so only the environment variable can supply the key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli

KEY = "sk-ci-ENVONLY0123456789abcdefghijklmn"

WORKFLOW = """schema_version: '1.0'
workflow:
  id: ci-pipeline
  inputs: [{name: topic, type: string}]
  agents:
    - {id: writer, provider: openai, model: gpt-4o-mini, system_prompt: Write one line.}
  nodes:
    - {id: start, type: input}
    - {id: prep, type: transform, transform: '"about " + inputs.topic'}
    - {id: write, type: agent, agent_ref: writer, prompt_template: '{{ run.outputs["prep"] }}'}
    - {id: out, type: output}
  edges: [{from: start, to: prep}, {from: prep, to: write}, {from: write, to: out}]
"""


@pytest.fixture
def ci_env(cli_env: dict[str, str], relavium_home: Path, llm_server: ScriptedLLMServer) -> dict[str, str]:
    """A CI-like environment: no session bus (so no keyring), no key but what a test adds."""
    entries = {"providers": {"openai": {"kind": "openai", "base_url": llm_server.base_url + "/v1",
                                        "api_key": "secret:OPENAI_API_KEY", "allow_local": True}}}
    (relavium_home / "providers.yaml").write_text(json.dumps(entries))
    drop = ("DBUS_SESSION_BUS_ADDRESS", "RELAVIUM_TEST_KEY", "RELAVIUM_OPENAI_API_KEY", "OPENAI_API_KEY")
    env = {k: v for k, v in cli_env.items() if k not in drop}
    env["CI"] = "true"
    return env


def workflow(tmp_path: Path, text: str = WORKFLOW) -> Path:
    path = tmp_path / "ci.relavium.yaml"
    path.write_text(text)
    return path


def error_doc(stderr: str) -> dict[str, Any]:
    """The one JSON fault document stderr holds under --json."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    doc: dict[str, Any] = json.loads(lines[0])
    assert doc["type"] == "error", doc
    return doc


def test_the_key_comes_from_the_environment_variable(
    ci_env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm_server.script(Reply.say("Quantum computers use qubits."))
    env = {**ci_env, "RELAVIUM_OPENAI_API_KEY": KEY}
    code, events, err = run_cli("run", str(workflow(tmp_path)), "--input", "topic=quantum", "--workspace",
                                str(tmp_path), "--json", env=env, cwd=tmp_path)
    assert code == 0, err
    assert events[-1]["type"] == "run:completed"
    (request,) = llm_server.requests
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["messages"][-1]["content"] == "about quantum"
    assert KEY not in json.dumps(events) + err  # the key never appears in run output
    # ``providers list`` says the key is there, as the run found it; missing without the variable.
    code, listed, err = run_cli("providers", "list", "--json", env=env)
    assert code == 0 and [(p["name"], p["key"]) for p in listed] == [("openai", "present")], (listed, err)
    assert [p["key"] for p in run_cli("providers", "list", "--json", env=ci_env)[1]] != ["present"]


def test_a_missing_key_fails_before_anything_runs_with_exit_2(
    ci_env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    code, out, err = run_cli("run", str(workflow(tmp_path)), "--input", "topic=quantum", "--workspace",
                             str(tmp_path), "--json", env=ci_env, cwd=tmp_path)
    assert code == 2
    assert out == ""  # no run:started, no node ran
    doc = error_doc(err)
    assert doc["code"] == "provider_auth"
    message = doc["message"]
    # It names the provider, its node and the three ways to give it a key.
    assert "provider 'openai'" in message and "agent node 'write'" in message
    assert "relavium secret set OPENAI_API_KEY" in message
    assert "env:NAME as its key in providers.yaml" in message
    assert "RELAVIUM_OPENAI_API_KEY" in message
    assert llm_server.requests == []
    runs = run_cli("runs", "list", "--json", env=ci_env)[1]
    assert runs["total"] == 0  # nothing was recorded as run, either

    # Without --json: the same refusal as one line for a person, stdout still empty.
    code, out, err = run_cli("run", str(workflow(tmp_path)), "--input", "topic=quantum", "--workspace",
                             str(tmp_path), env=ci_env, cwd=tmp_path)
    assert code == 2 and out == "" and err.startswith("relavium: agent node 'write'")


def test_a_key_the_entry_names_in_the_environment_wins_over_the_relavium_variable(
    ci_env: dict[str, str], relavium_home: Path, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    entries = {"providers": {"openai": {"kind": "openai", "base_url": llm_server.base_url + "/v1",
                                        "api_key": "env:MY_OPENAI_KEY", "allow_local": True}}}
    (relavium_home / "providers.yaml").write_text(json.dumps(entries))
    llm_server.script(Reply.say("ok"))
    env = {**ci_env, "MY_OPENAI_KEY": KEY, "RELAVIUM_OPENAI_API_KEY": "sk-ci-other-key-should-not-be-used"}
    code, _, err = run_cli("run", str(workflow(tmp_path)), "--input", "topic=x", "--workspace", str(tmp_path),
                           "--json", env=env, cwd=tmp_path)
    assert code == 0, err
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_validation_and_usage_faults_are_json_on_stderr_with_an_empty_stdout(
    ci_env: dict[str, str], tmp_path: Path
) -> None:
    broken = workflow(tmp_path, WORKFLOW.replace("type: transform", "type: transfrom"))
    for argv in (("validate", str(broken), "--json"), ("run", str(broken), "--json")):
        code, out, err = run_cli(*argv, env=ci_env, cwd=tmp_path)
        assert code == 2 and out == "", argv
        doc = error_doc(err)
        assert doc["code"] == "validation"
        (issue,) = doc["issues"]
        assert issue["line"] == 9 and "unknown node type 'transfrom'" in issue["message"]

    # A bad invocation (no file), a missing required input, a file that is not there.
    for argv, code_name, words in (
        (("run", "--json"), "usage", "missing FILE"),
        (("run", str(workflow(tmp_path)), "--json"), "validation", "topic"),
        (("validate", str(tmp_path / "nope.yaml"), "--json"), "validation", "cannot read"),
        (("gate", "approve", "--json"), "usage", "needs RUN_ID"),
    ):
        code, out, err = run_cli(*argv, env={**ci_env, "RELAVIUM_OPENAI_API_KEY": KEY}, cwd=tmp_path)
        assert code == 2 and out == "", argv
        doc = error_doc(err)
        assert doc["code"] == code_name and words in doc["message"], (argv, doc)

    # A valid workflow still answers on stdout.
    code, out, err = run_cli("validate", str(workflow(tmp_path)), "--json", env=ci_env)
    assert code == 0 and out["ok"] is True and err == ""


def test_tool_call_keeps_its_documented_stdout_object(ci_env: dict[str, str], tmp_path: Path) -> None:
    """``relavium tool call`` is not part of the tutorial: its failure stays ``{"ok": false, ...}`` on stdout."""
    code, out, _ = run_cli("tool", "call", "read_file", "--args", json.dumps({"path": "missing.txt"}),
                           "--workspace", str(tmp_path), "--json", env=ci_env)
    assert code == 1 and out["ok"] is False and out["tool"] == "read_file"


GATED = WORKFLOW.replace(
    "    - {id: write, type: agent,", "    - {id: ask, type: human_gate}\n    - {id: write, type: agent,"
).replace("{from: prep, to: write}", "{from: prep, to: ask}, {from: ask, to: write}")


def test_a_gate_approved_in_ci_checks_the_key_of_what_still_runs_first(
    ci_env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    keyed = {**ci_env, "RELAVIUM_OPENAI_API_KEY": KEY}
    code, events, err = run_cli("run", str(workflow(tmp_path, GATED)), "--input", "topic=x", "--workspace",
                                str(tmp_path), "--json", env=keyed, cwd=tmp_path)
    assert code == 3, err
    run_id = events[-1]["runId"]
    # The approving job has no key: refused before anything runs, and the gate stays open.
    code, out, err = run_cli("gate", "approve", run_id, "--json", env=ci_env, cwd=tmp_path)
    assert code == 2 and out == ""
    assert error_doc(err)["code"] == "provider_auth" and "RELAVIUM_OPENAI_API_KEY" in error_doc(err)["message"]
    assert [g["runId"] for g in run_cli("gate", "list", "--json", env=ci_env)[1]["gates"]] == [run_id]
    llm_server.script(Reply.say("done"))
    code, events, err = run_cli("gate", "approve", run_id, "--json", env=keyed, cwd=tmp_path)
    assert code == 0, err
    assert events[-1]["type"] == "run:completed" and len(llm_server.requests) == 1


def test_storage_and_internal_faults_of_run_are_json_on_stderr_too(
    ci_env: dict[str, str], relavium_home: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    flow = workflow(tmp_path, "schema_version: '1.0'\nworkflow:\n  id: w\n  nodes:\n    - {id: s, type: input}\n"
                              "    - {id: out, type: output}\n  edges: [{from: s, to: out}]\n")
    (relavium_home / "history.db").write_bytes(b"\x00not a database" * 512)
    code, out, err = run_cli("run", str(flow), "--json", env=ci_env, cwd=tmp_path)
    assert code == 1 and out == ""  # no stray document among the run events
    doc = error_doc(err)
    assert doc["code"] == "storage" and "history.db is not a database or is damaged" in doc["message"]

    # A bug nobody anticipated (made here in-process: no real input triggers one): the same shape.
    from relavium_desktop.cli import main, run_cmd

    def boom(args: object) -> int:
        raise RuntimeError(f"boom with api_key={KEY}")

    monkeypatch.setattr(run_cmd, "run", boom)
    monkeypatch.delenv("RELAVIUM_DEBUG", raising=False)
    assert main(["run", str(flow), "--json"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    doc = error_doc(err)
    assert doc["code"] == "internal" and doc["message"].startswith("internal error: RuntimeError: boom")
    assert KEY not in err
