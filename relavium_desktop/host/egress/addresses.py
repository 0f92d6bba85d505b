"""Address classification for the SSRF primitive.

Every destination the app connects to on a user's or model's behalf passes
through :func:`blocked_rule`, after the host name has been resolved or a
literal IP has been normalised by :func:`parse_ip_literal`.  The rules are
written out as explicit networks (rather than trusting only
``ipaddress.is_global``) so a denial can name the rule it hit, and IPv6
forms that embed an IPv4 address (mapped, compatible, NAT64, 6to4) are
judged by the address they embed, because that is where a packet can end up.
"""

from __future__ import annotations

import ipaddress
import re

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network

# Cloud metadata endpoints: refused even with the local opt-in.
METADATA = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),
        ipaddress.ip_address("fd00:ec2::254"),
        ipaddress.ip_address("100.100.100.200"),
    }
)

# (rule, networks) in the order a denial names them; the first match wins.
_RULES: tuple[tuple[str, tuple[_V4 | _V6, ...]], ...] = (
    ("unspecified", (_V4("0.0.0.0/8"), _V6("::/128"))),
    ("loopback", (_V4("127.0.0.0/8"), _V6("::1/128"))),
    ("link-local", (_V4("169.254.0.0/16"), _V6("fe80::/10"))),
    ("private", (_V4("10.0.0.0/8"), _V4("172.16.0.0/12"), _V4("192.168.0.0/16"))),
    ("CGNAT", (_V4("100.64.0.0/10"),)),
    ("unique-local", (_V6("fc00::/7"),)),
    ("multicast", (_V4("224.0.0.0/4"), _V6("ff00::/8"))),
    ("broadcast", (_V4("255.255.255.255/32"),)),
    (
        "reserved",
        (
            _V4("192.0.0.0/24"),
            _V4("192.0.2.0/24"),
            _V4("198.18.0.0/15"),
            _V4("198.51.100.0/24"),
            _V4("203.0.113.0/24"),
            _V4("240.0.0.0/4"),
            _V6("64:ff9b:1::/48"),
            _V6("100::/64"),
            _V6("2001:db8::/32"),
            _V6("fec0::/10"),
        ),
    ),
)

# Rules the explicit local-endpoint opt-in (Ollama, a LAN SearXNG, a local MCP
# server) lets through.  Link-local, metadata and the rest stay refused.
LOCAL_RULES = frozenset({"loopback", "private", "CGNAT", "unique-local"})

_NAT64 = _V6("64:ff9b::/96")
_COMPAT = _V6("::/96")
_SIXTOFOUR = _V6("2002::/16")


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form routes to, if it embeds one."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64 or (ip in _COMPAT and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    return None


def blocked_rule(ip: IPAddress, *, allow_local: bool = False) -> str | None:
    """The name of the rule that refuses ``ip``, or ``None`` for a public address.

    ``allow_local`` is the explicit, visible opt-in for local endpoints; it
    never admits metadata, link-local, multicast or reserved space.
    """
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            ip = ipaddress.IPv6Address(ip.compressed.split("%", 1)[0])
        inner = embedded_ipv4(ip)
        if inner is not None:
            return blocked_rule(inner, allow_local=allow_local)
    if ip in METADATA:
        return "metadata"
    for rule, networks in _RULES:
        if any(ip.version == net.version and ip in net for net in networks):
            if allow_local and rule in LOCAL_RULES:
                return None
            return rule
    if not ip.is_global:
        return "reserved"
    return None


_PART_RE = re.compile(r"^(0[xX][0-9a-fA-F]*|0[0-7]*|[1-9][0-9]*)$")


def _inet_aton_part(part: str) -> int | None:
    if not _PART_RE.match(part):
        return None
    if part[:2].lower() == "0x":
        return int(part[2:] or "0", 16)
    if len(part) > 1 and part[0] == "0":
        return int(part, 8)
    return int(part)


def _parse_ipv4_any(host: str) -> ipaddress.IPv4Address | None:
    """IPv4 in every spelling inet_aton/WHATWG accept: 127.1, 0x7f.1, 2130706433, 017700000001."""
    parts = host.split(".")
    if parts and parts[-1] == "" and len(parts) > 1:
        parts = parts[:-1]  # a trailing dot is still the same literal
    if not 1 <= len(parts) <= 4:
        return None
    values = [_inet_aton_part(p) for p in parts]
    if any(v is None for v in values):
        return None
    nums = [v for v in values if v is not None]
    *head, last = nums
    if any(v > 0xFF for v in head) or last >= 1 << (8 * (5 - len(nums))):
        return None
    value = 0
    for v in head:
        value = (value << 8) | v
    value = (value << (8 * (5 - len(nums)))) | last
    return ipaddress.IPv4Address(value)


def parse_ip_literal(host: str) -> IPAddress | None:
    """Normalise a literal IP host in any spelling, or ``None`` for a DNS name.

    Brackets and an IPv6 zone id are accepted; dotted, integer, hex and
    octal IPv4 forms are all normalised, so none of them reaches a resolver
    that might read them differently.
    """
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if ":" in text:
        try:
            return ipaddress.IPv6Address(text.split("%", 1)[0])
        except ValueError:
            return None
    return _parse_ipv4_any(text)
