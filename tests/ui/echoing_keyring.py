"""A keyring backend that refuses to store and echoes what it was given in its error.

A stand-in (no real keyring here echoes; the Secret Service fixture behaves):
it stands for a misbehaving backend or helper whose error text includes the
item, which is what the app's error text must never show.  Loaded by the
real ``keyring`` library through ``PYTHON_KEYRING_BACKEND``.

Only then is it viable: keyring registers every backend class for the life of
the process, and a viable one beside the Secret Service made every later test
on the same worker detect a chain of the two instead of the desktop keyring.
"""

from __future__ import annotations

import os

from keyring.backend import KeyringBackend
from keyring.compat import properties
from keyring.errors import PasswordSetError

SELECTED = "tests.ui.echoing_keyring.EchoingKeyring"


class EchoingKeyring(KeyringBackend):
    @properties.classproperty
    def priority(cls) -> float:
        if os.environ.get("PYTHON_KEYRING_BACKEND") != SELECTED:
            raise RuntimeError("only when PYTHON_KEYRING_BACKEND names it")
        return 1

    def get_password(self, service: str, username: str) -> str | None:
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        raise PasswordSetError(f"the helper rejected the item {username}={password}")

    def delete_password(self, service: str, username: str) -> None:
        return None
