"""Validating a configured base URL (LLM provider, MCP server, search provider).

These destinations are chosen by the user in config, not by a model, so no
allowlist applies -- but the same SSRF rules do.  Local-first users run
Ollama or an MCP server on localhost, so :func:`check_base_url` takes an
explicit ``allow_local`` opt-in that the caller must surface in its config
(and UI); without it a loopback/private destination is ``ssrf_blocked``.
Validation is not enough on its own: the caller must also *connect* through
:func:`~relavium_desktop.host.egress.transport.guarded_client` so the
address checked is the address used.

:func:`check_base_url` is the one check every configured-URL caller uses
(providers, MCP, search); :func:`check_base_url_scheme` is its first,
network-free half, for a settings page that validates as the user types.
"""

from __future__ import annotations

from dataclasses import dataclass

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError
from relavium_desktop.engine.tools.domain_policy import ParsedUrl, parse_url
from relavium_desktop.host.egress.addresses import IPAddress
from relavium_desktop.host.egress.resolver import (
    LOCAL_OPT_IN_HINT,
    AddressCheck,
    Resolver,
    default_address_check,
    resolve_checked,
    system_resolver,
)


@dataclass(frozen=True, slots=True)
class CheckedBaseUrl:
    url: str
    scheme: str
    host: str
    port: int
    addresses: tuple[IPAddress, ...]


def check_base_url_scheme(url: str, *, allow_local: bool = False, opt_in: str = "allowLocal") -> ParsedUrl:
    """The shape half of :func:`check_base_url` (no DNS): HTTPS, or plain HTTP under the opt-in.

    ``opt_in`` is how the caller's config spells the opt-in (``allow_local:
    true`` in providers.yaml), so the refusal tells the user what to set.
    Raises ``ToolDeniedError`` (``https_required``, or credentials in the
    URL) or ``InvalidArgsError`` for a malformed URL.
    """
    parsed = parse_url(url)
    if parsed.scheme != "https" and not (parsed.scheme == "http" and allow_local):
        raise ToolDeniedError(
            f"a base URL must be https:// (plain http only with the explicit {opt_in} opt-in)",
            reason=DenyReason.HTTPS_REQUIRED,
        )
    return parsed


async def check_base_url(
    url: str,
    *,
    allow_local: bool = False,
    resolver: Resolver = system_resolver,
    check: AddressCheck = default_address_check,
    local_hint: str = LOCAL_OPT_IN_HINT,
    opt_in: str = "allowLocal",
) -> CheckedBaseUrl:
    """Refuse ``url`` unless it is HTTPS (plain HTTP only with ``allow_local``) to a permitted address.

    ``local_hint`` names the caller's own opt-in in an ``ssrf_blocked``
    message (every caller of this helper has one: it is for configured URLs).
    Raises ``ToolDeniedError`` (``https_required`` / ``ssrf_blocked``),
    ``InvalidArgsError`` for a malformed URL, ``DnsLookupError`` when the
    name does not resolve.
    """
    parsed = check_base_url_scheme(url, allow_local=allow_local, opt_in=opt_in)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    host = parsed.host.strip("[]")
    addresses = await resolve_checked(
        host, port, allow_local=allow_local, resolver=resolver, check=check, local_hint=local_hint
    )
    return CheckedBaseUrl(url, parsed.scheme, parsed.host, port, tuple(addresses))
