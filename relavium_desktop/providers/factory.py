"""Build a Provider from a settings entry: key resolved, base URL gated."""

from __future__ import annotations

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
    try:
        key = resolve_secret(entry.api_key) if entry.api_key else None
    except ProviderConfigError as exc:
        raise ProviderKeyError(str(exc)) from None
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
