"""A keyring backend that refuses to store and echoes what it was given in its error.

A stand-in (no real keyring here echoes; the Secret Service fixture behaves):
it stands for a misbehaving backend or helper whose error text includes the
item, which is what the app's error text must never show.  Loaded by the
real ``keyring`` library through ``PYTHON_KEYRING_BACKEND``.
"""

from __future__ import annotations

from keyring.backend import KeyringBackend
from keyring.errors import PasswordSetError


class EchoingKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        raise PasswordSetError(f"the helper rejected the item {username}={password}")

    def delete_password(self, service: str, username: str) -> None:
        return None
