"""The provider settings (``providers.yaml``), the providers built from them, and the media store.

The CLI, workflows and every view read the same settings file and the same
``secret:``/``env:`` key references: the app edits that file, it keeps no
provider settings of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.application.paths import AppPaths

if TYPE_CHECKING:
    from relavium_desktop.host.media import MediaHost
    from relavium_desktop.providers.config import ProviderEntry
    from relavium_desktop.providers.factory import ProviderSet
    from relavium_desktop.providers.store import ProviderStore


def _home(home: Path | None) -> Path:
    """``home``, or the data folder for a caller that was not handed the Application's paths."""
    return home if home is not None else AppPaths.from_environment().home


def provider_store(home: Path | None = None, settings_file: Path | None = None) -> ProviderStore:
    """The one provider store: ``home/providers.yaml`` (or ``settings_file``).

    Shared per path within the process, so the CLI, workflows and every view
    read the same cached entries and see an edit as soon as the file changes.
    """
    from relavium_desktop.providers import PROVIDERS_FILE
    from relavium_desktop.providers.store import store_for

    return store_for(settings_file or _home(home) / PROVIDERS_FILE)


def provider_entries(home: Path | None = None, settings_file: Path | None = None) -> dict[str, ProviderEntry]:
    """The configured provider entries: the file's, or the built-in defaults while it does not exist.

    Raises ``ProviderConfigError`` for an unreadable or invalid file.
    """
    return provider_store(home, settings_file).entries()


def provider_set(home: Path | None = None, settings_file: Path | None = None) -> ProviderSet:
    """The provider entries (``providers.yaml``), keys and the SSRF-guarded client.

    Raises ``ProviderConfigError`` for an unreadable or invalid file.
    """
    from relavium_desktop.providers.factory import ProviderSet
    from relavium_desktop.providers.wiring import host_client_factory, host_resolver, host_validate_base_url

    return ProviderSet(
        provider_entries(home, settings_file),
        resolve_secret=host_resolver(),
        validate_base_url=host_validate_base_url,
        client_factory=host_client_factory,
    )


def media_host(home: Path | None = None) -> MediaHost:
    """The media store under ``home`` (``home/media``) with its scope grants.

    What the chat composer publishes a pasted or dropped image to: the same
    store (and grant files) every tool host uses, so the chat's turns can
    load what the user attached.
    """
    from relavium_desktop.host.media import MediaHost

    return MediaHost.at(_home(home) / "media")
