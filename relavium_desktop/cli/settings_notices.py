"""One stderr line when a command runs on a settings file's last good ``.bak``.

providers.yaml, mcp.yaml and plugins.yaml fall back to their ``.bak`` in
memory when they are broken (``host.settings_bak``); the command works, but
the user must learn that the file they edit is not the one in use and that
edits are refused until it is fixed.  A file with no usable ``.bak`` is not
reported here: its loader's error is what the command reports.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from relavium_desktop.application.settings_files import BakInUse, ProviderStore


def say(notice: BakInUse | None, *, as_json: bool = False) -> None:
    """Print ``notice`` (when there is one) as a warning line on stderr.

    Under ``--json`` stderr lines are JSON (the CI contract), so the warning is
    ``{"type": "warning", "message": ...}`` rather than prose a parser chokes on.
    """
    if notice is None:
        return
    if as_json:
        print(json.dumps({"type": "warning", "code": "settings_backup_in_use", "message": notice.describe()}),
              file=sys.stderr)
    else:
        print(f"relavium: warning: {notice.describe()}", file=sys.stderr)


def providers_notice(store: ProviderStore) -> BakInUse | None:
    from relavium_desktop.application.settings_files import providers_backup

    return providers_backup(store)  # None without a usable copy: the command reports the file's error itself


def mcp_notice(home: Path) -> BakInUse | None:
    from relavium_desktop.application.paths import AppPaths
    from relavium_desktop.application.settings_files import mcp_backup

    return mcp_backup(AppPaths(home))


def plugins_notice(home: Path) -> BakInUse | None:
    from relavium_desktop.application.paths import AppPaths
    from relavium_desktop.application.settings_files import plugins_backup

    return plugins_backup(AppPaths(home))


def say_all(home: Path, *, as_json: bool = False) -> None:
    """The warning line for each of providers.yaml, mcp.yaml and plugins.yaml running on its ``.bak``.

    For commands that read all three (chat, run, agent): one call at their start.
    """
    from relavium_desktop.application.providers import provider_store

    for notice in (providers_notice(provider_store(home)), mcp_notice(home), plugins_notice(home)):
        say(notice, as_json=as_json)
