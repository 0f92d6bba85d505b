"""MCP edge cases through the real ``relavium`` console script and real stdio servers.

- tools a server cannot have offered (no ``inputSchema``, an unusable schema,
  an empty name, ``execution.taskSupport: "required"``) are ``skipped`` rows
  with their reason in ``tools list`` (JSON and text), and the server's other
  tools still work;
- a malformed JSON-RPC line fails the call at once, not at the timeout;
- binary in ``structuredContent`` (and data: URLs, long base64) is a media
  handle: no base64 anywhere on stdout, events included;
- a timed-out server's descendant that moved to its own session is gone when
  the command returns.

The misbehaving server is ``tests/fixtures/mcp_raw_server.py``;
``simulate-research-query`` is server-everything's real task-only tool.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from tests.fixtures.mcp_everything import everything_entry
from tests.fixtures.mcp_raw_server import BLOB, PNG
from tests.helpers import run_cli
from tests.host.mcp.conftest import PYTHON, process_gone

RAW = str(Path(__file__).resolve().parents[1] / "fixtures" / "mcp_raw_server.py")
BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{200,}")
TASK_REASON = ('it declares execution.taskSupport "required" (callable only as an MCP task), '
               "and Relavium does not support MCP tasks")


def _write_mcp(home: Path, **servers: dict[str, Any]) -> None:
    (home / "mcp.yaml").write_text(json.dumps({"servers": servers}))  # JSON is YAML


def _raw(**extra: Any) -> dict[str, Any]:
    return {"transport": "stdio", "command": PYTHON, "args": [RAW], **extra}


def test_tools_list_shows_skipped_tools_with_reasons_and_offers_the_rest(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, raw=_raw(), everything=everything_entry())
    code, out, err = run_cli("tools", "list", "--workspace", str(tmp_path), "--json", env=cli_env, timeout=120)
    assert code == 0, err
    offered = {row["id"] for row in out if not row.get("skipped")}
    assert {"mcp_raw_ok", "mcp_raw_binary", "mcp_raw_garble", "mcp_everything_echo"} <= offered
    skipped = {(row["server"], row["name"]): row for row in out if row.get("skipped")}
    assert skipped[("everything", "simulate-research-query")]["reason"] == TASK_REASON
    assert skipped[("everything", "simulate-research-query")]["id"] == "mcp_everything_simulate-research-query"
    assert skipped[("raw", "tasky")]["reason"] == TASK_REASON
    assert skipped[("raw", "noschema")]["reason"] == "it has no inputSchema"
    assert skipped[("raw", "badschema")]["reason"].startswith("unusable input schema")
    assert skipped[("raw", "")]["reason"] == "its name is empty"
    assert all(row["source"] == "mcp" for row in skipped.values())
    # An empty name never becomes the bare id mcp_<server>_.
    assert "mcp_raw_" not in {row["id"] for row in out}
    assert "mcp_raw_noschema" not in offered and "mcp_everything_simulate-research-query" not in offered

    code, text, err = run_cli("tools", "list", "--workspace", str(tmp_path), env=cli_env, timeout=120)
    assert code == 0, err
    line = next(x for x in text.splitlines() if x.startswith("mcp_everything_simulate-research-query "))
    assert re.search(r"\sskipped\s+it declares execution\.taskSupport \"required\"", line)
    assert re.search(r"^mcp_raw_noschema\s+skipped\s+it has no inputSchema$", text, re.MULTILINE)


def test_a_servers_good_tool_works_beside_broken_ones(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, raw=_raw())
    code, out, err = run_cli("tool", "call", "mcp_raw_ok", "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 0, err
    assert out["result"]["content"] == [{"type": "text", "text": "fine"}]
    code, out, _ = run_cli("tool", "call", "mcp_raw_tasky", "--workspace", str(tmp_path), "--json", env=cli_env)
    # Never offered, so never called: the answer says why.
    assert code == 1 and out["error"]["code"] == "tool_unavailable"
    assert f"tool 'tasky' left out: {TASK_REASON}" in out["error"]["message"]


def test_a_malformed_line_fails_the_call_at_once_with_a_clear_message(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, raw=_raw(timeoutMs=120_000))
    started = time.monotonic()
    code, out, _ = run_cli("tool", "call", "mcp_raw_garble", "--workspace", str(tmp_path), "--json",
                           env=cli_env, timeout=100)
    assert time.monotonic() - started < 30  # the call's own timeout is 120 s
    assert code == 1 and out["error"]["code"] == "tool_failed"
    assert out["error"]["message"] == ("MCP server 'raw': calling 'garble' failed (the server sent a line that "
                                       "is not a valid JSON-RPC message; the server was stopped)")


def test_binary_in_structured_content_is_a_media_handle_and_no_base64_is_printed(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, raw=_raw())
    proc_code, out, err = run_cli("tool", "call", "mcp_raw_binary", "--workspace", str(tmp_path), "--json",
                                  env=cli_env)
    assert proc_code == 0, err
    printed = json.dumps(out)
    assert not BASE64_RUN.search(printed), "base64 reached stdout"
    assert not BASE64_RUN.search(out["model_facing"]) and not BASE64_RUN.search(json.dumps(out["events"]))
    structured = out["result"]["structuredContent"]
    image = structured["content"][0]
    assert image["media"].startswith("media://sha256-") and image["bytes"] == len(PNG)
    assert structured["attachment"]["bytes"] == len(BLOB) and structured["raw"]["bytes"] == len(BLOB)
    assert structured["preview"]["media"] == image["media"]
    assert image["media"] in out["model_facing"]


def test_a_timed_out_servers_descendant_in_its_own_session_is_gone_when_the_command_returns(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    pid_file = tmp_path / "escaped.pid"
    _write_mcp(relavium_home, raw=_raw(timeoutMs=2_000))
    code, out, _ = run_cli("tool", "call", "mcp_raw_spawn", "--args", json.dumps({"pid_file": str(pid_file)}),
                           "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 1 and "timed out after 2000 ms" in out["error"]["message"]
    escaped = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while not process_gone(escaped) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process_gone(escaped), "the setsid descendant outlived the command"
