"""The window says when a broken providers.yaml, mcp.yaml or plugins.yaml runs on its last good .bak.

Real files: each saved twice through its own writer (so a ``.bak`` exists),
then broken by hand.  The banner names each file, why it is broken and that
its ``.bak`` is in use until it is fixed; the broken files stay as they were.
"""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.host.mcp.editing import McpYamlEditor
from relavium_desktop.host.plugins import set_enabled
from relavium_desktop.providers.config import ProviderEntry
from relavium_desktop.providers.store import ProviderStore
from relavium_desktop.ui.qt import Qt


def test_the_banner_says_which_backup_is_in_use(make_window, qtbot, relavium_home: Path) -> None:
    store = ProviderStore(relavium_home / "providers.yaml")
    store.add("box", ProviderEntry(kind="openai", base_url="https://api.example.com/v1", api_key="env:X"))
    store.add("later", ProviderEntry(kind="openai", base_url="https://api.example.org/v1", api_key="env:Y"))
    editor = McpYamlEditor(relavium_home)
    editor.add_server("one", {"transport": "stdio", "command": "/bin/true"})
    editor.add_server("two", {"transport": "stdio", "command": "/bin/false"})
    set_enabled(relavium_home, "alpha", True)
    set_enabled(relavium_home, "beta", True)
    broken = {
        "providers.yaml": b"providers:\n  box: {kind: openai, base_url: htt",
        "mcp.yaml": b"servers: [",
        "plugins.yaml": b"enabled: [alpha, be",
    }
    for name, data in broken.items():
        (relavium_home / name).write_bytes(data)

    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    banner = window.settings_problems
    qtbot.waitUntil(lambda: len(banner.lines) == 3)
    assert banner.isVisible()
    for name in broken:
        line = next(x for x in banner.lines if x.startswith(f"{name}:"))
        assert f"{name}: not valid YAML" in line
        assert line.endswith(
            f"the last good version ({name}.bak) is in use; edits are not saved until {name} "
            "is fixed or removed."
        )
    window.close()
    for name, data in broken.items():
        assert (relavium_home / name).read_bytes() == data, name


def test_settings_mcp_lists_the_backup_and_an_edit_is_refused_with_the_dialog_kept(
    make_window, relavium_home: Path
) -> None:
    editor = McpYamlEditor(relavium_home)
    editor.add_server("one", {"transport": "stdio", "command": "/bin/true"})
    editor.add_server("two", {"transport": "stdio", "command": "/bin/false"})
    path = relavium_home / "mcp.yaml"
    broken = b"servers:\n  one: {transport: std"
    path.write_bytes(broken)

    page = make_window().show_settings("mcp").mcp
    assert [
        page.server_list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(page.server_list.count())
    ] == ["one"]  # what runs: the servers of mcp.yaml.bak
    assert not page.file_error.isHidden()
    assert "the last good version (mcp.yaml.bak) is in use" in page.file_error.text()
    assert not page.add_button.isEnabled()
    dialog = page.open_edit_dialog("one")
    assert dialog is not None and dialog.command_edit.text() == "/bin/true"
    dialog.command_edit.setText("/bin/echo")
    dialog.save_button.click()
    assert dialog.isVisible() and dialog.command_edit.text() == "/bin/echo"  # what was typed stays on screen
    assert "fix or remove mcp.yaml first" in dialog.status.text()
    assert path.read_bytes() == broken
