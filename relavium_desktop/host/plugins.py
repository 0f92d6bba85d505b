"""Installed ``relavium.tools`` plugins: listed without importing, loaded only once enabled.

Installing a Python package must not run its code inside the app: a plugin
is third-party code with the user's privileges.  So listing reads only the
installed distributions' metadata (``importlib.metadata`` entry points) and
importing happens in :func:`load_enabled` for the names the user enabled,
persisted in ``$RELAVIUM_HOME/plugins.yaml``::

    enabled: [wordcount]

A plugin that fails to import, exports no :class:`PluginTool`, declares an
unknown capability or exports a tool id another plugin already took
(plugins load in name order; the first keeps the id) is *refused*: it stays
listed with the reason and its tools are not offered.  Nothing a plugin does at import time may crash the app or the CLI.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

from relavium_desktop.engine.tools.plugin_api import (
    PluginRefused,
    PluginTool,
    check_plugin_tool,
    make_plugin_tool,
    plugin_tool_id,
)
from relavium_desktop.engine.tools.tooldef import ToolDef
from relavium_desktop.host.atomic import write_text_atomic
from relavium_desktop.host.settings_bak import BakInUse, load_or_bak

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "relavium.tools"
PLUGINS_FILE = "plugins.yaml"


class PluginsFileError(Exception):
    """``plugins.yaml`` cannot be read or is not ``enabled: [names]``."""


@dataclass(frozen=True, slots=True)
class PluginInfo:
    """One installed plugin as the metadata describes it (nothing imported)."""

    name: str
    value: str  # the entry point, ``module:attribute``
    dist: str | None
    version: str | None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "entryPoint": self.value, "distribution": self.dist, "version": self.version}


@dataclass(slots=True)
class LoadReport:
    """What loading the enabled plugins gave: tools, and a reason per refused plugin."""

    tools: list[ToolDef] = field(default_factory=list)
    tool_ids: dict[str, list[str]] = field(default_factory=dict)  # plugin -> its tool ids
    refused: dict[str, str] = field(default_factory=dict)  # plugin -> reason
    missing: list[str] = field(default_factory=list)  # enabled but not installed


def installed() -> list[PluginInfo]:
    """Every installed entry point in ``relavium.tools``, by name, without importing any of them."""
    found: dict[str, PluginInfo] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        found.setdefault(ep.name, PluginInfo(
            name=ep.name, value=ep.value,
            dist=getattr(dist, "name", None), version=getattr(dist, "version", None),
        ))
    return [found[k] for k in sorted(found)]


def _plugins_path(home: Path) -> Path:
    return home / PLUGINS_FILE


def enabled_names(home: Path) -> list[str]:
    """The names the user enabled (an absent file: none).

    A broken file whose last good copy (``plugins.yaml.bak``) loads runs on
    that copy, in memory (:func:`enabled_names_noting` says so); otherwise it
    raises PluginsFileError.
    """
    return enabled_names_noting(home)[0]


def enabled_names_noting(home: Path) -> tuple[list[str], BakInUse | None]:
    """:func:`enabled_names`, and a :class:`BakInUse` when the names come from ``plugins.yaml.bak``."""
    return load_or_bak(_plugins_path(home), _enabled_names_at, PluginsFileError)


def _enabled_names_at(path: Path) -> list[str]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise PluginsFileError(
            f"{PLUGINS_FILE}: cannot read ({getattr(exc, 'strerror', None) or type(exc).__name__})") from None
    try:
        data = YAML(typ="safe").load(text)
    except YAMLError as exc:
        raise PluginsFileError(f"{PLUGINS_FILE}: not valid YAML ({type(exc).__name__})") from None
    if data is None:
        return []
    enabled = data.get("enabled") if isinstance(data, dict) else None
    if not isinstance(data, dict) or set(data) - {"enabled"} or not isinstance(enabled, list) or not all(
        isinstance(n, str) for n in enabled
    ):
        raise PluginsFileError(f"{PLUGINS_FILE}: expected 'enabled: [plugin names]' and nothing else")
    return sorted(set(enabled))


def set_enabled(home: Path, name: str, on: bool) -> list[str]:
    """Enable or disable ``name`` (atomically rewrites ``plugins.yaml``); returns the new enabled list."""
    from ruamel.yaml import YAML

    current, notice = enabled_names_noting(home)  # a broken file raises here, before anything is written
    if notice is not None:
        raise PluginsFileError(notice.refusal())
    names = set(current)
    names = names | {name} if on else names - {name}
    path = _plugins_path(home)
    buf = io.StringIO()
    buf.write("# Relavium plugins the user enabled (relavium plugins enable|disable NAME)\n")
    YAML(typ="safe", pure=True).dump({"enabled": sorted(names)}, buf)
    write_text_atomic(path, buf.getvalue())
    return sorted(names)


def _exported(obj: object) -> list[PluginTool]:
    items: Iterable[object] = obj if isinstance(obj, list | tuple) else [obj]
    tools = [check_plugin_tool(item) for item in items]
    if not tools:
        raise PluginRefused("exports no PluginTool")
    return tools


def _load_one(ep: EntryPoint) -> list[PluginTool]:
    try:
        obj = ep.load()
    except Exception as exc:  # noqa: BLE001 -- third-party import code: any failure is a refusal
        raise PluginRefused(f"failed to import ({type(exc).__name__}: {str(exc)[:200]})") from None
    if callable(obj) and not isinstance(obj, PluginTool) and not isinstance(obj, type):
        try:
            obj = obj()  # a factory returning the tool(s)
        except Exception as exc:  # noqa: BLE001
            raise PluginRefused(f"its entry point failed ({type(exc).__name__}: {str(exc)[:200]})") from None
    return _exported(obj)


def load_enabled(home: Path, reserved: Collection[str] = ()) -> LoadReport:
    """Import the enabled plugins (only those) and build their tools; never raises for a bad plugin.

    ``reserved`` are ids already taken (built-ins): a plugin tool with one is refused.
    """
    report = LoadReport()
    try:
        wanted = enabled_names(home)
    except PluginsFileError as exc:
        log.warning("plugins: %s", exc)
        report.refused[PLUGINS_FILE] = str(exc)
        return report
    if not wanted:
        # Every registry is built through here: with nothing enabled, skip scanning every
        # installed distribution's metadata (most of the cost of a registry).
        return report
    eps = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    taken = set(reserved)
    for name in wanted:
        ep = eps.get(name)
        if ep is None:
            report.missing.append(name)
            continue
        try:
            tools = _load_one(ep)
            ids = [plugin_tool_id(t.name) for t in tools]
            clash = sorted((set(ids) & taken) | {i for i in ids if ids.count(i) > 1})
            if clash:
                raise PluginRefused(f"tool id(s) {', '.join(clash)} already taken")
        except PluginRefused as exc:
            log.warning("plugin %s refused: %s", name, exc)
            report.refused[name] = str(exc)
            continue
        taken.update(ids)
        report.tool_ids[name] = ids
        report.tools.extend(make_plugin_tool(t) for t in tools)
    return report


@dataclass(frozen=True, slots=True)
class PluginStatus:
    """One plugin as the user sees it in ``relavium plugins list`` and Settings → Plugins."""

    name: str
    state: str  # "loaded" | "refused" | "disabled" | "missing" (enabled, no longer installed)
    info: PluginInfo | None = None
    tools: tuple[str, ...] = ()
    reason: str | None = None

    @property
    def enabled(self) -> bool:
        return self.state != "disabled"

    def to_json(self) -> dict[str, Any]:
        base = self.info.to_json() if self.info is not None else {"name": self.name}
        return {**base, "enabled": self.enabled, "state": self.state, "tools": list(self.tools),
                "reason": self.reason}

    def describe(self) -> str:
        """One line: what the plugin is and why it is (not) offering tools."""
        version = f" {self.info.version}" if self.info is not None and self.info.version else ""
        if self.state == "loaded":
            return f"{self.name}{version}: enabled, tools {', '.join(self.tools) or '(none)'}"
        if self.state == "refused":
            return f"{self.name}{version}: refused: {self.reason}"
        if self.state == "missing":
            return f"{self.name}: enabled but not installed"
        return f"{self.name}{version}: disabled"


def statuses(home: Path, reserved: Collection[str] = ()) -> list[PluginStatus]:
    """Every installed plugin with its state; importing only the enabled ones."""
    report = load_enabled(home, reserved)
    try:
        wanted = set(enabled_names(home))
    except PluginsFileError:
        wanted = set()
    out: list[PluginStatus] = []
    for info in installed():
        if info.name in report.tool_ids:
            out.append(PluginStatus(info.name, "loaded", info, tuple(report.tool_ids[info.name])))
        elif info.name in report.refused:
            out.append(PluginStatus(info.name, "refused", info, reason=report.refused[info.name]))
        elif info.name in wanted:  # enabled, installed, but not loaded: cannot happen unless refused
            out.append(PluginStatus(info.name, "refused", info, reason="not loaded"))
        else:
            out.append(PluginStatus(info.name, "disabled", info))
    out.extend(PluginStatus(name, "missing") for name in report.missing)
    if PLUGINS_FILE in report.refused:
        out.append(PluginStatus(PLUGINS_FILE, "refused", reason=report.refused[PLUGINS_FILE]))
    return out


def import_module_name(info: PluginInfo) -> str:
    """The module an entry point would import (for checks that it was not)."""
    return info.value.split(":", 1)[0].strip()


__all__ = [
    "ENTRY_POINT_GROUP", "PLUGINS_FILE", "LoadReport", "PluginInfo", "PluginStatus", "PluginsFileError",
    "enabled_names", "import_module_name", "installed", "load_enabled", "set_enabled", "statuses",
]
