"""Host-side wiring of providers: key resolution, the base-URL gate, the SSRF-guarded client (the file: store.py).

Uses the host's keyring store for ``secret:`` references, the egress
primitive's guarded client (resolve once, check, pin) for every connection and
its address classifier for IP-literal base URLs.  ``env:`` references resolve
from the environment.
"""

from __future__ import annotations

import httpx

from relavium_desktop.providers.config import (
    ALLOW_LOCAL_OPT_IN,
    ProviderConfigError,
    SecretResolver,
    chain_resolvers,
    env_resolver,
)


def keyring_resolver() -> SecretResolver:
    from relavium_desktop.host.secrets import SecretStore, SecretStoreError

    store = SecretStore()

    def resolve(ref: str) -> str:
        try:
            return store.resolve_ref(ref)[1]
        except SecretStoreError as exc:
            raise ProviderConfigError(str(exc)) from None

    return resolve


def host_resolver() -> SecretResolver:
    return chain_resolvers({"env": env_resolver(), "secret": keyring_resolver()})


async def host_validate_base_url(url: str, allow_local: bool) -> None:
    """The provider seam's base-URL gate: the host's one async check (scheme, then every resolved address).

    Refusals keep the wording the settings page classifies ("address is
    blocked", "https") and name the entry's own opt-in.
    """
    from relavium_desktop.engine.errors import ToolError
    from relavium_desktop.engine.llm.errors import ProviderError, ProviderErrorCode
    from relavium_desktop.host.egress.base_url import check_base_url
    from relavium_desktop.host.egress.resolver import DnsLookupError, SsrfBlockedError

    try:
        await check_base_url(url, allow_local=allow_local, local_hint="", opt_in=ALLOW_LOCAL_OPT_IN)
    except SsrfBlockedError as exc:
        raise ProviderConfigError(
            f"the provider base URL's address is blocked ({exc.rule}); set allow_local: true on the entry "
            "only for a server you run yourself"
        ) from None
    except ToolError as exc:
        raise ProviderConfigError(f"provider base URL: {exc.message}") from None
    except DnsLookupError:
        raise ProviderError(
            ProviderErrorCode.UNAVAILABLE, "the provider base URL's host name does not resolve"
        ) from None


def host_client_factory(allow_local: bool) -> httpx.AsyncClient:
    from relavium_desktop.host.egress.transport import guarded_client

    return guarded_client(allow_local=allow_local, timeout=120.0)
