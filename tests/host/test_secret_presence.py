"""Secret presence asked from a child process, against a real Secret Service (gnome-keyring on a private bus)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

from relavium_desktop.host.secret_presence import presence_in_child
from relavium_desktop.host.secrets import SecretStore
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401

VALUE = "sk-live-0123456789abcdef-PRES"


def unique(prefix: str = "k") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_the_child_says_which_secrets_are_set_and_never_prints_a_value(desktop_bus_env: dict[str, str]) -> None:
    name, missing = unique(), unique()
    SecretStore().set(name, VALUE)
    try:
        assert presence_in_child([name, missing]) == {name: True, missing: False}
        out = subprocess.run([sys.executable, "-m", "relavium_desktop.host.secret_presence", name],
                             capture_output=True, text=True, timeout=60, check=True)
        assert json.loads(out.stdout) == {"present": {name: True}}
        assert VALUE not in out.stdout + out.stderr
    finally:
        SecretStore().delete(name)


def test_without_a_session_bus_the_child_says_the_keyring_is_unavailable(
    desktop_bus_env: dict[str, str], monkeypatch
) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS")
    answer = presence_in_child([unique()])
    assert isinstance(answer, str) and "no usable keyring backend" in answer


def test_window_readiness_finds_the_key_without_loading_keyring_in_its_own_process(
    desktop_bus_env: dict[str, str],
) -> None:
    name = unique()
    SecretStore().set(name, VALUE)
    script = (
        "import json, sys\n"
        "from relavium_desktop.providers.config import ProviderEntry\n"
        "from relavium_desktop.providers.readiness import provider_statuses\n"
        f"entries = {{'p': ProviderEntry(kind='anthropic', base_url='https://api.anthropic.com', "
        f"api_key='secret:{name}'), 'q': ProviderEntry(kind='anthropic', base_url='https://api.anthropic.com', "
        f"api_key='secret:{name}-gone')}}\n"
        "states = [s.key_state for s in provider_statuses(entries, keyring_in_child=True)]\n"
        "print(json.dumps([states, 'keyring' in sys.modules]))\n"
    )
    try:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                              check=True, env=dict(os.environ))
        assert json.loads(done.stdout.splitlines()[-1]) == [["present", "missing"], False]
    finally:
        SecretStore().delete(name)
