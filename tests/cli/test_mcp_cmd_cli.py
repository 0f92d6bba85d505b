"""``relavium mcp resources | read URI | prompts | prompt NAME`` through the real console script.

Against the project's SDK fixture server (``fixture://notes``, the
``fixture://logo`` PNG, the ``greet`` prompt) and server-everything (a
resource read by a template URI, a prompt with an argument).  With
``--json`` stdout is one JSON document; binary contents are media handles;
unknown servers are usage errors (exit 2), unknown URIs and prompts failures
(exit 1); every server a command started is stopped when it returns.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from tests.fixtures.mcp_everything import everything_entry
from tests.helpers import run_cli
from tests.host.mcp.conftest import PYTHON, process_gone, stdio_entry

BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{200,}")
DEAD = {"transport": "stdio", "command": PYTHON, "args": ["-c", "import sys; sys.exit(3)"]}


def _write_mcp(home: Path, **servers: dict[str, Any]) -> None:
    (home / "mcp.yaml").write_text(json.dumps({"servers": servers}))  # JSON is YAML


def _mcp(env: dict[str, str], workspace: Path, *argv: str) -> tuple[int, Any, str]:
    return run_cli("mcp", *argv, "--workspace", str(workspace), env=env, timeout=120)


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while not process_gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return process_gone(pid)


def test_resources_are_listed_per_server_and_a_dead_server_is_a_reason(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    marker = tmp_path / "server.pid"
    _write_mcp(relavium_home, fx=stdio_entry(env={"MCP_FIXTURE_MARKER": str(marker)}), dead=DEAD)
    code, out, err = _mcp(cli_env, tmp_path, "resources", "--json")
    assert code == 0, err
    assert out["ok"] is True
    assert {(r["server"], r["uri"], r.get("mimeType")) for r in out["resources"]} == {
        ("fx", "fixture://notes", "text/plain"), ("fx", "fixture://logo", "image/png"),
    }
    notes = next(r for r in out["resources"] if r["uri"] == "fixture://notes")
    assert notes["description"] == "A short text note."
    [down] = out["unavailable"]
    assert down["server"] == "dead" and "relavium: MCP server dead: unavailable:" in err
    assert _gone(int(marker.read_text())), "the server outlived the command"

    code, text, _ = _mcp(cli_env, tmp_path, "resources", "--server", "fx")
    assert code == 0
    assert text.splitlines() == ["fx  fixture://notes  (notes)  [text/plain]",
                                 "fx  fixture://logo  (logo)  [image/png]"]


def test_read_returns_text_and_binary_as_a_media_handle(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, fx=stdio_entry())
    code, text, err = _mcp(cli_env, tmp_path, "read", "fixture://notes")
    assert code == 0, err
    assert text == "remember the milk\n"
    code, out, err = _mcp(cli_env, tmp_path, "read", "fixture://logo", "--json")
    assert code == 0, err
    assert out["ok"] is True and out["server"] == "fx" and out["uri"] == "fixture://logo"
    [blob] = out["contents"]
    assert blob["mimeType"] == "image/png" and re.fullmatch(r"media://sha256-[0-9a-f]{64}", blob["media"])
    assert not BASE64_RUN.search(json.dumps(out))
    code, text, _ = _mcp(cli_env, tmp_path, "read", "fixture://logo")
    assert code == 0 and text.startswith("[image/png, ") and blob["media"] in text


def test_unknown_servers_and_uris_are_clear_errors(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, fx=stdio_entry())
    code, out, err = _mcp(cli_env, tmp_path, "read", "fixture://nope", "--json")
    assert code == 1 and out["ok"] is False and out["error"]["code"] == "unknown_resource"
    assert "no configured MCP server lists the resource 'fixture://nope'" in out["error"]["message"]
    code, out, _ = _mcp(cli_env, tmp_path, "read", "fixture://nope", "--server", "fx", "--json")
    assert code == 1 and out["error"]["code"] == "tool_failed"
    assert out["error"]["message"].startswith("MCP server 'fx': reading resource 'fixture://nope' failed")
    code, out, err = _mcp(cli_env, tmp_path, "resources", "--server", "nope", "--json")
    assert code == 2 and out == ""
    assert "--server: 'nope' is not a configured MCP server; configured: fx" in err
    code, _, err = _mcp(cli_env, tmp_path, "read")
    assert code == 2 and "mcp read needs a URI" in err


def test_no_configured_servers_is_tool_unavailable(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    code, out, _ = _mcp(cli_env, tmp_path, "prompts", "--json")
    assert code == 1 and out["error"]["code"] == "tool_unavailable"
    assert "no MCP servers are configured" in out["error"]["message"]


def test_prompts_are_listed_and_rendered_with_their_arguments(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, fx=stdio_entry())
    code, out, err = _mcp(cli_env, tmp_path, "prompts", "--json")
    assert code == 0, err
    [greet] = out["prompts"]
    assert greet["server"] == "fx" and greet["name"] == "greet" and greet["description"] == "Greet someone by name."
    assert [(a["name"], a["required"]) for a in greet["arguments"]] == [("name", True)]
    code, text, _ = _mcp(cli_env, tmp_path, "prompts")
    assert code == 0 and text.strip() == "fx  greet(name*)  Greet someone by name."

    code, out, err = _mcp(cli_env, tmp_path, "prompt", "greet", "--arg", "name=Ada", "--json")
    assert code == 0, err
    assert out == {"ok": True, "server": "fx", "prompt": "greet",
                   "messages": [{"role": "user", "text": "Please greet Ada warmly."}]}
    code, text, _ = _mcp(cli_env, tmp_path, "prompt", "greet", "--arg", "name=Ada")
    assert code == 0 and text == "user: Please greet Ada warmly.\n"


def test_prompt_argument_and_name_errors(cli_env: dict[str, str], relavium_home: Path, tmp_path: Path) -> None:
    _write_mcp(relavium_home, fx=stdio_entry())
    code, _, err = _mcp(cli_env, tmp_path, "prompt", "greet", "--json")
    assert code == 2 and "prompt 'greet' needs --arg name=VALUE" in err
    code, _, err = _mcp(cli_env, tmp_path, "prompt", "greet", "--arg", "name=Ada", "--arg", "mood=glad")
    assert code == 2 and "prompt 'greet' takes no argument mood (it takes: name)" in err
    code, _, err = _mcp(cli_env, tmp_path, "prompt", "greet", "--arg", "nameAda")
    assert code == 2 and "expected KEY=VALUE" in err
    code, out, _ = _mcp(cli_env, tmp_path, "prompt", "farewell", "--json")
    assert code == 1 and out["error"]["code"] == "unknown_prompt"
    assert out["error"]["message"] == ("no configured MCP server offers a prompt named 'farewell'; "
                                       "see 'relavium mcp prompts'")


def test_server_everything_resources_templates_and_prompts(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_mcp(relavium_home, everything=everything_entry())
    code, out, err = _mcp(cli_env, tmp_path, "resources", "--json")
    assert code == 0, err
    uris = {r["uri"] for r in out["resources"]}
    assert "demo://resource/static/document/architecture.md" in uris
    # A URI from a resource template is not listed: it is read by naming the server.
    code, out, err = _mcp(cli_env, tmp_path, "read", "demo://resource/dynamic/text/1", "--server", "everything",
                          "--json")
    assert code == 0, err
    [content] = out["contents"]
    assert content["mimeType"] == "text/plain" and content["text"].startswith("Resource 1:")
    code, out, err = _mcp(cli_env, tmp_path, "read", "demo://resource/dynamic/blob/1", "--server", "everything",
                          "--json")
    assert code == 0, err
    assert out["contents"][0]["media"].startswith("media://sha256-") and "blob" not in out["contents"][0]
    code, out, err = _mcp(cli_env, tmp_path, "prompt", "args-prompt", "--arg", "city=Paris", "--json")
    assert code == 0, err
    assert out["messages"] == [{"role": "user", "text": "What's weather in Paris?"}]
