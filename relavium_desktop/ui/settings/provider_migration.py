"""Move the endpoints older versions kept in desktop-settings.ini into providers.yaml, once.

Before providers.yaml was the one provider store, Settings → Providers saved a
base URL and the local opt-in per built-in provider in the app's ini file,
where the command line never saw them.  The first start of this version
copies each saved endpoint into providers.yaml (an edit of the file, so the
user's comments stay), removes the ini keys and remembers that it ran; the
ini is never written with provider values again.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from relavium_desktop.application.providers import DEFAULT_ENTRIES, ProviderConfigError
from relavium_desktop.ui.app_settings import read_bool

if TYPE_CHECKING:
    from relavium_desktop.application.providers import ProviderStore
    from relavium_desktop.ui.qt import QSettings

log = logging.getLogger(__name__)

KEY_MIGRATED = "providers/migrated_to_yaml"
LEGACY_NAMES = tuple(DEFAULT_ENTRIES)


def migrate_ini_providers(settings: QSettings, store: ProviderStore) -> list[str]:
    """Copy the ini's saved endpoints into ``store``; the names moved (empty when nothing to do)."""
    if read_bool(settings, KEY_MIGRATED, False):
        return []
    moved: list[str] = []
    try:
        for name in LEGACY_NAMES:
            url = settings.value(f"providers/{name}/base_url")
            if not isinstance(url, str) or not url:
                continue
            local = str(settings.value(f"providers/{name}/allow_local", "false")).lower() == "true"
            entries = store.entries()
            if name not in entries:
                store.add(name, DEFAULT_ENTRIES[name].model_copy(update={"base_url": url, "allow_local": local}))
            elif (entries[name].base_url, entries[name].allow_local) != (url, local):
                store.update(name, base_url=url, allow_local=local)
            moved.append(name)
    except (ProviderConfigError, OSError, ValueError) as exc:
        # Leave the ini as it is and try again next start; the page shows the file's problem.
        log.warning("could not move provider endpoints into providers.yaml: %s", exc)
        return moved
    for name in LEGACY_NAMES:
        settings.remove(f"providers/{name}")
    settings.setValue(KEY_MIGRATED, True)
    return moved
