"""Smaller guardrail fixes, each as a user meets it through the real CLI.

web_search with no provider, the schema bounds a model is shown, a
drive-relative ``save_to``, a quoted operator in an allowlist entry, the
spill folder of a one-shot ``tool call`` and a write path that names a folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from relavium_desktop.engine.llm.schema_dialect import normalise_schema
from tests.helpers import run_cli


def _call(env: dict[str, str], ws: Path, tool: str, args: dict[str, object], *extra: str) -> tuple[int, dict, str]:
    code, out, err = run_cli("tool", "call", tool, "--workspace", str(ws), "--args", json.dumps(args), *extra,
                             "--json", env=env)
    return code, out, err


def test_web_search_without_a_provider_fails_at_once_and_says_how_to_configure_one(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    code, out, _ = _call(cli_env, tmp_path, "web_search", {"query": "relavium"})
    assert code == 1
    error = out["error"]
    assert error["code"] == "tool_unavailable", error
    assert "not configured" in error["message"] and "Settings -> Chat tools" in error["message"]
    assert '"provider": "searxng"' in error["message"]
    # Brave named but no key: the same, before any request (it would be a 401 online, a DNS failure offline).
    code, out, _ = _call(cli_env, tmp_path, "web_search", {"query": "relavium"}, "--config",
                         '{"provider": "brave"}')
    assert code == 1 and out["error"]["code"] == "tool_unavailable"
    assert "needs an API key" in out["error"]["message"] and "relavium secret set" in out["error"]["message"]
    # Only the call and its result: no egress was attempted.
    assert [e["type"] for e in out["events"]] == ["agent:tool_call", "agent:tool_result"]


def test_the_schemas_a_model_sees_carry_the_input_bounds(cli_env: dict[str, str]) -> None:
    code, tools, err = run_cli("tools", "list", "--no-mcp", "--json", env=cli_env)
    assert code == 0, err
    params = {t["id"]: t["parameters"]["properties"] for t in tools}
    assert params["write_file"]["content"]["maxLength"] == 8 * 1024 * 1024
    body = params["http_request"]["body"]
    assert [b.get("maxLength") for b in body["anyOf"] if b.get("type") == "string"] == [1024 * 1024]
    assert params["git_commit"]["message"]["maxLength"] == 16 * 1024
    assert params["git_commit"]["message"]["minLength"] == 1
    args = params["run_command"]["args"]
    assert args["maxItems"] == 256 and args["items"]["maxLength"] == 16 * 1024
    # Gemini's dialect keeps the bounds and the defaults (its Schema object accepts ``default``).
    gemini = {t["id"]: normalise_schema(t["parameters"], "gemini")["properties"] for t in tools}
    assert gemini["web_search"]["count"]["default"] == 5
    assert gemini["write_file"]["append"]["default"] is False
    assert gemini["http_request"]["body"]["maxLength"] == 1024 * 1024
    assert gemini["run_command"]["args"]["maxItems"] == 256


SAVE_TO = """schema_version: '1.0'
workflow:
  id: saver
  nodes:
    - {{id: s, type: input}}
    - {{id: out, type: output, save_to: '{target}'}}
  edges: [{{from: s, to: out}}]
"""


def test_a_drive_relative_save_to_is_refused_at_validation(cli_env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "saver.relavium.yaml"
    for target in ("C:relative.json", "c:out/x.json", "D:\\\\x.json", "C:/x.json"):
        wf.write_text(SAVE_TO.format(target=target))
        code, out, err = run_cli("validate", str(wf), "--json", env=cli_env)
        assert code == 2 and out == "", (target, out, err)
        assert any("drive prefix" in i["message"] for i in json.loads(err)["issues"]), err
    wf.write_text(SAVE_TO.format(target="out/{{ run.id }}.json"))
    code, out, err = run_cli("validate", str(wf), "--json", env=cli_env)
    assert code == 0, (out, err)


def test_a_quoted_operator_in_an_allowlist_entry_is_a_literal_argument(cli_env: dict[str, str], tmp_path: Path) -> None:
    policy = json.dumps({"allowedCommands": ["echo '>' \"a;b\""]})
    code, out, err = _call(cli_env, tmp_path, "run_command", {"command": "echo", "args": [">", "a;b"]},
                           "--policy", policy)
    assert code == 0, (out, err)
    assert out["result"]["stdout"] == "> a;b\n"
    assert list(tmp_path.iterdir()) == []  # no redirection happened
    # Unquoted, the same characters are still refused when the policy is read.
    code, _, err = _call(cli_env, tmp_path, "run_command", {"command": "echo", "args": [">"]},
                         "--policy", json.dumps({"allowedCommands": ["echo > x"]}))
    assert code == 2 and "shell operator '>'" in err


def test_a_tool_call_that_spills_nothing_leaves_no_run_folder(
    cli_env: dict[str, str], tmp_path: Path, relavium_home: Path
) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    for _ in range(2):
        code, out, err = _call(cli_env, tmp_path, "read_file", {"path": "a.txt"})
        assert code == 0, err
    code, out, err = _call(cli_env, tmp_path, "read_file", {"path": "missing.txt"})
    assert code == 1
    runs = relavium_home / "runs"
    assert not runs.exists() or [p.name for p in runs.iterdir() if p.name.startswith("tool-")] == []
    # A call that does spill keeps its folder: the output names the file in it.
    code, out, err = _call(cli_env, tmp_path, "run_command", {"command": "head", "args": ["-c", "200000", "/dev/zero"]},
                           "--policy", json.dumps({"allowedCommands": ["head -c 200000 /dev/zero"]}))
    assert code == 0, err
    spill = Path(out["result"]["stdoutSpill"]["path"])
    assert spill.exists() and spill.parent.parent == runs and spill.parent.name.startswith("tool-")


def test_a_write_path_naming_a_folder_is_refused_not_written_as_a_file(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    for path in ("notes/", "deep/er/", "notes/.", "./", "notes\\"):
        code, out, err = _call(cli_env, tmp_path, "write_file", {"path": path, "content": "x", "createParents": True})
        assert code == 1, (path, out, err)
        assert out["error"]["code"] == "invalid_args" and "names a folder" in out["error"]["message"]
    assert list(tmp_path.iterdir()) == []
    code, out, err = _call(cli_env, tmp_path, "write_file", {"path": "notes/a.md", "content": "x",
                                                             "createParents": True})
    assert code == 0, err
    assert (tmp_path / "notes" / "a.md").read_text() == "x"
