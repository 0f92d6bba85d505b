"""@modelcontextprotocol/server-filesystem 2026.8.31 through the real ``relavium`` console script.

The reference file server, run by node against a temporary folder that is
also the workspace (the server narrows itself to the client's roots, which
are the workspace).  ``read_media_file`` repeats the image inside
``structuredContent``; both copies must come back as one media handle with
no base64 anywhere on stdout.  Its other tools work as ``mcp_files_<tool>``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.mcp_filesystem import filesystem_entry
from tests.fixtures.mcp_raw_server import PNG
from tests.helpers import run_cli

BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{200,}")


@pytest.fixture
def root(tmp_path: Path, relavium_home: Path) -> Path:
    folder = tmp_path / "files"
    (folder / "docs").mkdir(parents=True)
    (folder / "pic.png").write_bytes(PNG)
    (folder / "notes.txt").write_text("first line\nsecond line\nthird line\n")
    (folder / "docs" / "guide.md").write_text("# Guide\n")
    (relavium_home / "mcp.yaml").write_text(json.dumps({"servers": {"files": filesystem_entry(folder)}}))
    return folder


def _call(env: dict[str, str], root: Path, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    code, out, err = run_cli("tool", "call", f"mcp_files_{tool}", "--args", json.dumps(args),
                             "--workspace", str(root), "--json", env=env)
    assert code == 0, (out, err)
    assert out["ok"] is True
    return out


def _text(out: dict[str, Any]) -> str:
    return "".join(p["text"] for p in out["result"]["content"] if p["type"] == "text")


def test_read_media_file_returns_a_media_handle_and_no_base64(cli_env: dict[str, str], root: Path) -> None:
    out = _call(cli_env, root, "read_media_file", {"path": str(root / "pic.png")})
    assert not BASE64_RUN.search(json.dumps(out)), "base64 reached stdout"
    [part] = out["result"]["content"]
    assert part["type"] == "image" and part["mimeType"] == "image/png" and part["bytes"] == len(PNG)
    assert re.fullmatch(r"media://sha256-[0-9a-f]{64}", part["media"])
    # The server's structuredContent copy of the image is the same handle, not base64.
    assert out["result"]["structuredContent"]["content"] == [part]
    assert part["media"] in out["model_facing"]
    assert [e["type"] for e in out["events"]] == ["agent:tool_call", "agent:tool_result"]


def test_the_servers_other_tools_work(cli_env: dict[str, str], root: Path) -> None:
    text = _text(_call(cli_env, root, "read_text_file", {"path": str(root / "notes.txt"), "head": 2}))
    assert text == "first line\nsecond line"
    listing = _text(_call(cli_env, root, "list_directory", {"path": str(root)}))
    assert set(listing.splitlines()) == {"[DIR] docs", "[FILE] notes.txt", "[FILE] pic.png"}
    _call(cli_env, root, "write_file", {"path": str(root / "docs" / "new.txt"), "content": "written by MCP\n"})
    assert (root / "docs" / "new.txt").read_text() == "written by MCP\n"
    found = _text(_call(cli_env, root, "search_files", {"path": str(root), "pattern": "**/*.md"}))
    assert str(root / "docs" / "guide.md") in found
    info = _text(_call(cli_env, root, "get_file_info", {"path": str(root / "notes.txt")}))
    assert "size: 34" in info
    allowed = _text(_call(cli_env, root, "list_allowed_directories", {}))
    assert str(root) in allowed


def test_a_path_outside_the_served_folder_is_the_servers_error(
    cli_env: dict[str, str], root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("not yours")
    code, out, _ = run_cli("tool", "call", "mcp_files_read_text_file", "--args", json.dumps({"path": str(outside)}),
                           "--workspace", str(root), "--json", env=cli_env)
    assert code == 1 and out["error"]["code"] == "tool_failed"
    assert "not yours" not in json.dumps(out)
