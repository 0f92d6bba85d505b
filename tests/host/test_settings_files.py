"""Settings files are written whole, keep one .bak, and are never rewritten because they do not parse.

providers.yaml, mcp.yaml and plugins.yaml all go through ``host.atomic``;
the full disk is a real tmpfs filled to ENOSPC.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from relavium_desktop.host.atomic import backup_path, write_text_atomic
from relavium_desktop.host.mcp.config import McpConfigError, load_servers
from relavium_desktop.host.mcp.editing import McpYamlEditor
from relavium_desktop.host.plugins import PluginsFileError, enabled_names, set_enabled
from relavium_desktop.providers.config import ProviderConfigError, ProviderEntry
from relavium_desktop.providers.store import ProviderStore
from tests.fixtures.small_disk import SmallDisk, small_disk  # noqa: F401 -- the fixture


def test_a_write_on_a_full_disk_names_the_file_and_leaves_it_and_its_backup_whole(
    small_disk: SmallDisk,  # noqa: F811
) -> None:
    path = small_disk.root / "providers.yaml"
    write_text_atomic(path, "providers: {}\n")
    write_text_atomic(path, "providers: {a: 1}\n")
    assert backup_path(path).read_text() == "providers: {}\n"
    small_disk.fill()
    with pytest.raises(OSError) as caught:
        write_text_atomic(path, "providers: {b: 2}\n" * 5000)
    assert caught.value.errno == errno.ENOSPC
    assert caught.value.filename == str(path)  # the file the user knows, not the temp
    assert path.read_text() == "providers: {a: 1}\n"
    assert backup_path(path).read_text() == "providers: {}\n"
    assert sorted(p.name for p in small_disk.root.iterdir()) == [".filler", "providers.yaml", "providers.yaml.bak"]


def test_a_broken_providers_yaml_runs_on_its_backup_in_memory_and_refuses_edits(tmp_path: Path) -> None:
    store = ProviderStore(tmp_path / "providers.yaml")
    store.add("box", ProviderEntry(kind="openai", base_url="https://api.example.com/v1", api_key="env:X"))
    store.add("other", ProviderEntry(kind="openai", base_url="https://api.example.org/v1", api_key="env:Y"))
    broken = b"providers:\n  box: {kind: openai, base_url: htt"
    store.path.write_bytes(broken)
    entries = store.entries()  # the version before the second add, from providers.yaml.bak
    assert "box" in entries and "other" not in entries
    notice = store.bak_in_use()
    assert notice is not None
    assert notice.describe().startswith("providers.yaml: not valid YAML at line 2")
    assert ("the last good version (providers.yaml.bak) is in use; edits are not saved until providers.yaml "
            "is fixed or removed") in notice.describe()
    for edit in (lambda: store.add("third", ProviderEntry(kind="openai", base_url="https://a.example.net/v1")),
                 lambda: store.update("box", timeout_s=5), lambda: store.remove("box")):
        with pytest.raises(ProviderConfigError, match=r"not saved: providers.yaml is broken .* fix or remove "
                                                      r"providers.yaml first"):
            edit()
    assert store.path.read_bytes() == broken  # never rewritten, never replaced by the .bak
    assert "other:" not in backup_path(store.path).read_text() and "box:" in backup_path(store.path).read_text()
    store.path.unlink()  # removed: the built-in defaults again, and edits work
    assert store.bak_in_use() is None and "anthropic" in store.entries()


def test_a_broken_providers_yaml_with_a_broken_backup_is_refused_naming_both(tmp_path: Path) -> None:
    path = tmp_path / "providers.yaml"
    path.write_bytes(b"providers: [")
    store = ProviderStore(path)
    with pytest.raises(ProviderConfigError, match=r"^providers.yaml: not valid YAML[^;]*$"):  # no .bak: none named
        store.entries()
    backup_path(path).write_bytes(b"providers: {box: {kind: nope}}")
    with pytest.raises(ProviderConfigError, match=r"not valid YAML.*; providers.yaml.bak does not load either"):
        store.entries()
    assert path.read_bytes() == b"providers: ["


def test_a_broken_mcp_yaml_runs_on_its_backup_in_memory_and_refuses_edits(tmp_path: Path) -> None:
    editor = McpYamlEditor(tmp_path)
    editor.add_server("one", {"transport": "stdio", "command": "/bin/true"})
    editor.add_server("two", {"transport": "stdio", "command": "/bin/false"})
    path = tmp_path / "mcp.yaml"
    broken = b"servers:\n  one: {transport: std"
    path.write_bytes(broken)
    assert list(load_servers(tmp_path)) == ["one"]
    assert list(editor.servers()) == ["one"] and editor.raw_entry("one")["command"] == "/bin/true"
    notice = editor.bak_in_use()
    assert notice is not None and "the last good version (mcp.yaml.bak) is in use" in notice.describe()
    for edit in (lambda: editor.add_server("three", {"transport": "stdio", "command": "/bin/echo"}),
                 lambda: editor.update_server("one", {"args": ["-x"]}), lambda: editor.remove_server("one"),
                 lambda: editor.rename_server("one", "uno")):
        with pytest.raises(McpConfigError, match=r"not saved: mcp.yaml is broken .* fix or remove mcp.yaml first"):
            edit()
    assert path.read_bytes() == broken
    backup_path(path).write_bytes(b"servers: {one: {transport: carrier-pigeon}}")  # the copy breaks too
    with pytest.raises(McpConfigError, match=r"mcp.yaml: not valid YAML.*mcp.yaml.bak does not load either"):
        load_servers(tmp_path)


def test_a_broken_plugins_yaml_runs_on_its_backup_in_memory_and_refuses_edits(tmp_path: Path) -> None:
    set_enabled(tmp_path, "alpha", True)
    set_enabled(tmp_path, "beta", True)
    path = tmp_path / "plugins.yaml"
    broken = b"enabled: [alpha, be"
    path.write_bytes(broken)
    assert enabled_names(tmp_path) == ["alpha"]
    with pytest.raises(PluginsFileError, match=r"not saved: plugins.yaml is broken \(plugins.yaml: not valid YAML"):
        set_enabled(tmp_path, "gamma", True)
    assert path.read_bytes() == broken
    backup_path(path).unlink()
    with pytest.raises(PluginsFileError, match=r"^plugins.yaml: not valid YAML"):
        enabled_names(tmp_path)


def test_an_append_cut_short_by_a_full_disk_is_truncated_back(small_disk: SmallDisk) -> None:  # noqa: F811
    from relavium_desktop.engine.errors import ToolFailedError
    from relavium_desktop.host.fs import PathPolicy
    from relavium_desktop.host.fs.writer import write_file

    ws = small_disk.root / "ws"
    ws.mkdir()
    (ws / "log.txt").write_text("x" * 3600)
    small_disk.fill(leave=12288)  # room for three pages of the 40 kB: a short write, then ENOSPC
    policy = PathPolicy.create(ws)
    with pytest.raises(ToolFailedError, match=r"cannot write log\.txt: the disk is full"):
        write_file(policy, "log.txt", "y" * 40000, append=True, create_parents=False)
    assert os.path.getsize(ws / "log.txt") == 3600
    assert (ws / "log.txt").read_text() == "x" * 3600
