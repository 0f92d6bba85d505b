"""A broken providers.yaml, mcp.yaml or plugins.yaml runs on its last good .bak, through the real CLI.

Each file is saved twice (so the first version is its ``.bak``), then broken
by hand.  The command works from the ``.bak``, says so in one stderr line,
leaves the broken file byte for byte, and an edit is refused saying to fix or
remove the file first.  mcp.yaml has no CLI editor: it is saved with the
Settings page's writer (``McpYamlEditor``) and served by the real fixture MCP
server (tests/fixtures/mcp_server.py).  plugins.yaml uses the example plugin
(examples/relavium-plugin-wordcount, installed by scripts/setup).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from relavium_desktop.host.mcp.config import McpConfigError
from relavium_desktop.host.mcp.editing import McpYamlEditor
from tests.helpers import run_cli

SERVER = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_server.py"


def _warning(err: str, name: str) -> str:
    """The one stderr line about ``name`` running on its .bak."""
    lines = [line for line in err.splitlines() if line.startswith(f"relavium: warning: {name}:")]
    assert len(lines) == 1, err
    return lines[0]


def test_providers_list_runs_on_the_backup_and_add_remove_refuse(
    cli_env: dict[str, str],
    relavium_home: Path,
) -> None:
    code, _, err = run_cli("providers", "add", "box", "--kind", "openai", "--api-key", "env:X", env=cli_env)
    assert code == 0, err
    code, _, err = run_cli("providers", "add", "later", "--kind", "gemini", "--api-key", "env:Y", env=cli_env)
    assert code == 0, err
    path = relavium_home / "providers.yaml"
    broken = b"providers: [\n  {box: "
    path.write_bytes(broken)

    code, out, err = run_cli("providers", "list", "--json", env=cli_env)
    assert code == 0, err
    names = [row["name"] for row in out]
    assert "box" in names and "later" not in names  # the version before the second add
    line = _warning(err, "providers.yaml")
    assert line == (
        "relavium: warning: providers.yaml: not valid YAML at line 2, column 9 (ParserError) -- the last "
        "good version (providers.yaml.bak) is in use; edits are not saved until providers.yaml is fixed "
        "or removed"
    )
    code, out, err = run_cli("providers", "list", env=cli_env)
    assert code == 0 and "box" in out and "warning: providers.yaml" in err

    for edit in (("add", "third", "--kind", "openai", "--api-key", "env:Z"), ("remove", "box")):
        code, _, err = run_cli("providers", *edit, env=cli_env)
        assert code == 1, err
        assert "not saved: providers.yaml is broken" in err
        assert "fix or remove providers.yaml first" in err
        assert path.read_bytes() == broken  # neither rewritten nor replaced by the .bak

    path.unlink()  # removed: the built-in defaults, no warning, and edits are saved again
    code, out, err = run_cli(
        "providers", "add", "third", "--kind", "openai", "--api-key", "env:Z", env=cli_env
    )
    assert code == 0 and "warning" not in err, err


def test_providers_list_without_a_usable_backup_still_fails_naming_the_file(
    cli_env: dict[str, str],
    relavium_home: Path,
) -> None:
    (relavium_home / "providers.yaml").write_bytes(b"providers: [")
    code, _, err = run_cli("providers", "list", env=cli_env)
    assert code == 1
    assert "providers.yaml: not valid YAML" in err and ".bak" not in err and "warning" not in err


def test_tools_list_runs_the_mcp_servers_of_the_backup(
    cli_env: dict[str, str],
    relavium_home: Path,
    tmp_path: Path,
) -> None:
    editor = McpYamlEditor(relavium_home)  # what Settings -> MCP servers writes
    editor.add_server("fx", {"transport": "stdio", "command": sys.executable, "args": [str(SERVER), "stdio"]})
    editor.add_server("later", {"transport": "stdio", "command": "/bin/false"})
    path = relavium_home / "mcp.yaml"
    broken = b"servers:\n  fx: {transport: std"
    path.write_bytes(broken)

    code, out, err = run_cli(
        "tools", "list", "--json", "--workspace", str(tmp_path), env=cli_env, timeout=120
    )
    assert code == 0, err
    ids = {row["id"]: row for row in out}
    assert ids["mcp_fx_echo"]["server"] == "fx"  # discovered from the server mcp.yaml.bak configures
    assert not any(i.startswith("mcp_later_") for i in ids)
    line = _warning(err, "mcp.yaml")
    assert "mcp.yaml: not valid YAML" in line
    assert line.endswith(
        "the last good version (mcp.yaml.bak) is in use; edits are not saved until mcp.yaml is "
        "fixed or removed"
    )
    assert path.read_bytes() == broken

    with pytest.raises(
        McpConfigError, match=r"not saved: mcp.yaml is broken .* fix or remove mcp.yaml first"
    ):
        editor.update_server("fx", {"args": [str(SERVER), "stdio", "--changed"]})
    assert path.read_bytes() == broken


def test_plugins_list_runs_on_the_backup_and_enable_refuses(
    cli_env: dict[str, str], relavium_home: Path
) -> None:
    code, _, err = run_cli("plugins", "enable", "wordcount", env=cli_env)
    assert code == 0, err
    code, _, err = run_cli("plugins", "disable", "wordcount", env=cli_env)
    assert code == 0, err
    path = relavium_home / "plugins.yaml"
    broken = b"enabled: [wordc"
    path.write_bytes(broken)

    code, out, err = run_cli("plugins", "list", "--json", env=cli_env)
    assert code == 0, err
    row = next(p for p in out["plugins"] if p["name"] == "wordcount")
    assert row["state"] == "loaded"  # enabled in plugins.yaml.bak, the version before the disable
    assert not any(p["name"] == "plugins.yaml" for p in out["plugins"])
    line = _warning(err, "plugins.yaml")
    assert line.startswith("relavium: warning: plugins.yaml: not valid YAML")
    assert line.endswith(
        "the last good version (plugins.yaml.bak) is in use; edits are not saved until "
        "plugins.yaml is fixed or removed"
    )

    for action in ("enable", "disable"):
        code, _, err = run_cli("plugins", action, "wordcount", env=cli_env)
        assert code == 1, err
        assert "not saved: plugins.yaml is broken" in err and "fix or remove plugins.yaml first" in err
    assert path.read_bytes() == broken


def test_tool_call_and_run_say_the_backup_is_in_use_in_text_and_as_json(
    cli_env: dict[str, str],
    relavium_home: Path,
    tmp_path: Path,
) -> None:
    for name in ("box", "later"):
        code, _, err = run_cli("providers", "add", name, "--kind", "openai", "--api-key", "env:X", env=cli_env)
        assert code == 0, err
    (relavium_home / "providers.yaml").write_bytes(b"providers: [\n  {box: ")
    (tmp_path / "note.txt").write_text("hello")

    code, _, err = run_cli("tool", "call", "read_file", "--workspace", str(tmp_path),
                           "--args", '{"path": "note.txt"}', env=cli_env)
    assert code == 0, err
    assert "providers.yaml.bak) is in use" in _warning(err, "providers.yaml")

    code, out, err = run_cli("tool", "call", "read_file", "--workspace", str(tmp_path),
                             "--args", '{"path": "note.txt"}', "--json", env=cli_env)
    assert code == 0 and out["ok"], err
    import json

    notices = [json.loads(line) for line in err.splitlines() if line.strip()]
    assert [n["type"] for n in notices] == ["warning"]  # stderr stays JSON under --json
    assert notices[0]["code"] == "settings_backup_in_use" and "providers.yaml.bak" in notices[0]["message"]

    flow = tmp_path / "flow.relavium.yaml"
    flow.write_text(
        "schema_version: '1.0'\nworkflow:\n  name: t\n  nodes:\n"
        "    - {id: out, type: output, value: done}\n"
    )
    code, _, err = run_cli("run", str(flow), env=cli_env)
    assert "providers.yaml.bak) is in use" in _warning(err, "providers.yaml")
