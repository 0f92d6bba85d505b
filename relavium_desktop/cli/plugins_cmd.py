"""``relavium plugins list|enable NAME|disable NAME``: which ``relavium.tools`` plugins may load.

Installed plugins are listed from package metadata without being imported;
only enabled ones are imported (their tools then appear in ``relavium tools
list`` as ``plugin_<name>``).  The enabled set lives in
``$RELAVIUM_HOME/plugins.yaml``, shared with Settings → Plugins.  A plugin
that fails to import or declares an unknown capability is listed as
``refused: <reason>`` and offers nothing.  Exit 0 ok, 1 failed (enabling a
plugin that is then refused), 2 usage (an unknown plugin name).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from relavium_desktop.cli import EXIT_FAILED, EXIT_OK, UsageError
from relavium_desktop.cli.jsonargs import action_failed, print_result

if TYPE_CHECKING:
    from relavium_desktop.application.paths import AppPaths

ACTIONS = ("list", "enable", "disable")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=ACTIONS, help="what to do")
    p.add_argument("name", nargs="?", metavar="NAME", help="plugin name (enable, disable)")
    p.add_argument("--json", action="store_true", help="print JSON only")


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.application.plugins import (
        PluginsFileError,
        installed_plugin_names,
        plugin_statuses,
        set_plugin_enabled,
    )

    paths: AppPaths = args.app.paths  # the entry point's Application's
    if args.action == "list":
        if args.name:
            raise UsageError("plugins list takes no NAME")
        from relavium_desktop.cli.settings_notices import plugins_notice, say

        say(plugins_notice(paths.home))
        rows = plugin_statuses(paths)
        text = "\n".join(r.describe() for r in rows) or "no plugins installed (entry point group relavium.tools)"
        print_result(args.json, {"ok": True, "plugins": [r.to_json() for r in rows]}, text)
        return EXIT_OK
    if not args.name:
        raise UsageError(f"plugins {args.action} needs a NAME")
    names = installed_plugin_names()
    if args.action == "enable" and args.name not in names:
        raise UsageError(f"no installed plugin named {args.name!r}"
                         + (f" (installed: {', '.join(sorted(names))})" if names else ""))
    try:
        enabled = set_plugin_enabled(paths, args.name, args.action == "enable")
    except (PluginsFileError, OSError) as exc:
        return action_failed(args.json, f"plugins {args.action}", "validation", str(exc))
    row = next((r for r in plugin_statuses(paths) if r.name == args.name), None)
    if args.action == "enable" and row is not None and row.state == "refused":
        return action_failed(args.json, "plugins enable", "plugin_refused",
                             f"{args.name} is enabled but refused: {row.reason}", {"plugin": row.to_json()})
    out = {"ok": True, "enabled": enabled, "plugin": row.to_json() if row is not None else {"name": args.name}}
    text = row.describe() if row is not None else f"{args.name}: disabled"
    print_result(args.json, out, text)
    return EXIT_OK if row is None or row.state != "refused" or args.action == "disable" else EXIT_FAILED
