"""Name resolution and the one SSRF check every outbound connection passes.

Resolution runs ``getaddrinfo`` in a worker thread so the Qt/asyncio loop
never stalls on DNS.  :func:`resolve_checked` refuses the destination when
*any* address the name resolves to is blocked (a name that answers one public
and one private address is refused, not "tried public first"), and returns
the validated addresses the caller must connect to directly, so a second
lookup (DNS rebinding) never gets a say.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable, Sequence

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError
from relavium_desktop.host.egress.addresses import IPAddress, blocked_rule, parse_ip_literal

# Async ``(host, port) -> addresses``; injectable so tests can script DNS answers.
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
# ``(address, allow_local) -> rule name | None``; injectable only from test code.
AddressCheck = Callable[[IPAddress, bool], "str | None"]


class DnsLookupError(Exception):
    """The name did not resolve; the message names the host, never an address."""


async def system_resolver(host: str, port: int) -> Sequence[str]:
    """The OS resolver, off the event loop."""
    try:
        infos = await asyncio.to_thread(socket.getaddrinfo, host, port, 0, socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise DnsLookupError(f"DNS lookup failed for {host!r} ({exc.strerror or 'no address'})") from None
    seen: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        addr = str(sockaddr[0])
        if addr not in seen:
            seen.append(addr)
    return seen


def default_address_check(ip: IPAddress, allow_local: bool) -> str | None:
    """The production rule set: no exceptions, loopback included."""
    return blocked_rule(ip, allow_local=allow_local)


def ssrf_denial(host: str, rule: str, allow_local: bool) -> ToolDeniedError:
    hint = "" if allow_local or rule not in {"loopback", "private", "CGNAT", "unique-local"} else (
        " (a local endpoint needs the explicit allowLocal opt-in in its config)"
    )
    return ToolDeniedError(
        f"ssrf_blocked: {host!r} resolves to a {rule} address; requests to {rule} addresses are "
        f"refused by the SSRF rule{hint}",
        reason=DenyReason.SSRF_BLOCKED,
    )


async def resolve_checked(
    host: str,
    port: int,
    *,
    allow_local: bool,
    resolver: Resolver = system_resolver,
    check: AddressCheck = default_address_check,
) -> list[IPAddress]:
    """Resolve ``host`` once and return its addresses if every one passes ``check``."""
    literal = parse_ip_literal(host)
    if literal is not None:
        answers: list[IPAddress] = [literal]
    else:
        raw = await resolver(host, port)
        answers = []
        for text in raw:
            ip = parse_ip_literal(text)
            if ip is None:
                raise DnsLookupError(f"DNS lookup for {host!r} returned something that is not an address")
            answers.append(ip)
        if not answers:
            raise DnsLookupError(f"DNS lookup failed for {host!r} (no address)")
    for ip in answers:
        rule = check(ip, allow_local)
        if rule is not None:
            raise ssrf_denial(host, rule, allow_local)
    return answers
