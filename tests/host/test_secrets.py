"""The keyring secret store against a real Secret Service (gnome-keyring on a private bus)."""

from __future__ import annotations

import uuid

import pytest

from relavium_desktop.host.secrets import (
    SecretNotFound,
    SecretStore,
    SecretStoreError,
    SecretStoreUnavailable,
    backend_name,
)
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401


def unique(prefix: str = "k") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_set_get_list_delete_on_the_real_secret_service(desktop_bus_env: dict[str, str]) -> None:
    store = SecretStore()
    assert backend_name(store.backend) == "keyring.backends.SecretService.Keyring"
    name = unique()
    store.set(name, "sk-live-0123456789abcdef-WXYZ")
    assert store.get(name) == "sk-live-0123456789abcdef-WXYZ"
    # A fresh store (as another process would) sees it, through the index.
    listed = {e.name: e.hint for e in SecretStore().list()}
    assert listed[name] == "****WXYZ"
    assert store.delete(name) is True
    assert store.get(name) is None
    assert name not in {e.name for e in SecretStore().list()}
    assert store.delete(name) is False


def test_values_live_in_the_keyring_service_relavium(desktop_bus_env: dict[str, str]) -> None:
    import secretstorage

    name = unique()
    SecretStore().set(name, "value-for-service-check")
    conn = secretstorage.dbus_init()
    try:
        items = list(secretstorage.get_default_collection(conn).search_items(
            {"service": "relavium", "username": name}))
        assert [i.get_secret().decode() for i in items] == ["value-for-service-check"]
        # The index holds names only.
        index = list(secretstorage.get_default_collection(conn).search_items(
            {"service": "relavium", "username": "__relavium_index__"}))
        assert "value-for-service-check" not in index[0].get_secret().decode()
        assert name in index[0].get_secret().decode()
    finally:
        conn.close()


def test_resolve_ref_and_missing_secret(desktop_bus_env: dict[str, str]) -> None:
    store = SecretStore()
    name = unique()
    store.set(name, "resolved-value-1234")
    assert store.resolve_ref(f"secret:{name}") == (name, "resolved-value-1234")
    with pytest.raises(SecretNotFound, match="relavium secret set nope-missing"):
        store.resolve_ref("secret:nope-missing")
    for bad in ("env:HOME", "secret:", "secret:../x", "secret:a b", "secret:__relavium_index__"):
        with pytest.raises(SecretStoreError):
            store.resolve_ref(bad)


def test_short_values_show_no_characters(desktop_bus_env: dict[str, str]) -> None:
    store = SecretStore()
    name = unique()
    store.set(name, "abc12")
    assert {e.name: e.hint for e in store.list()}[name] == "****"


@pytest.mark.parametrize("backend", ["keyring.backends.fail.Keyring", "keyring.backends.null.Keyring"])
def test_no_backend_fails_clearly_and_never_falls_back(
    backend: str, monkeypatch: pytest.MonkeyPatch, relavium_home: object
) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", backend)
    store = SecretStore()
    for op in (lambda: store.set("x-name", "value-never-stored"), lambda: store.get("x-name"),
               store.list, lambda: store.delete("x-name")):
        with pytest.raises(SecretStoreUnavailable) as info:
            op()
        msg = str(info.value)
        assert f"tried: {backend}" in msg
        assert "Secret Service" in msg and "gnome-keyring" in msg and "KWallet" in msg
        assert "value-never-stored" not in msg
    # No plaintext fallback: nothing was written under the data dir.
    from pathlib import Path

    assert [p for p in Path(str(relavium_home)).rglob("*") if p.is_file()] == []


def test_plaintext_backends_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    class PlaintextKeyring:  # stands in for keyrings.alt's file backend (not installed here)
        __module__ = "keyrings.alt.file"

    with pytest.raises(SecretStoreUnavailable, match=r"tried: keyrings\.alt\.file\..*PlaintextKeyring"):
        SecretStore(PlaintextKeyring()).set("x-name", "v" * 10)


def test_no_session_bus_is_a_clear_unavailable_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a D-Bus session the Secret Service probe raises inside keyring;
    the store must turn that into its clear message, never a raw traceback."""
    from relavium_desktop.host.secrets import SecretStore, SecretStoreUnavailable

    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", "/nonexistent-keyring-config")
    with pytest.raises(SecretStoreUnavailable) as exc:
        SecretStore().list()
    message = str(exc.value)
    assert "keyring" in message and "gnome-keyring" in message.lower()
