"""The OS keyring's secrets, as every surface reaches them: names, values and ``secret:NAME`` references.

``relavium secret``, Settings -> Providers, the chat tools' search key and the
welcome flow all store and read keys through the one :class:`SecretStore`
(keyring only; with no usable backend it refuses, explaining which backend
was tried -- there is no plaintext fallback).  Surfaces take the store and
its errors from here, not from the host.
"""

from __future__ import annotations

from relavium_desktop.host.secrets import (
    REF_PREFIX,
    SecretEntry,
    SecretNotFound,
    SecretStore,
    SecretStoreError,
    SecretStoreUnavailable,
    parse_ref,
)

__all__ = [
    "REF_PREFIX",
    "SecretEntry",
    "SecretNotFound",
    "SecretStore",
    "SecretStoreError",
    "SecretStoreUnavailable",
    "parse_ref",
    "secret_store",
]


def secret_store() -> SecretStore:
    """The keyring-backed store (its backend is detected on first use, not here)."""
    return SecretStore()
