"""application.settings_files: which settings files do not parse, and which run on their last good .bak.

On real files: plugins.yaml written twice (so its .bak exists) then broken
runs on the .bak; a broken mcp.yaml with no .bak is refused with an error
naming it; absent files report nothing; desktop-settings.ini's .bak copy is
refreshed only when the file changed.
"""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.application.settings_files import (
    backup_of,
    mcp_backup,
    plugins_backup,
    refresh_backup,
    settings_file_states,
)
from relavium_desktop.host.plugins import set_enabled


def test_absent_files_have_no_problem(tmp_path: Path) -> None:
    paths = AppPaths(tmp_path)
    assert settings_file_states(paths) == []
    assert mcp_backup(paths) is None and plugins_backup(paths) is None


def test_a_broken_file_runs_on_its_bak_or_is_refused_naming_itself(tmp_path: Path) -> None:
    paths = AppPaths(tmp_path)
    set_enabled(tmp_path, "a", True)
    set_enabled(tmp_path, "b", True)  # the second write keeps the first as plugins.yaml.bak
    paths.plugins_file.write_text("enabled: [")
    paths.mcp_file.write_text("servers: [")

    states = settings_file_states(paths)

    assert [s.kind for s in states] == ["mcp", "plugins"]
    mcp, plugins = states
    assert mcp.backup is None and mcp.refused is not None and "mcp.yaml" in str(mcp.refused)
    assert plugins.refused is None and plugins.backup is not None
    assert "plugins.yaml.bak" in plugins.backup.describe()
    assert plugins_backup(paths) == plugins.backup
    assert mcp_backup(paths) is None  # no usable copy: the loader's own error is what a command reports


def test_the_ini_backup_is_refreshed_only_when_the_file_changed(tmp_path: Path) -> None:
    ini = tmp_path / "desktop-settings.ini"
    ini.write_text("[window]\ngeometry=1\n")
    refresh_backup(ini)
    bak = backup_of(ini)
    assert bak.read_text() == "[window]\ngeometry=1\n"
    stamp = bak.stat().st_mtime_ns
    refresh_backup(ini)
    assert bak.stat().st_mtime_ns == stamp  # unchanged: not rewritten
    ini.write_text("")
    refresh_backup(ini)
    assert bak.read_text() == "[window]\ngeometry=1\n"  # an empty file never replaces the last good copy
