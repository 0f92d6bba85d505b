"""Build a Provider from a settings entry: key resolved, base URL gated."""

from __future__ import annotations

import re
from collections.abc import Mapping

from relavium_desktop.engine.llm.errors import ProviderError, ProviderErrorCode
from relavium_desktop.providers.anthropic import AnthropicProvider
from relavium_desktop.providers.config import (
    BaseUrlValidator,
    ProviderConfigError,
    ProviderEntry,
    SecretResolver,
)
from relavium_desktop.providers.gemini import GeminiProvider
from relavium_desktop.providers.http_base import ClientFactory, HttpProvider, default_client_factory
from relavium_desktop.providers.openai_compat import OpenAICompatProvider


class ProviderKeyError(ProviderConfigError):
    """The entry's key reference could not be resolved."""


def provider_env_var(name: str) -> str:
    """``RELAVIUM_<PROVIDER>_API_KEY`` for the provider entry ``name`` (upstream's headless key source)."""
    return "RELAVIUM_" + re.sub(r"[^A-Za-z0-9]", "_", name).upper() + "_API_KEY"


def no_key_message(name: str, entry: ProviderEntry, why: str) -> str:
    """Why ``name`` has no key and the three ways to give it one (secret-free: names only)."""
    ref = entry.api_key or ""
    # Worded so no "key: value" pair appears: the output masker would hide it.
    own = (f"the keyring (relavium secret set {ref[7:]}, the secret the entry refers to)"
           if ref.startswith("secret:") else "the keyring (relavium secret set NAME, with secret:NAME as the entry's key)")
    env_ref = (f"the environment variable {ref[4:]} the entry refers to"
               if ref.startswith("env:") else "the entry's own reference (env:NAME as its key in providers.yaml)")
    return (f"provider {name!r} has no API key ({why}); give it one in any of three ways: {own}, {env_ref}, "
            f"or the environment variable {provider_env_var(name)}")


def resolve_key(name: str, entry: ProviderEntry, resolve_secret: SecretResolver) -> str | None:
    """The entry's key: its own reference (keyring or environment), then ``RELAVIUM_<NAME>_API_KEY``.

    An entry without a reference is a keyless local server and gets no key.
    CI has no keyring, so the environment variable is the headless source;
    it is read only after the entry's own reference failed, so a key the
    user stored keeps winning.  Raises ``ProviderKeyError`` naming all three.
    """
    if not entry.api_key:
        return None
    try:
        return resolve_secret(entry.api_key)
    except ProviderConfigError as exc:
        why = str(exc)
    try:
        return resolve_secret(f"env:{provider_env_var(name)}")
    except ProviderConfigError:
        raise ProviderKeyError(no_key_message(name, entry, why)) from None


_KINDS: dict[str, type[HttpProvider]] = {
    "anthropic": AnthropicProvider,
    "openai": OpenAICompatProvider,
    "gemini": GeminiProvider,
}


def make_provider(
    name: str,
    entry: ProviderEntry,
    *,
    resolve_secret: SecretResolver,
    validate_base_url: BaseUrlValidator,
    client_factory: ClientFactory = default_client_factory,
) -> HttpProvider:
    key = resolve_key(name, entry, resolve_secret)
    return _KINDS[entry.kind](
        name,
        base_url=entry.base_url,
        api_key=key,
        allow_local=entry.allow_local,
        validate_base_url=validate_base_url,
        client_factory=client_factory,
        timeout_s=entry.timeout_s,
    )


class ProviderSet:
    """Lazily built providers by entry name, each built once per process."""

    def __init__(
        self,
        entries: Mapping[str, ProviderEntry],
        *,
        resolve_secret: SecretResolver,
        validate_base_url: BaseUrlValidator,
        client_factory: ClientFactory = default_client_factory,
    ) -> None:
        self._entries = dict(entries)
        self._resolve = resolve_secret
        self._validate = validate_base_url
        self._factory = client_factory
        self._built: dict[str, HttpProvider] = {}

    def __call__(self, name: str) -> HttpProvider:
        """The provider, or ``ProviderError`` (auth for key trouble, validation otherwise)."""
        try:
            return self._build(name)
        except ProviderKeyError as exc:
            raise ProviderError(ProviderErrorCode.AUTH, f"{name}: {exc}") from None
        except ProviderConfigError as exc:
            raise ProviderError(ProviderErrorCode.VALIDATION, f"{name}: {exc}") from None

    def _build(self, name: str) -> HttpProvider:
        if name not in self._built:
            entry = self._entries.get(name)
            if entry is None:
                raise ProviderConfigError(
                    f"no provider named {name!r}; configured: {', '.join(sorted(self._entries))}"
                )
            self._built[name] = make_provider(name, entry, resolve_secret=self._resolve,
                                              validate_base_url=self._validate, client_factory=self._factory)
        return self._built[name]
