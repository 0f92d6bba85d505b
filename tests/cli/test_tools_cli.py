"""The headless contract of ``relavium tools list`` and ``relavium tool call``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_cli

BUILTINS = {
    "read_file", "write_file", "list_directory", "run_command", "http_request", "web_search",
    "git_status", "git_commit", "read_clipboard", "notify", "mcp_call", "invoke_agent", "read_media",
}


def test_tools_list_json_lists_all_13_builtins(cli_env: dict[str, str]) -> None:
    code, tools, _ = run_cli("tools", "list", "--json", env=cli_env)
    assert code == 0
    assert {t["id"] for t in tools} == BUILTINS
    for t in tools:
        assert set(t) == {"id", "source", "description", "parameters", "policy"}
        assert t["parameters"]["type"] == "object"
    run_command = next(t for t in tools if t["id"] == "run_command")
    assert set(run_command["parameters"]["properties"]) == {"command", "args"}
    assert "65,536 UTF-8 bytes" in run_command["parameters"]["properties"]["args"]["description"]


def test_git_commit_without_gate_is_denied(cli_env: dict[str, str], tmp_path: Path) -> None:
    code, out, err = run_cli(
        "tool", "call", "git_commit", "--args", '{"message":"x"}', "--workspace", str(tmp_path), "--json",
        env=cli_env,
    )
    assert code == 1, err
    assert out["ok"] is False
    assert out["error"]["code"] == "tool_denied" and out["error"]["reason"] == "gate_required"
    assert [e["type"] for e in out["events"]] == ["agent:tool_call", "agent:tool_result"]
    assert [e["sequenceNumber"] for e in out["events"]] == [0, 1]


def test_args_from_file_and_unknown_tool(cli_env: dict[str, str], tmp_path: Path) -> None:
    args = tmp_path / "args.json"
    args.write_text(json.dumps({"path": "x"}))
    code, out, _ = run_cli("tool", "call", "raed_file", "--args", f"@{args}", "--json", env=cli_env)
    assert code == 1
    assert out["error"]["code"] == "unknown_tool" and "read_file" in out["error"]["message"]


def test_usage_errors_exit_2_with_one_line(cli_env: dict[str, str]) -> None:
    for argv in (
        ("tool", "call", "read_file", "--args", "{not json", "--json"),
        ("tool", "call", "read_file", "--args", "[1]", "--json"),
        ("tool", "call", "read_file", "--args", "@/no/such/file.json", "--json"),
        ("tool", "call", "read_file", "--policy", '{"allowedCommand": []}', "--json"),
        ("tool", "call", "read_file", "--workspace", "/no/such/dir", "--json"),
        ("tools", "frobnicate"),
        ("nonsense",),
        (),
    ):
        code, out, err = run_cli(*argv, env=cli_env)
        assert code == 2, (argv, out, err)
        assert out == "", argv  # nothing on stdout, JSON or otherwise
        assert len(err.strip().splitlines()) == 1, (argv, err)


def test_one_shot_spill_stays_and_is_named(cli_env: dict[str, str], relavium_home: Path) -> None:
    """An over-ceiling result names its spill file, which outlives the command."""
    policy = json.dumps({"allowedCommands": ["seq 1 30000"]})
    code, out, err = run_cli(
        "tool", "call", "run_command", "--policy", policy,
        "--args", '{"command":"seq","args":["1","30000"]}', "--json", env=cli_env,
    )
    assert code == 0, err
    assert out["truncated"] is True
    spill = out["spill"]
    assert spill["path"] in out["model_facing"]
    assert Path(spill["path"]).is_file()
    assert str(relavium_home / "runs") in spill["path"]
    # The registry's spill holds the full result; the process host streamed every
    # byte of stdout into its own spill file as it arrived.
    assert json.loads(Path(spill["path"]).read_text()) == out["result"]
    full = Path(out["result"]["stdoutSpill"]["path"]).read_text()
    assert full == "".join(f"{i}\n" for i in range(1, 30001))
