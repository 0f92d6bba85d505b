"""Which ``relavium.tools`` plugins may load: what is installed, what the user enabled, and why one is refused.

``relavium plugins`` and Settings -> Plugins share plugins.yaml under the
data folder they are handed; both list the same states (loaded, refused with
its reason, disabled, missing) and change the enabled set the same way (an
atomic rewrite of plugins.yaml, refused while the file is broken).
"""

from __future__ import annotations

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.host.plugins import PluginsFileError, PluginStatus

__all__ = [
    "PluginStatus",
    "PluginsFileError",
    "installed_plugin_names",
    "plugin_statuses",
    "set_plugin_enabled",
]


def installed_plugin_names() -> set[str]:
    """The names of the installed plugins, from package metadata (none is imported)."""
    from relavium_desktop.host.plugins import installed

    return {info.name for info in installed()}


def plugin_statuses(paths: AppPaths) -> list[PluginStatus]:
    """Every installed (or enabled but missing) plugin with its state; imports only the enabled ones."""
    from relavium_desktop.application.tools import plugin_statuses as statuses

    return statuses(paths.home)


def set_plugin_enabled(paths: AppPaths, name: str, on: bool) -> list[str]:
    """Enable or disable ``name`` in plugins.yaml (atomically); the new enabled list.

    Raises ``PluginsFileError`` when plugins.yaml is broken (it is never
    rewritten then) and ``OSError`` when it cannot be written.
    """
    from relavium_desktop.host.plugins import set_enabled

    return set_enabled(paths.home, name, on)
