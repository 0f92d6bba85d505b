"""Is each provider's key there?  Answered without the network and without showing a key.

Why: a picker should offer only providers that can answer, and a settings
page or ``relavium providers list`` should say "key missing" before a chat
turn fails on it.  Presence is looked up the way a turn resolves the key
(the keyring for ``secret:``, the environment for ``env:``); the value is
compared with nothing and dropped at once.  Blocking (the keyring talks
D-Bus): call from a worker thread in the window.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Literal

from relavium_desktop.engine.tools.masking import clip, mask_text
from relavium_desktop.providers.config import ProviderConfigError, ProviderEntry, ProviderKind

KeyState = Literal["present", "missing", "none_needed", "unavailable"]


class KeyStoreUnavailable(ProviderConfigError):
    """The secret store cannot say whether the key exists (no keyring backend, locked, no D-Bus)."""


# ``ref`` -> whether a value is set for it; raises KeyStoreUnavailable when that cannot be told.
KeyLookup = Callable[[str], bool]


def host_key_lookup(in_child: Collection[str] = ()) -> KeyLookup:
    """Presence through the host: the environment for ``env:``, the OS keyring for ``secret:``.

    One keyring store for every lookup, so its backend is detected once.
    The ``secret:`` refs in ``in_child`` are asked in one child process
    first (``host/secret_presence.py``: the window's idle memory stays free
    of the keyring stack); anything the child could not answer is asked here.
    """
    from relavium_desktop.host.secrets import (
        LINUX_HELP,
        SecretStore,
        SecretStoreError,
        SecretStoreUnavailable,
    )

    store = SecretStore()
    known: dict[str, bool] | str = {}
    names = sorted({r.partition(":")[2] for r in in_child if r.startswith("secret:")})
    if names:
        from relavium_desktop.host import secret_presence

        if secret_presence.child_usable():
            try:
                known = secret_presence.presence_in_child(names)
            except secret_presence.ChildFailed:
                known = {}

    def lookup(ref: str) -> bool:
        scheme, _, name = ref.partition(":")
        if scheme == "env":
            return bool(os.environ.get(name))
        if isinstance(known, str):
            raise KeyStoreUnavailable(known.replace(LINUX_HELP, "").strip())
        if name in known:
            return known[name]
        try:
            return store.has(name)  # no value read; no keyring created or unlocked
        except SecretStoreUnavailable as exc:
            raise KeyStoreUnavailable(str(exc).replace(LINUX_HELP, "").strip()) from None
        except SecretStoreError:
            return False  # a name the keyring cannot hold is a key that is not there

    return lookup


def key_state(entry: ProviderEntry, resolve: KeyLookup) -> KeyState:
    """Whether ``entry``'s key is present, missing, not needed or cannot be checked now."""
    if not entry.api_key:
        return "none_needed"
    try:
        return "present" if resolve(entry.api_key) else "missing"
    except KeyStoreUnavailable:
        return "unavailable"


@dataclass(frozen=True)
class ProviderStatus:
    name: str
    kind: ProviderKind
    base_url: str
    key_ref: str | None
    key_state: KeyState
    detail: str


def _detail(entry: ProviderEntry, state: KeyState, why: str = "") -> str:
    ref = entry.api_key or ""
    scheme, _, key_name = ref.partition(":")
    if state == "none_needed":
        return "no key configured (a keyless server)"
    if state == "present":
        return f"key found ({ref})"
    if state == "unavailable":
        return clip(mask_text(f"cannot check {ref} — {why or 'the keyring is not available'}"), 300)
    if scheme == "env":
        return f"environment variable {key_name} is not set"
    return f"secret {key_name!r} is not in the keyring; set it with 'relavium secret set {key_name}'"


def provider_statuses(
    entries: Mapping[str, ProviderEntry], resolve: KeyLookup | None = None, *, keyring_in_child: bool = False
) -> list[ProviderStatus]:
    """One status per entry, in the entries' order; blocking (keyring), no network.

    ``keyring_in_child``: the window's checks ask the keyring from a child
    process while this one has not loaded it (see :func:`host_key_lookup`).
    """
    from relavium_desktop.providers.factory import provider_env_var  # not at import: first paint stays light

    refs = [e.api_key for e in entries.values() if e.api_key] if keyring_in_child else []
    lookup = resolve or host_key_lookup(refs)
    out: list[ProviderStatus] = []
    for name, entry in entries.items():
        why = ""
        if not entry.api_key:
            state: KeyState = "none_needed"
        else:
            try:
                state = "present" if lookup(entry.api_key) else "missing"
            except KeyStoreUnavailable as exc:
                state, why = "unavailable", str(exc)
        detail = _detail(entry, state, why)
        fallback = provider_env_var(name)
        if entry.api_key and state != "present" and os.environ.get(fallback):
            # The headless key source a run falls back to (factory.resolve_key): usable, and said so.
            state, detail = "present", f"key found ({fallback}; {entry.api_key} is not set)"
        out.append(ProviderStatus(name, entry.kind, entry.base_url, entry.api_key, state, detail))
    return out


def usable(statuses: list[ProviderStatus]) -> list[str]:
    """The names whose key is present or not needed: the providers a picker can offer."""
    return [s.name for s in statuses if s.key_state in ("present", "none_needed")]
