"""MCP consent records: per project, per exact launch fingerprint, revocable, durable across opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from relavium_desktop.application.mcp import mcp_consents
from relavium_desktop.store.mcp_consents import McpConsentStore

FP1, FP2 = "a" * 64, "b" * 64


@pytest.fixture
def store(relavium_home: Path):
    s = mcp_consents(relavium_home)
    yield s
    s.close()


def test_consent_is_per_project_server_and_fingerprint(store: McpConsentStore, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    store.grant(one, "calc", FP1, command="/usr/bin/python3", args=["server.py"], env_names=["B", "A"], cwd="/w")
    assert store.is_granted(one, "calc", FP1)
    assert not store.is_granted(two, "calc", FP1)  # another project asks again
    assert not store.is_granted(one, "other", FP1)
    assert not store.is_granted(one, "calc", FP2)  # a changed launch is not the consented one


def test_a_new_fingerprint_replaces_the_old_one(store: McpConsentStore, tmp_path: Path) -> None:
    store.grant(tmp_path, "calc", FP1)
    store.grant(tmp_path, "calc", FP2)
    assert store.is_granted(tmp_path, "calc", FP2) and not store.is_granted(tmp_path, "calc", FP1)
    assert [c.fingerprint for c in store.list(tmp_path)] == [FP2]


def test_the_project_key_is_canonical(store: McpConsentStore, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    store.grant(tmp_path / "link", "calc", FP1)
    assert store.is_granted(real, "calc", FP1)
    assert store.list()[0].project == str(real.resolve())


def test_list_shows_names_never_values_and_revoke_asks_again(
    store: McpConsentStore, tmp_path: Path, relavium_home: Path
) -> None:
    store.grant(tmp_path, "calc", FP1, command="python3", args=["s.py", "stdio"], env_names=["TOKEN"], cwd="/w")
    store.close()
    again = mcp_consents(relavium_home)  # durable across opens
    try:
        (consent,) = again.list()
        assert (consent.server, consent.args, consent.env_names) == ("calc", ("s.py", "stdio"), ("TOKEN",))
        assert consent.describe() == "calc: python3 s.py stdio in /w; env: TOKEN"
        assert again.revoke(tmp_path, "calc") is True
        assert not again.is_granted(tmp_path, "calc", FP1)
        assert again.revoke(tmp_path, "calc") is False
    finally:
        again.close()


def test_a_consent_needs_a_fingerprint(store: McpConsentStore, tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        store.grant(tmp_path, "calc", "")
