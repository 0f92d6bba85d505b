"""``settings_notices.say_all``: one warning line per settings file running on its .bak, none otherwise.

In process, on real files: the helper a command that reads all three files
(chat, run, agent) calls once at its start.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relavium_desktop.cli.settings_notices import say_all
from relavium_desktop.host.mcp.editing import McpYamlEditor
from relavium_desktop.host.plugins import set_enabled


def test_say_all_names_only_the_files_running_on_their_backup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    say_all(tmp_path)  # nothing there: nothing said
    set_enabled(tmp_path, "a", True)
    set_enabled(tmp_path, "b", True)
    editor = McpYamlEditor(tmp_path)
    editor.add_server("one", {"transport": "stdio", "command": "/bin/true"})
    (tmp_path / "providers.yaml").write_text("providers: [")  # broken, but no .bak: its loader reports it
    say_all(tmp_path)
    assert capsys.readouterr().err == ""
    (tmp_path / "plugins.yaml").write_text("enabled: [")
    say_all(tmp_path)
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "relavium: warning: plugins.yaml: not valid YAML (ParserError) -- the last good version (plugins.yaml.bak) "
        "is in use; edits are not saved until plugins.yaml is fixed or removed"
    ]
