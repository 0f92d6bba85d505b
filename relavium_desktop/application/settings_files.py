"""providers.yaml, mcp.yaml and plugins.yaml: does each parse, and is Relavium running on its last good ``.bak``?

A broken settings file is never rewritten: its loader either refuses it (the
error names the file) or runs, in memory, on its ``.bak`` and refuses edits
until the file is fixed.  The window's banner and the CLI's warning lines
ask here, so both surfaces name the same files for the same reasons; each
only words what it shows.  A parser is imported only for a file that exists
(mcp.yaml's would load the whole MCP host), so asking about absent files
costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.host.settings_bak import BakInUse

if TYPE_CHECKING:
    from relavium_desktop.providers.store import ProviderStore

__all__ = [
    "BakInUse",
    "ProviderStore",
    "SettingsFileState",
    "backup_note",
    "backup_of",
    "mcp_backup",
    "plugins_backup",
    "providers_backup",
    "refresh_backup",
    "settings_file_states",
]


@dataclass(frozen=True, slots=True)
class SettingsFileState:
    """One settings file that does not parse: refused outright, or running on its ``.bak``.

    ``kind`` is ``"providers"``, ``"mcp"`` or ``"plugins"``; exactly one of
    ``refused`` (the loader's error, which names the file) and ``backup``
    is set.
    """

    kind: str
    refused: Exception | None = None
    backup: BakInUse | None = None


def providers_backup(store: ProviderStore) -> BakInUse | None:
    """Why ``store``'s entries come from providers.yaml.bak, or None (also when no usable copy exists)."""
    from relavium_desktop.providers.config import ProviderConfigError

    try:
        return store.bak_in_use()
    except ProviderConfigError:
        return None  # no usable copy: whatever reads the file reports its error itself


def mcp_backup(paths: AppPaths) -> BakInUse | None:
    """Why the MCP servers come from mcp.yaml.bak, or None (also when no usable copy exists)."""
    from relavium_desktop.host.mcp.config import McpConfigError, load_servers_noting

    try:
        return load_servers_noting(paths.home)[1]
    except McpConfigError:
        return None


def plugins_backup(paths: AppPaths) -> BakInUse | None:
    """Why the enabled plugins come from plugins.yaml.bak, or None (also when no usable copy exists)."""
    from relavium_desktop.host.plugins import PluginsFileError, enabled_names_noting

    try:
        return enabled_names_noting(paths.home)[1]
    except PluginsFileError:
        return None


def settings_file_states(paths: AppPaths) -> list[SettingsFileState]:
    """Each of providers.yaml, mcp.yaml and plugins.yaml that does not parse, in that order; [] when all do.

    A file that is absent, with no ``.bak`` either, cannot be broken: its
    parser is not imported.  Nothing here writes.
    """

    def present(name: str) -> bool:
        return (paths.home / name).exists() or (paths.home / f"{name}.bak").exists()

    states: list[SettingsFileState] = []
    if present(paths.providers_file.name):
        from relavium_desktop.application.providers import provider_store
        from relavium_desktop.providers.config import ProviderConfigError

        try:
            notice = provider_store(paths.home).bak_in_use()
        except ProviderConfigError as exc:
            states.append(SettingsFileState("providers", refused=exc))
        else:
            states += [SettingsFileState("providers", backup=notice)] if notice is not None else []
    if present(paths.mcp_file.name):
        from relavium_desktop.host.mcp.config import McpConfigError, load_servers_noting

        try:
            notice = load_servers_noting(paths.home)[1]
        except McpConfigError as exc:
            states.append(SettingsFileState("mcp", refused=exc))
        else:
            states += [SettingsFileState("mcp", backup=notice)] if notice is not None else []
    if present(paths.plugins_file.name):
        from relavium_desktop.host.plugins import PluginsFileError, enabled_names_noting

        try:
            notice = enabled_names_noting(paths.home)[1]
        except PluginsFileError as exc:
            states.append(SettingsFileState("plugins", refused=exc))
        else:
            states += [SettingsFileState("plugins", backup=notice)] if notice is not None else []
    return states


def backup_of(path: Path) -> Path:
    """Where ``path``'s last good copy lives (``NAME.bak`` beside it)."""
    from relavium_desktop.host.atomic import backup_path

    return backup_path(path)


def backup_note(path: Path) -> str:
    """``"; the last good version is kept in NAME.bak"`` when ``path`` has one, else ``""`` (for an error message)."""
    from relavium_desktop.host.atomic import backup_note as note

    return note(path)


def refresh_backup(path: Path) -> None:
    """Copy a good, non-empty settings file to its ``.bak`` when it changed since the last copy.

    Best effort, for files the app reads at start-up (desktop-settings.ini):
    a full disk or a read-only folder leaves the copy stale and never blocks
    a start.
    """
    from relavium_desktop.host.atomic import backup_path, write_text_atomic

    try:
        data = path.read_bytes()
        if not data:
            return
        bak = backup_path(path)
        try:
            if bak.read_bytes() == data:
                return
        except FileNotFoundError:
            pass
        write_text_atomic(bak, data.decode("utf-8"), keep_backup=False)
    except (OSError, UnicodeDecodeError):
        return  # the settings still work, only the copy is stale
