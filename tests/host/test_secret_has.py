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


def test_readiness_of_keyless_providers_does_not_touch_the_keyring(fresh_keyring: FreshKeyring) -> None:
    from relavium_desktop.providers.config import ProviderEntry
    from relavium_desktop.providers.readiness import provider_statuses

    entries = {"ollama": ProviderEntry(kind="openai", base_url="http://127.0.0.1:11434/v1", allow_local=True)}
    for in_child in (True, False):
        assert [s.key_state for s in provider_statuses(entries, keyring_in_child=in_child)] == ["none_needed"]
    assert fresh_keyring.service_calls() == []
    # The monitor does see calls: a key that is needed is looked up (a search, nothing created).
    keyed = {"openai": ProviderEntry(kind="openai", base_url="https://api.openai.com/v1",
                                     api_key="secret:OPENAI_API_KEY")}
    assert [s.key_state for s in provider_statuses(keyed)] == ["missing"]
    assert any("member=SearchItems" in call for call in fresh_keyring.service_calls())
    assert fresh_keyring.calls() == [] and fresh_keyring.default_collection() == "/"


def test_readiness_checks_running_at_once_all_see_the_keyring(fresh_keyring: FreshKeyring) -> None:
    """The window asks several things at once (the model picker, the sidebar's readiness, Settings).

    Each store detects its backend afresh, and detection replaces keyring's
    remembered backend list; keyring's own reset deleted it, which a check on
    another thread could catch absent.  That window is a few bytecodes wide and
    this test did not catch it on the old code: it holds concurrent detection to
    the right answer.  Sixteen threads released together, eight rounds: every
    answer must be "not stored", none "unavailable".
    """
    import threading

    _forget_backend_probe()
    failures: list[str] = []
    for _round in range(8):
        start = threading.Barrier(16)

        def check(start: threading.Barrier = start) -> None:
            start.wait()
            try:
                if SecretStore().has("ANTHROPIC_API_KEY") is not False:
                    failures.append("found a key that was never stored")
            except SecretStoreError as exc:
                failures.append(str(exc))

        threads = [threading.Thread(target=check) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert failures == []
    assert fresh_keyring.calls() == []


def test_a_chain_of_keyrings_still_searches_the_secret_service_and_creates_no_keyring(
    fresh_keyring: FreshKeyring,
) -> None:
    """keyring chains its backends when a second one is usable (KWallet, a file keyring) beside the
    Secret Service.  Presence must then still be a search there -- reading through the chain would
    create the default collection on a fresh desktop -- and the chain's other keyring is read.

    The second keyring is defined here (an in-memory one: a real KWallet cannot run in this
    container); keyring registers backend classes for the life of the process, so it is removed after.
    """
    from keyring.backend import KeyringBackend
    from keyring.backends.chainer import ChainerBackend

    class OtherKeyring(KeyringBackend):
        priority = 1  # type: ignore[assignment]
        def get_password(self, service: str, username: str) -> str | None:
            return "v" if (service, username) == ("relavium", "IN_THE_OTHER") else None

        def set_password(self, service: str, username: str, password: str) -> None:
            raise NotImplementedError

        def delete_password(self, service: str, username: str) -> None:
            raise NotImplementedError

    try:
        _forget_backend_probe()
        store = SecretStore()
        assert isinstance(store.backend, ChainerBackend)  # the situation under test: a chain was chosen
        assert store.has("ANTHROPIC_API_KEY") is False
        assert store.has("IN_THE_OTHER") is True
        assert fresh_keyring.calls() == []
        assert fresh_keyring.default_collection() == "/"
    finally:
        KeyringBackend._classes.discard(OtherKeyring)
        _forget_backend_probe()
