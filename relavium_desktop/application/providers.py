"""The provider settings (``providers.yaml``), the providers built from them, and the media store.

The CLI, workflows and every view read the same settings file and the same
``secret:``/``env:`` key references: the app edits that file, it keeps no
provider settings of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.providers.config import (
    DEFAULT_ENTRIES,
    ProviderConfigError,
    ProviderEntry,
    basic_validate_base_url,
)

if TYPE_CHECKING:
    from relavium_desktop.host.media import MediaHost
    from relavium_desktop.providers.check import ConnectionResult
    from relavium_desktop.providers.factory import ProviderSet
    from relavium_desktop.providers.store import ProviderStore

__all__ = [
    "DEFAULT_ENTRIES",
    "ConnectionResult",
    "ProviderConfigError",
    "ProviderEntry",
    "ProviderSet",
    "ProviderStore",
    "basic_validate_base_url",
    "connection_test",
    "entry_test",
    "media_host",
    "provider_entries",
    "provider_set",
    "provider_store",
    "saved_provider_test",
    "unusable_settings_result",
    "usable_provider_names",
    "validated_entry",
]


def provider_store(home: Path, settings_file: Path | None = None) -> ProviderStore:
    """The one provider store: ``home/providers.yaml`` (or ``settings_file``).

    Shared per path within the process, so the CLI, workflows and every view
    read the same cached entries and see an edit as soon as the file changes.
    """
    from relavium_desktop.providers import PROVIDERS_FILE
    from relavium_desktop.providers.store import store_for

    return store_for(settings_file or home / PROVIDERS_FILE)


def provider_entries(home: Path, settings_file: Path | None = None) -> dict[str, ProviderEntry]:
    """The configured provider entries: the file's, or the built-in defaults while it does not exist.

    Raises ``ProviderConfigError`` for an unreadable or invalid file.
    """
    return provider_store(home, settings_file).entries()


def provider_set(home: Path, settings_file: Path | None = None) -> ProviderSet:
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


def media_host(home: Path) -> MediaHost:
    """The media store under ``home`` (``home/media``) with its scope grants.

    What the chat composer publishes a pasted or dropped image to: the same
    store (and grant files) every tool host uses, so the chat's turns can
    load what the user attached.
    """
    from relavium_desktop.host.media import MediaHost

    return MediaHost.at(home / "media")


async def connection_test(
    paths: AppPaths, name: str, base_url: str, allow_local: bool, chat_route: str | None = None
) -> ConnectionResult:
    """Test provider ``name`` with a base URL and local opt-in not saved yet (a settings form's fields).

    ``chat_route`` (``provider/model``) names the model to ask when it is this
    provider's; otherwise one the server lists.  Never raises for a provider or
    settings problem: those are results.
    """
    from relavium_desktop.providers.check import run_connection_test

    return await run_connection_test(paths.home, name, base_url, allow_local, chat_route)


async def saved_provider_test(paths: AppPaths, name: str) -> ConnectionResult:
    """Test provider ``name`` as providers.yaml has it, with a model its server lists; never raises for it."""
    from relavium_desktop.providers.check import test_provider

    return await test_provider(paths.home, name)


async def entry_test(paths: AppPaths, name: str, entry: ProviderEntry, model: str | None = None) -> ConnectionResult:
    """Test provider ``name`` with ``entry`` as already read, asking ``model`` (else one its server lists).

    What ``relavium providers test`` runs; never raises for a provider or settings problem.
    """
    from relavium_desktop.providers.check import test_provider

    return await test_provider(paths.home, name, entry, model)


def validated_entry(data: object, *, where: str, name: str) -> ProviderEntry:
    """``data`` (a command line's or a form's fields) as an entry checked by providers.yaml's own rules.

    Raises ``ProviderConfigError`` naming ``where``, the provider and the field, never a key value.
    """
    from relavium_desktop.providers.store import validate_entry

    return validate_entry(data, where=where, name=name)


def unusable_settings_result(exc: BaseException) -> ConnectionResult:
    """The ``config`` result a surface shows when a test could not even start (only the error's type is named)."""
    from relavium_desktop.providers.check import ConnectionResult

    return ConnectionResult("config", f"The provider settings are not usable: {type(exc).__name__}")


def usable_provider_names(entries: Mapping[str, ProviderEntry], *, keyring_in_child: bool = False) -> list[str]:
    """The names among ``entries`` whose key is present or not needed (blocking: keyring reads, no network).

    ``keyring_in_child`` asks the keyring from a short-lived child process while
    this process has not loaded it (the window before its first chat).
    """
    from relavium_desktop.providers.readiness import provider_statuses, usable

    return usable(provider_statuses(entries, keyring_in_child=keyring_in_child))
