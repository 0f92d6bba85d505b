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
from relavium_desktop.host.egress.addresses import LOCAL_RULES, IPAddress, blocked_rule, parse_ip_literal

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


# Where each refused kind of address leads: the "why" of an ssrf_blocked message.
_WHERE = {
    "unspecified": "no real destination (it stands for this machine)",
    "loopback": "this machine itself",
    "link-local": "the local network segment",
    "private": "the local network",
    "CGNAT": "the provider's shared local network",
    "unique-local": "the local network",
    "metadata": "the cloud instance's metadata service (credentials live there)",
    "multicast": "a multicast group, not one server",
    "broadcast": "every machine on the local network",
    "reserved": "reserved address space",
}
# The generic opt-in hint for a caller whose config has one (MCP, providers, web_search).
LOCAL_OPT_IN_HINT = "a local endpoint needs the explicit allowLocal opt-in in its config"


class SsrfBlockedError(ToolDeniedError):
    """``ssrf_blocked``, keeping the host and the rule so a caller can reword the hint."""

    def __init__(self, message: str, *, host: str, rule: str) -> None:
        super().__init__(message, reason=DenyReason.SSRF_BLOCKED)
        self.host = host
        self.rule = rule


def ssrf_denial(
    host: str,
    rule: str,
    allow_local: bool,
    *,
    local_hint: str | None = LOCAL_OPT_IN_HINT,
    note: str | None = None,
) -> SsrfBlockedError:
    """The denial for ``host`` resolving to a ``rule`` address; names the rule, never the address.

    ``local_hint`` tells how to admit a local endpoint (shown only for the
    rules an opt-in lifts); pass ``None`` where the caller has no such option
    (http_request: allowlisted, model-chosen URLs).  ``note`` is appended as is.
    """
    where = _WHERE.get(rule, "a non-public address")
    hint = f" ({local_hint})" if local_hint and not allow_local and rule in LOCAL_RULES else ""
    return SsrfBlockedError(
        f"ssrf_blocked: {host!r} resolves to a {rule} address; requests to {rule} addresses are "
        f"refused by the SSRF rule because they reach {where}, not the public internet{hint}"
        + (f"; {note}" if note else ""),
        host=host,
        rule=rule,
    )


async def resolve_checked(
    host: str,
    port: int,
    *,
    allow_local: bool,
    resolver: Resolver = system_resolver,
    check: AddressCheck = default_address_check,
    local_hint: str | None = LOCAL_OPT_IN_HINT,
) -> list[IPAddress]:
    """Resolve ``host`` once and return its addresses if every one passes ``check``.

    ``local_hint`` words the denial's opt-in hint (see :func:`ssrf_denial`).
    """
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
            raise ssrf_denial(host, rule, allow_local, local_hint=local_hint)
    return answers
