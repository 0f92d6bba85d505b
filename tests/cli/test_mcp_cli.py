"""``relavium tool call mcp_call --json`` against a real stdio MCP server from mcp.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import psutil

from tests.helpers import run_cli
from tests.host.mcp.conftest import FIXTURE, PYTHON


def _write_config(home: Path) -> None:
    (home / "mcp.yaml").write_text(
        "servers:\n"
        f"  calc:\n    transport: stdio\n    command: {json.dumps(PYTHON)}\n"
        f"    args: [{json.dumps(FIXTURE)}, stdio]\n"
    )


def test_tool_call_mcp_call_json(cli_env: dict[str, str], relavium_home: Path, tmp_path: Path) -> None:
    _write_config(relavium_home)
    code, out, _ = run_cli("tool", "call", "mcp_call", "--args",
                           json.dumps({"server": "calc", "tool": "pid"}),
                           "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 0, out
    assert out["ok"] is True
    pid = out["result"]["structuredContent"]["result"]
    # The one-shot command ended its server on the way out.
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    types = [e["type"] for e in out["events"]]
    assert types == ["agent:tool_call", "agent:tool_result"]
    assert out["events"][1]["success"] is True


def test_tool_call_unknown_server_exit_1(cli_env: dict[str, str], relavium_home: Path, tmp_path: Path) -> None:
    _write_config(relavium_home)
    code, out, _ = run_cli("tool", "call", "mcp_call", "--args", json.dumps({"server": "calcx", "tool": "add"}),
                           "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 1
    assert out["error"]["code"] == "invalid_args"
    assert "configured: calc" in out["error"]["message"]


def test_tool_call_tool_error_exit_1(cli_env: dict[str, str], relavium_home: Path, tmp_path: Path) -> None:
    _write_config(relavium_home)
    code, out, _ = run_cli("tool", "call", "mcp_call", "--args",
                           json.dumps({"server": "calc", "tool": "fail", "arguments": {"reason": "nope"}}),
                           "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 1
    assert out["error"]["code"] == "tool_failed"
    assert "refused on purpose: nope" in out["error"]["message"]
