"""The http_request egress allowlist: HTTPS only, exact FQDN, no surprises.

Matching is on the normalised host (lower case, trailing dot removed, IDNA
to its ASCII form) against entries normalised the same way; there is no
suffix or subdomain matching.  An explicit port is allowed only when the
entry names that port, and userinfo in a URL is refused outright (it is
both a credential leak and a classic allowlist confusion).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from relavium_desktop.engine.errors import DenyReason, InvalidArgsError, ToolDeniedError


@dataclass(frozen=True, slots=True)
class ParsedUrl:
    scheme: str
    host: str
    port: int | None


def normalise_host(host: str) -> str:
    host = host.strip().rstrip(".").lower()
    if not host:
        raise ValueError("empty host")
    if host.startswith("["):
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        raise ValueError("host is not a valid internationalised domain name") from None


def parse_url(url: str) -> ParsedUrl:
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise InvalidArgsError("url: not a valid URL") from None
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ToolDeniedError(
            "url: credentials in the URL (user@host) are not allowed; use a credentialRef",
            reason=DenyReason.DOMAIN_NOT_ALLOWED,
        )
    if not parts.hostname:
        raise InvalidArgsError("url: has no host")
    try:
        host = normalise_host(parts.hostname)
    except ValueError as exc:
        raise InvalidArgsError(f"url: {exc}") from None
    return ParsedUrl(parts.scheme.lower(), host, port)


def _parse_entry(entry: str) -> tuple[str, int | None] | None:
    entry = entry.strip()
    if not entry:
        return None
    if "://" in entry:
        try:
            p = urlsplit(entry)
            return (normalise_host(p.hostname or ""), p.port)
        except ValueError:
            return None
    host, sep, port_s = entry.rpartition(":")
    if sep and port_s.isdigit() and (host.startswith("[") or ":" not in host):
        try:
            return (normalise_host(host), int(port_s))
        except ValueError:
            return None
    try:
        return (normalise_host(entry), None)
    except ValueError:
        return None


def check_url(url: str, allowed_domains: Sequence[str] | None) -> ParsedUrl:
    """Raise ``tool_denied`` unless ``url`` is HTTPS to an allowlisted host."""
    parsed = parse_url(url)
    if parsed.scheme != "https":
        raise ToolDeniedError("http_request only allows https:// URLs", reason=DenyReason.HTTPS_REQUIRED)
    entries = [e for e in (_parse_entry(x) for x in allowed_domains or ()) if e is not None]
    if not entries:
        raise ToolDeniedError(
            "http_request is disabled: the workflow's tools.allowedDomains list is empty or absent",
            reason=DenyReason.EGRESS_DISABLED,
        )
    for host, port in entries:
        if host != parsed.host:
            continue
        if parsed.port is None or parsed.port == port:
            return parsed
    raise ToolDeniedError(
        f"host {parsed.host!r} is not in allowedDomains (exact host names only; a port must be listed)",
        reason=DenyReason.DOMAIN_NOT_ALLOWED,
    )
