"""The egress allowlist: HTTPS only, exact FQDN, no surprises.

Matching is on the normalised host (lower case, one trailing dot removed,
internationalised names converted to their IDNA2008/UTS-46 ASCII form, the
same form the HTTP client puts on the wire) against entries normalised the
same way; there is no suffix or subdomain matching.  An explicit non-default
port is allowed only when the entry names that port.  URLs that different
parsers read differently (userinfo, backslashes, whitespace, control or
percent-encoded characters in the authority) are refused outright, because
an allowlist is only as good as the agreement between the parser that checks
and the parser that connects.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

import idna

from relavium_desktop.engine.errors import DenyReason, InvalidArgsError, ToolDeniedError
from relavium_desktop.engine.tools.command_policy import AllowlistEntryError

DEFAULT_HTTPS_PORT = 443
_ASCII_LABEL_RE = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")
_BAD_URL_CHARS_RE = re.compile(r"[\\\s\x00-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class ParsedUrl:
    scheme: str
    host: str
    port: int | None

    @property
    def effective_port(self) -> int | None:
        if self.port is not None:
            return self.port
        return DEFAULT_HTTPS_PORT if self.scheme == "https" else None


def normalise_host(host: str) -> str:
    """Lower-case ASCII form of a host name or bracketed/plain IP literal."""
    host = host.strip()
    if host.endswith("."):
        host = host[:-1]  # exactly one: "example.com.." is not a name
    if not host:
        raise ValueError("empty host")
    if host.startswith("[") or ":" in host:
        inner = host.strip("[]").lower()
        if not re.fullmatch(r"[0-9a-f:.]+", inner):
            raise ValueError("host is not a valid IPv6 literal")
        return f"[{inner}]"
    if host.isascii():
        lowered = host.lower()
        labels = lowered.split(".")
        if not all(_ASCII_LABEL_RE.match(label) for label in labels):
            raise ValueError("host is not a valid host name")
        if any(label.startswith("xn--") for label in labels):
            try:
                idna.decode(lowered)
            except idna.IDNAError:
                raise ValueError("host has an invalid internationalised (xn--) label") from None
        return lowered
    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError):
        raise ValueError("host is not a valid internationalised domain name") from None


def parse_url(url: str) -> ParsedUrl:
    """Split ``url`` into scheme, normalised host and explicit port, refusing ambiguity."""
    if _BAD_URL_CHARS_RE.search(url.strip()):
        raise InvalidArgsError("url: contains whitespace, a backslash or a control character")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise InvalidArgsError("url: not a valid URL (bad port or brackets)") from None
    if "@" in parts.netloc:
        raise ToolDeniedError(
            "url: credentials in the URL (user@host) are not allowed; use a credentialRef",
            reason=DenyReason.DOMAIN_NOT_ALLOWED,
        )
    if "%" in parts.netloc:
        raise InvalidArgsError("url: percent-encoded characters are not allowed in the host")
    if not parts.hostname:
        raise InvalidArgsError("url: has no host")
    raw_host = parts.netloc.rsplit(":", 1)[0] if parts.port is not None else parts.netloc
    try:
        host = normalise_host(raw_host)
    except ValueError as exc:
        raise InvalidArgsError(f"url: {exc}") from None
    return ParsedUrl(parts.scheme.lower(), host, port)


def parse_entry(entry: str) -> tuple[str, int | None] | None:
    """An allowlist entry as ``(host, port)``; ``None`` when it cannot match anything."""
    entry = entry.strip()
    if not entry or "@" in entry or "/" in entry.split("://", 1)[-1].rstrip("/"):
        return None
    if "://" in entry:
        entry = entry.split("://", 1)[1].rstrip("/")
    host, sep, port_s = entry.rpartition(":")
    if sep and port_s.isdigit() and (host.endswith("]") or ":" not in host):
        port = int(port_s)
        if not 0 < port < 65536:
            return None
        try:
            return (normalise_host(host), port)
        except ValueError:
            return None
    try:
        return (normalise_host(entry), None)
    except ValueError:
        return None


def validate_domain_entry(entry: str, *, field: str = "allowedDomains") -> str:
    """The stored form of an entry (``host`` or ``host:port``), or ValueError naming it.

    The one rule every surface applies (CLI ``--policy``, workflow ``tools``,
    Settings → Chat tools): an entry that could never match, or would not
    match what it appears to (``http://``, wildcards, paths, credentials),
    is refused rather than silently ignored.
    """
    raw = entry.strip()
    if not raw:
        raise AllowlistEntryError(f"{field}: empty entry {entry!r}; type a host name, e.g. 'api.github.com'")
    if raw.lower().startswith("http://"):
        raise AllowlistEntryError(
            f"{field}: {entry!r} uses http://, but http_request is HTTPS only; give the host name alone"
        )
    if "*" in raw:
        raise AllowlistEntryError(f"{field}: {entry!r}: wildcards are not supported; entries match one exact host")
    parsed = parse_entry(raw)
    if parsed is None:
        raise AllowlistEntryError(
            f"{field}: {entry!r} is not a host name (no paths, credentials or spaces; an optional :port)"
        )
    host, port = parsed
    return host if port is None else f"{host}:{port}"


def host_allowed(parsed: ParsedUrl, allowed_domains: Sequence[str]) -> bool:
    """Exact host match; a non-default port must be named by the entry."""
    want_port = parsed.effective_port
    for entry in allowed_domains:
        item = parse_entry(entry)
        if item is None or item[0] != parsed.host:
            continue
        entry_port = item[1] if item[1] is not None else DEFAULT_HTTPS_PORT
        if want_port == entry_port:
            return True
    return False


def check_url(url: str, allowed_domains: Sequence[str] | None, *, tool: str = "http_request") -> ParsedUrl:
    """Raise ``tool_denied`` unless ``url`` is HTTPS to an allowlisted host."""
    parsed = parse_url(url)
    if parsed.scheme != "https":
        raise ToolDeniedError(f"{tool} only allows https:// URLs", reason=DenyReason.HTTPS_REQUIRED)
    if not any(parse_entry(x) is not None for x in allowed_domains or ()):
        raise ToolDeniedError(
            f"{tool} is disabled: the workflow's tools.allowedDomains list is empty or absent",
            reason=DenyReason.EGRESS_DISABLED,
        )
    if host_allowed(parsed, allowed_domains or ()):
        return parsed
    raise ToolDeniedError(
        f"host {parsed.host!r} is not in allowedDomains (exact host names only; a non-default "
        "port must be listed with the host)",
        reason=DenyReason.DOMAIN_NOT_ALLOWED,
    )
