"""Settings' edits of mcp.yaml: the user's comments and order survive, a bad entry never reaches the file."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from relavium_desktop.host.mcp import McpConfigError, load_servers
from relavium_desktop.host.mcp.editing import McpYamlEditor

HAND_WRITTEN = """\
# My MCP servers -- written by hand, keep this comment.
servers:
  # the docs server at work
  docs:
    transport: http
    url: https://docs.example/mcp   # the team's instance
    credentialRef: secret:docs
  files:
    transport: stdio
    command: my-files-server
    args: [--root, /data]
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


def test_adding_keeps_comments_and_order_and_writes_owner_only(home: Path) -> None:
    (home / "mcp.yaml").write_text(HAND_WRITTEN)
    editor = McpYamlEditor(home)
    editor.add_server("calc", {"transport": "stdio", "command": "calc-server", "args": ["--fast"],
                               "env": {"LOG_LEVEL": "debug"}})
    text = (home / "mcp.yaml").read_text()
    for kept in ("# My MCP servers -- written by hand", "# the docs server at work", "# the team's instance"):
        assert kept in text
    assert list(load_servers(home)) == ["docs", "files", "calc"]
    assert load_servers(home)["calc"].env == {"LOG_LEVEL": "debug"}  # type: ignore[union-attr]
    assert stat.S_IMODE((home / "mcp.yaml").stat().st_mode) == 0o600


def test_a_new_file_starts_with_a_header_that_says_what_it_is(home: Path) -> None:
    McpYamlEditor(home).add_server("web", {"transport": "http", "url": "https://mcp.example/mcp"})
    text = (home / "mcp.yaml").read_text()
    assert text.startswith("# Relavium MCP servers")
    assert list(load_servers(home)) == ["web"]


@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        ({"transport": "stdio"}, "command"),
        ({"transport": "stdio", "command": "x", "cwd": "relative"}, "absolute"),
        ({"transport": "http", "url": "https://a", "credentialRef": "plain-token"}, "credentialRef"),
        ({"transport": "stdio", "command": "x", "env": {"GITHUB_TOKEN": "ghp_pasted"}}, "credentialRef"),
        ({"transport": "stdio", "command": "x", "env": {"LD_PRELOAD": "/tmp/x.so"}}, "LD_PRELOAD"),
    ],
)
def test_an_invalid_entry_is_refused_and_the_file_is_untouched(home: Path, entry: dict, needle: str) -> None:
    (home / "mcp.yaml").write_text(HAND_WRITTEN)
    with pytest.raises(McpConfigError) as info:
        McpYamlEditor(home).add_server("bad", entry)
    assert needle in str(info.value)
    assert "ghp_pasted" not in str(info.value)  # never echo what may be a secret
    assert (home / "mcp.yaml").read_text() == HAND_WRITTEN


def test_update_sets_fields_in_place_in_either_spelling(home: Path) -> None:
    (home / "mcp.yaml").write_text(HAND_WRITTEN.replace("credentialRef: secret:docs",
                                                        "credentialRef: secret:docs\n    allow_local: false"))
    editor = McpYamlEditor(home)
    editor.update_server("docs", {"url": "http://127.0.0.1:9/mcp", "allowLocal": True, "credentialRef": None})
    text = (home / "mcp.yaml").read_text()
    assert "allowLocal" not in text and "allow_local: true" in text  # the file's own spelling is kept
    assert "credentialRef" not in text
    assert "# the docs server at work" in text
    docs = load_servers(home)["docs"]
    assert docs.url == "http://127.0.0.1:9/mcp" and docs.allow_local  # type: ignore[union-attr]


def test_remove_and_rename(home: Path) -> None:
    (home / "mcp.yaml").write_text(HAND_WRITTEN)
    editor = McpYamlEditor(home)
    editor.rename_server("files", "data")
    assert list(load_servers(home)) == ["docs", "data"]
    editor.remove_server("docs")
    editor.remove_server("data")
    assert load_servers(home) == {}
    assert "# My MCP servers" in (home / "mcp.yaml").read_text()
    with pytest.raises(McpConfigError, match="no server named 'gone'"):
        editor.remove_server("gone")


def test_a_broken_file_is_reported_and_never_rewritten(home: Path) -> None:
    broken = "servers:\n  x: {transport: stdio, command: [unclosed\n"
    (home / "mcp.yaml").write_text(broken)
    editor = McpYamlEditor(home)
    with pytest.raises(McpConfigError, match="not valid YAML at line"):
        editor.servers()
    with pytest.raises(McpConfigError):
        editor.add_server("y", {"transport": "stdio", "command": "y"})
    assert (home / "mcp.yaml").read_text() == broken


def test_tools_allowlist_is_written_and_removed(home: Path) -> None:
    (home / "mcp.yaml").write_text(HAND_WRITTEN)
    editor = McpYamlEditor(home)
    editor.set_tools_allowlist("files", ["add", "echo"])
    assert "toolsAllowlist: [add, echo]" in (home / "mcp.yaml").read_text()
    assert editor.raw_entry("files")["toolsAllowlist"] == ["add", "echo"]
    editor.set_tools_allowlist("files", None)
    assert "toolsAllowlist" not in (home / "mcp.yaml").read_text()
    assert "# the docs server at work" in (home / "mcp.yaml").read_text()
