"""Provider entries (settings), key references and the base-URL gate.

Keys are references, never values: ``secret:NAME`` (the host's keyring) or
``env:NAME`` (an environment variable, for CI and until a keyring is set up).
A :data:`SecretResolver` turns a reference into the value inside the host; the
value then lives only in a provider's request headers.  Every base URL passes
``validate_base_url(url, allow_local)`` — the SSRF gate — and only an entry
that says ``allow_local: true`` (visible in settings) may name a local server.
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from relavium_desktop.engine.tools.masking import remember_secret

SecretResolver = Callable[[str], str]
# ``(base_url, allow_local)``; awaited before the first connection (the host's check resolves DNS).
# A synchronous validator (shape only, no network) is accepted too.
BaseUrlValidator = Callable[[str, bool], Awaitable[None] | None]
ALLOW_LOCAL_OPT_IN = "allow_local: true (on the provider entry)"
ProviderKind = Literal["anthropic", "openai", "gemini"]
NOT_A_REFERENCE = "a key must be a reference like 'secret:NAME' or 'env:NAME', never the key itself"
# The scheme, then a name in the keyring's (and the environment's) alphabet: nothing a raw key looks like.
KEY_REF_RE = re.compile(r"^(secret|env):[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$")


class ProviderConfigError(ValueError):
    """A provider entry, key reference or base URL is unusable (secret-free message)."""


class ProviderEntry(BaseModel):
    """One named provider as ``providers.yaml`` holds it.

    ``api_key`` is checked here, not only where the CLI or the settings page
    write it, so a hand-edited file that pastes a key in is refused on
    reading too; ``hide_input_in_errors`` keeps the pasted value out of every
    validation message.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    kind: ProviderKind
    base_url: str
    api_key: str | None = Field(default=None, description="secret:NAME or env:NAME; null for keyless local servers")
    allow_local: bool = False
    timeout_s: float = Field(default=120.0, gt=0, le=3_600)

    @field_validator("api_key", mode="before")
    @classmethod
    def _key_is_a_reference(cls, value: object) -> object:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None  # ``api_key: ""`` in a hand-written file means "no key", like null
        if not isinstance(value, str) or not KEY_REF_RE.match(value.strip()):
            raise ValueError(NOT_A_REFERENCE)
        return value.strip()


DEFAULT_ENTRIES: dict[str, ProviderEntry] = {
    "anthropic": ProviderEntry(kind="anthropic", base_url="https://api.anthropic.com",
                               api_key="secret:ANTHROPIC_API_KEY"),
    "openai": ProviderEntry(kind="openai", base_url="https://api.openai.com/v1", api_key="secret:OPENAI_API_KEY"),
    "gemini": ProviderEntry(kind="gemini", base_url="https://generativelanguage.googleapis.com",
                            api_key="secret:GEMINI_API_KEY"),
}


def env_resolver(environ: Mapping[str, str] | None = None) -> SecretResolver:
    """Resolve ``env:NAME`` from the environment; refuse every other scheme."""
    env = os.environ if environ is None else environ

    def resolve(ref: str) -> str:
        if not ref.startswith("env:"):
            raise ProviderConfigError(f"cannot resolve key reference scheme {ref.split(':', 1)[0]!r} here")
        name = ref[4:]
        value = env.get(name)
        if not value:
            raise ProviderConfigError(f"environment variable {name!r} named by the key reference is not set")
        return value

    return resolve


def chain_resolvers(by_scheme: Mapping[str, SecretResolver]) -> SecretResolver:
    """Dispatch on the reference's scheme (``secret``, ``env``)."""

    def resolve(ref: str) -> str:
        scheme = ref.split(":", 1)[0] if ":" in ref else ""
        fn = by_scheme.get(scheme)
        if fn is None:
            raise ProviderConfigError(NOT_A_REFERENCE)
        value = fn(ref)
        remember_secret(value)  # a key read from the environment is masked by value from now on
        return value

    return resolve


def basic_validate_base_url(url: str, allow_local: bool) -> None:
    """The network-free half of the host's base-URL check, for settings pages and tests.

    The rule itself is the host's (``check_base_url_scheme``); a provider
    connects only after the full async check (``wiring.host_validate_base_url``).
    """
    from relavium_desktop.engine.errors import ToolError
    from relavium_desktop.host.egress.base_url import check_base_url_scheme

    try:
        check_base_url_scheme(url, allow_local=allow_local, opt_in=ALLOW_LOCAL_OPT_IN)
    except ToolError as exc:
        raise ProviderConfigError(f"provider base URL: {exc.message}") from None
