"""The secret store: the OS keyring (service ``relavium``), and nothing else.

Secrets are referred to as ``secret:NAME`` in workflow and tool config and
resolved here, inside the host, at the moment they are needed; the value
never travels back into the engine.  When no real keyring backend is usable
every operation fails with :class:`SecretStoreUnavailable`, whose message
names the backend that was tried and how to enable one on Linux -- there is
deliberately no plaintext-file fallback, because a silent fallback is how
API keys end up in backups and dotfile repositories.

The keyring API cannot enumerate entries, so the store keeps an index of
secret *names* (never values) as one more keyring entry; ``secret list``
reads it.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from relavium_desktop.engine.tools.masking import remember_secret

SERVICE = "relavium"
INDEX_KEY = "__relavium_index__"
REF_PREFIX = "secret:"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")

# Backends that are not a real OS keyring: refusing them is the no-plaintext rule.
_REFUSED_BACKENDS = ("keyring.backends.fail.", "keyring.backends.null.", "keyrings.alt.")

LINUX_HELP = (
    "Relavium keeps secrets only in the OS keyring, never in a plain file. On Linux, run a "
    "Secret Service provider in your session: GNOME Keyring (install 'gnome-keyring' and "
    "'libsecret-tools'; it starts with a GNOME/most desktop sessions) or KWallet (KDE, "
    "'kwalletmanager' with the Secret Service integration enabled). The keyring must be "
    "reachable on the session D-Bus (DBUS_SESSION_BUS_ADDRESS set) and unlocked. Headless "
    "or over SSH: dbus-run-session -- sh -c 'gnome-keyring-daemon --unlock; relavium ...' "
    "(type the keyring password on stdin). You can also pick a backend with "
    "PYTHON_KEYRING_BACKEND (e.g. keyring.backends.SecretService.Keyring)."
)


class SecretStoreError(Exception):
    """A secret operation failed; the message never contains a secret value."""


class SecretStoreUnavailable(SecretStoreError):
    """No usable keyring backend."""


class SecretNotFound(SecretStoreError):
    pass


def backend_name(backend: Any) -> str:
    cls = type(backend)
    return f"{cls.__module__}.{cls.__qualname__}"


def validate_name(name: str) -> str:
    if not _NAME_RE.match(name) or name == INDEX_KEY:
        raise SecretStoreError(
            "a secret name is 1-128 characters of letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def parse_ref(ref: str) -> str:
    """``secret:NAME`` -> ``NAME``; anything else is refused."""
    if not ref.startswith(REF_PREFIX):
        raise SecretStoreError("a credentialRef must look like 'secret:NAME'")
    return validate_name(ref[len(REF_PREFIX):])


_DETECTING = threading.Lock()


def _detect_backend() -> Any:
    """The keyring backend the environment selects, detected afresh.

    Detection is repeated per store (not cached process-wide by us) so a
    process that gains a session bus later, or a test that starts one,
    sees the real state.

    keyring remembers per process which backends were viable
    (``get_all_keyring``'s saved result).  Its own ``reset()`` deletes that
    result, and a check on another thread that read the cache just then would
    fail with AttributeError -- the window runs several readiness checks at
    once.  So the fresh list is computed first and then swapped in (one
    attribute assignment: never absent), and detections take turns.
    """
    import keyring.backend
    import keyring.core

    cached = keyring.backend.get_all_keyring
    try:
        with _DETECTING:
            uncached = getattr(cached, "__wrapped__", None)
            if callable(uncached):
                cached.saved_result = list(uncached())
            return keyring.core.load_env() or keyring.core.load_config() or keyring.core._detect_backend()
    except Exception as exc:  # noqa: BLE001 - a backend's probe may raise anything
        # e.g. SecretService raising because no session bus is set: that is
        # "no usable backend", said clearly, not a crash in the caller.
        reason = type(exc).__name__ if not str(exc) else str(exc).splitlines()[0][:200]
        raise SecretStoreUnavailable(
            f"no usable keyring backend (probing failed: {reason}). {LINUX_HELP}"
        ) from None


def _secret_service_backend(backend: Any) -> Any | None:
    """``backend`` when it is keyring's Secret Service backend (the Linux desktop keyring), else None."""
    import keyring.backends.SecretService

    cls = keyring.backends.SecretService.Keyring
    return backend if isinstance(backend, cls) else None


def _chain(backend: Any) -> list[Any]:
    """The keyrings ``backend`` stands for that may be used: a chain's allowed members, or itself."""
    members = getattr(backend, "backends", None)
    return [b for b in (members if members is not None else [backend])
            if not backend_name(b).startswith(_REFUSED_BACKENDS)]


@dataclass(frozen=True, slots=True)
class SecretEntry:
    name: str
    hint: str  # the last four characters only, or a mask for short values


def hint_of(value: str) -> str:
    """Last four characters, preceded by a mask; short values show nothing."""
    if len(value) < 8:
        return "****"
    return "****" + value[-4:]


class SecretStore:
    """Keyring-backed secrets under service ``relavium``; blocking calls (run in a thread)."""

    def __init__(self, backend: Any | None = None) -> None:
        self._backend = backend

    @property
    def backend(self) -> Any:
        if self._backend is None:
            self._backend = _detect_backend()
        return self._backend

    def _usable(self) -> Any:
        backend = self.backend
        name = backend_name(backend)
        if name.startswith(_REFUSED_BACKENDS) or "plaintext" in name.lower():
            raise SecretStoreUnavailable(f"no usable keyring backend (tried: {name}). {LINUX_HELP}")
        if not _chain(backend):  # a chain of refused backends only
            raise SecretStoreUnavailable(f"no usable keyring backend (tried: {name}). {LINUX_HELP}")
        return backend

    def _call(self, op: str, method: str, *args: Any, on: Any = None) -> Any:
        """``method`` of the store's backend (or of ``on``, one keyring of its chain), its errors in words."""
        backend = on if on is not None else self._usable()  # refuse before touching a non-keyring backend
        import keyring.errors

        try:
            return getattr(backend, method)(*args)
        except keyring.errors.NoKeyringError:
            raise SecretStoreUnavailable(
                f"no usable keyring backend (tried: {backend_name(backend)}). {LINUX_HELP}"
            ) from None
        except keyring.errors.PasswordDeleteError:
            raise
        except (keyring.errors.KeyringError, OSError) as exc:
            # The exception text comes from the backend, never from the value.
            raise SecretStoreUnavailable(
                f"the keyring backend {backend_name(backend)} could not {op} "
                f"({type(exc).__name__}: {exc}). {LINUX_HELP}"
            ) from None

    # -- index of names ------------------------------------------------------

    def _read_index(self) -> list[str]:
        raw = self._call("read the secret index", "get_password", SERVICE, INDEX_KEY)
        if not raw:
            return []
        try:
            names = json.loads(raw)
        except ValueError:
            return []
        return sorted({n for n in names if isinstance(n, str) and _NAME_RE.match(n)})

    def _write_index(self, names: list[str]) -> None:
        self._call(
            "write the secret index", "set_password", SERVICE, INDEX_KEY,
            json.dumps(sorted(set(names))),
        )

    # -- operations ------------------------------------------------------------

    def set(self, name: str, value: str) -> None:
        validate_name(name)
        if not value:
            raise SecretStoreError("refusing to store an empty secret")
        self._call("store the secret", "set_password", SERVICE, name, value)
        names = self._read_index()
        if name not in names:
            self._write_index([*names, name])

    def get(self, name: str) -> str | None:
        validate_name(name)
        value = self._call("read the secret", "get_password", SERVICE, name)
        if not isinstance(value, str):
            return None
        remember_secret(value)  # every channel masks it by value from now on
        return value

    def has(self, name: str) -> bool:
        """Whether a secret ``name`` is stored, without reading it, creating a keyring or unlocking one.

        Why: readiness checks (is this provider's key there?) run at start-up.  keyring's
        Secret Service backend reads through the *default collection* and creates it when it
        is missing -- on a fresh desktop that pops "Choose password for new keyring" before the
        user asked to store anything -- and unlocks it when locked.  A presence check needs
        neither: the Secret Service's own SearchItems looks in every collection, locked or not,
        and creates nothing.  Other backends have no such search; for them this is ``get``.
        """
        validate_name(name)
        return self.has_item(SERVICE, name, read=lambda: self.get(name))

    def has_item(self, service: str, key: str, read: Callable[[], str | None] | None = None) -> bool:
        """:meth:`has` for any ``(service, key)``: a presence check that creates and unlocks nothing.

        keyring chains backends when more than one is usable (the Secret Service
        beside KWallet or a file keyring): the Secret Service in the chain is
        still searched, never read through its default collection, and only the
        chain's other keyrings are read.
        """
        backend = self._usable()
        chain = _chain(backend)
        service_backend = next((b for b in chain if _secret_service_backend(b) is not None), None)
        if service_backend is None:
            return (read() if read is not None else self.get_item(service, key)) is not None
        if self._search(service_backend, service, key):
            return True
        others = [b for b in chain if b is not service_backend]
        # Each other keyring is read (its value dropped at once): they have no search.
        return any(self._call("look up the secret", "get_password", service, key, on=b) is not None for b in others)

    def _search(self, service_backend: Any, service: str, key: str) -> bool:
        import secretstorage
        from secretstorage.exceptions import SecretStorageException

        try:
            connection = secretstorage.dbus_init()
            try:
                query = service_backend._query(service, key)  # the attributes keyring stores it under
                return any(True for _item in secretstorage.search_items(connection, query))
            finally:
                connection.close()
        except (SecretStorageException, OSError) as exc:
            raise SecretStoreUnavailable(
                f"the keyring backend {backend_name(service_backend)} could not look up the secret "
                f"({type(exc).__name__}). {LINUX_HELP}"
            ) from None

    def require(self, name: str) -> str:
        value = self.get(name)
        if value is None:
            raise SecretNotFound(
                f"secret {name!r} is not set in the keyring; set it with 'relavium secret set {name}'"
            )
        return value

    def resolve_ref(self, ref: str) -> tuple[str, str]:
        """``secret:NAME`` -> ``(NAME, value)``, resolved here, inside the host."""
        name = parse_ref(ref)
        return name, self.require(name)

    def delete(self, name: str) -> bool:
        """Remove a secret; ``False`` when it did not exist."""
        import keyring.errors

        validate_name(name)
        existed = self.get(name) is not None
        if existed:
            try:
                self._call("delete the secret", "delete_password", SERVICE, name)
            except keyring.errors.PasswordDeleteError:
                existed = False
        names = self._read_index()
        if name in names:
            self._write_index([n for n in names if n != name])
        return existed

    def list(self) -> list[SecretEntry]:
        entries = []
        for name in self._read_index():
            value = self.get(name)
            if value is not None:
                entries.append(SecretEntry(name, hint_of(value)))
        return entries

    # -- entries of another Relavium keyring service (e.g. MCP sign-in tokens) ----------

    def get_item(self, service: str, key: str) -> str | None:
        """The value under ``(service, key)``; for stores of their own (not listed by ``secret list``)."""
        value = self._call("read the entry", "get_password", service, key)
        return value if isinstance(value, str) else None

    def set_item(self, service: str, key: str, value: str) -> None:
        """Store ``value`` under ``(service, key)`` in the same keyring, with the same refusals."""
        self._call("store the entry", "set_password", service, key, value)

    def delete_item(self, service: str, key: str) -> bool:
        """Remove ``(service, key)``; ``False`` when it was not there."""
        import keyring.errors

        if self.get_item(service, key) is None:
            return False
        try:
            self._call("delete the entry", "delete_password", service, key)
        except keyring.errors.PasswordDeleteError:
            return False
        return True
