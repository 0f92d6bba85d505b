"""``SecretStore.has``: is a secret stored, asked without creating or unlocking a keyring.

Real Secret Services: the session's unlocked gnome-keyring (``desktop_bus``) and
a fresh one with no keyring yet (``fresh_keyring``), whose dbus-monitor records
any call that would show gnome-keyring's "new keyring" or unlock dialog.
"""

from __future__ import annotations

import uuid

import pytest

from relavium_desktop.host.secrets import SecretStore, SecretStoreError
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401
from tests.fixtures.fresh_keyring import FreshKeyring, fresh_keyring_fixture  # noqa: F401

VALUE = "sk-live-0123456789abcdef-HAS1"


def _forget_backend_probe() -> None:
    import keyring.backend

    if "saved_result" in vars(keyring.backend.get_all_keyring):
        keyring.backend.get_all_keyring.reset()


def test_has_tells_a_stored_secret_from_a_missing_one(desktop_bus_env: dict[str, str]) -> None:
    _forget_backend_probe()
    name, missing = f"has-{uuid.uuid4().hex[:8]}", f"has-{uuid.uuid4().hex[:8]}"
    store = SecretStore()
    store.set(name, VALUE)
    try:
        assert store.has(name) is True
        assert store.has(missing) is False
        with pytest.raises(SecretStoreError):
            store.has("not a valid name")
    finally:
        store.delete(name)
    assert store.has(name) is False


def test_has_on_a_fresh_desktop_creates_no_keyring(fresh_keyring: FreshKeyring) -> None:
    _forget_backend_probe()
    assert SecretStore().has("ANTHROPIC_API_KEY") is False
    assert fresh_keyring.calls() == []
    assert fresh_keyring.default_collection() == "/"
    # The contrast that makes the check mean something: reading a value goes through the default
    # keyring, which gnome-keyring then offers to create (the prompt is dismissed here: no prompter).
    with pytest.raises(SecretStoreError):
        SecretStore().get("ANTHROPIC_API_KEY")
    assert any("CreateCollection" in call for call in fresh_keyring.calls())
