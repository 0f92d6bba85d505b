"""Which models each configured provider offers, and whether it is ready to use: what a model picker shows.

Three sources, cheapest first: the price table's models for the provider's
kind (offline), the cached live list under the data folder (no network, even
a stale one, which says so), and a fresh fetch (the provider's own list,
cached for next time; never raises for a provider problem).  Readiness says
per provider whether its key is present, missing or not needed, resolving
keys without holding their values.  The window's chat picker reads all of
them from here; the data folder is the one it is handed.
"""

from __future__ import annotations

from collections.abc import Mapping

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.providers.config import ProviderConfigError, ProviderEntry
from relavium_desktop.providers.models import ModelInfo, ModelList, cached_models, fetch_models, known_models
from relavium_desktop.providers.readiness import ProviderStatus, provider_statuses

__all__ = [
    "ModelInfo",
    "ModelList",
    "ProviderConfigError",
    "ProviderEntry",
    "ProviderStatus",
    "cached_model_list",
    "fetch_model_list",
    "known_model_ids",
    "media_kinds",
    "provider_readiness",
]


def known_model_ids(kind: str) -> list[str]:
    """The model ids the price table knows for a provider ``kind`` (the offline fallback)."""
    return [model.id for model in known_models(kind)]


def cached_model_list(paths: AppPaths, name: str, base_url: str) -> ModelList | None:
    """The cached list of provider ``name`` at ``base_url`` (even a stale one, which says so), or None; no network."""
    return cached_models(paths.home, name, base_url)


async def fetch_model_list(
    paths: AppPaths, name: str, entry: ProviderEntry, *, refresh: bool = False
) -> ModelList:
    """Provider ``name``'s models: a fresh cache, else live (then cached), else the cache or defaults with a note."""
    return await fetch_models(name, entry, home=paths.home, refresh=refresh)


def provider_readiness(
    entries: Mapping[str, ProviderEntry], *, keyring_in_child: bool = False
) -> list[ProviderStatus]:
    """One status per entry, in order (key present, missing or not needed); blocking, no network.

    ``keyring_in_child`` asks the keyring from a short-lived child process
    while this process has not loaded it (the idle window's memory).
    """
    return provider_statuses(entries, keyring_in_child=keyring_in_child)


def media_kinds(kind: str, model: str) -> frozenset[str]:
    """The media kinds (image, pdf) ``model`` accepts through a provider of ``kind``: what an attach offers."""
    from relavium_desktop.providers.media_input import media_input

    return media_input(kind, model)
