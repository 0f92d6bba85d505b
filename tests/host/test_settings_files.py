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


def test_a_broken_providers_yaml_is_refused_with_its_backup_named_and_never_rewritten(tmp_path: Path) -> None:
    store = ProviderStore(tmp_path / "providers.yaml")
    store.add("box", ProviderEntry(kind="openai", base_url="https://api.example.com/v1", api_key="env:X"))
    store.add("other", ProviderEntry(kind="openai", base_url="https://api.example.org/v1", api_key="env:Y"))
    broken = b"providers:\n  box: {kind: openai, base_url: htt"
    store.path.write_bytes(broken)
    with pytest.raises(ProviderConfigError, match=r"providers.yaml: not valid YAML.*providers.yaml.bak"):
        store.entries()
    with pytest.raises(ProviderConfigError):
        store.add("third", ProviderEntry(kind="openai", base_url="https://api.example.net/v1", api_key="env:Z"))
    assert store.path.read_bytes() == broken
    assert "box:" in backup_path(store.path).read_text()  # the last good version, to put back by hand


def test_a_broken_mcp_yaml_is_refused_with_its_backup_named_and_never_rewritten(tmp_path: Path) -> None:
    editor = McpYamlEditor(tmp_path)
    editor.add_server("one", {"transport": "stdio", "command": "/bin/true"})
    editor.add_server("two", {"transport": "stdio", "command": "/bin/false"})
    path = tmp_path / "mcp.yaml"
    broken = b"servers:\n  one: {transport: std"
    path.write_bytes(broken)
    with pytest.raises(McpConfigError, match=r"mcp.yaml: not valid YAML.*mcp.yaml.bak"):
        load_servers(tmp_path)
    with pytest.raises(McpConfigError):
        editor.add_server("three", {"transport": "stdio", "command": "/bin/echo"})
    assert path.read_bytes() == broken
    assert "one:" in backup_path(path).read_text()


def test_a_broken_plugins_yaml_is_refused_with_its_backup_named_and_never_rewritten(tmp_path: Path) -> None:
    set_enabled(tmp_path, "alpha", True)
    set_enabled(tmp_path, "beta", True)
    path = tmp_path / "plugins.yaml"
    broken = b"enabled: [alpha, be"
    path.write_bytes(broken)
    with pytest.raises(PluginsFileError, match=r"not valid YAML.*plugins.yaml.bak"):
        enabled_names(tmp_path)
    with pytest.raises(PluginsFileError):
        set_enabled(tmp_path, "gamma", True)
    assert path.read_bytes() == broken
    assert "alpha" in backup_path(path).read_text()


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
