"""The SSRF address rules: every class, every spelling, and public addresses passing."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relavium_desktop.engine.errors import ToolDeniedError
from relavium_desktop.host.egress.addresses import blocked_rule, parse_ip_literal
from relavium_desktop.host.egress.base_url import check_base_url
from relavium_desktop.host.egress.resolver import resolve_checked
from tests.host.egress.conftest import ScriptedResolver

CLASSES = [
    ("127.0.0.1", "loopback"), ("127.255.255.254", "loopback"), ("::1", "loopback"),
    ("10.0.0.1", "private"), ("172.16.0.1", "private"), ("172.31.255.255", "private"),
    ("192.168.1.1", "private"),
    ("169.254.1.1", "link-local"), ("fe80::1", "link-local"), ("fe80::1%eth0", "link-local"),
    ("100.64.0.1", "CGNAT"), ("100.127.255.254", "CGNAT"),
    ("fc00::1", "unique-local"), ("fd12:3456::1", "unique-local"),
    ("169.254.169.254", "metadata"), ("fd00:ec2::254", "metadata"),
    ("0.0.0.0", "unspecified"), ("::", "unspecified"), ("0.1.2.3", "unspecified"),
    ("224.0.0.1", "multicast"), ("239.255.255.250", "multicast"), ("ff02::1", "multicast"),
    ("255.255.255.255", "broadcast"),
    ("240.0.0.1", "reserved"), ("192.0.2.1", "reserved"), ("198.18.0.1", "reserved"),
    ("2001:db8::1", "reserved"),
    # IPv6 forms embedding a blocked IPv4 address are judged by it.
    ("::ffff:127.0.0.1", "loopback"), ("::ffff:7f00:1", "loopback"), ("::ffff:10.0.0.1", "private"),
    ("::ffff:169.254.169.254", "metadata"), ("::127.0.0.1", "loopback"), ("::10.0.0.1", "private"),
    ("64:ff9b::127.0.0.1", "loopback"), ("64:ff9b::a9fe:a9fe", "metadata"), ("64:ff9b::c0a8:1", "private"),
    ("2002:7f00:1::1", "loopback"), ("2002:a00:1::", "private"),
]


@pytest.mark.parametrize(("address", "rule"), CLASSES)
async def test_each_address_class_is_ssrf_blocked(address: str, rule: str) -> None:
    # As a DNS answer for a name ...
    with pytest.raises(ToolDeniedError) as info:
        await resolve_checked("svc.example.test", 443, allow_local=False,
                              resolver=ScriptedResolver({"svc.example.test": [[address]]}))
    assert info.value.reason == "ssrf_blocked"
    assert rule in info.value.message
    assert address not in info.value.message  # names the rule, not the address
    # ... and as a literal host.
    with pytest.raises(ToolDeniedError) as info:
        await resolve_checked(f"[{address}]" if ":" in address else address, 443, allow_local=False,
                              resolver=ScriptedResolver({}))
    assert info.value.reason == "ssrf_blocked"


SPELLINGS = [
    ("2130706433", "127.0.0.1"), ("0x7f.1", "127.0.0.1"), ("017700000001", "127.0.0.1"),
    ("127.1", "127.0.0.1"), ("[::ffff:7f00:1]", "::ffff:7f00:1"), ("0x7f000001", "127.0.0.1"),
    ("0177.0.0.1", "127.0.0.1"), ("0x7F.0.0.1", "127.0.0.1"), ("127.0.1", "127.0.0.1"),
    ("127.0.0.1.", "127.0.0.1"), ("0", "0.0.0.0"), ("0xa9fea9fe", "169.254.169.254"),
    ("169.254.43518", "169.254.169.254"), ("10.1", "10.0.0.1"), ("[0:0:0:0:0:ffff:127.0.0.1]", "::ffff:7f00:1"),
    ("[::1]", "::1"), ("[0000::0001]", "::1"),
]


@pytest.mark.parametrize(("spelling", "normal"), SPELLINGS)
async def test_literal_spellings_are_normalised_then_blocked(spelling: str, normal: str) -> None:
    assert parse_ip_literal(spelling) == ipaddress.ip_address(normal)
    resolver = ScriptedResolver({})
    with pytest.raises(ToolDeniedError) as info:
        await resolve_checked(spelling, 443, allow_local=False, resolver=resolver)
    assert info.value.reason == "ssrf_blocked"
    assert resolver.calls == []  # a literal never reaches DNS


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111",
                                     "::ffff:8.8.8.8", "64:ff9b::808:808", "172.32.0.1", "100.128.0.1",
                                     "192.169.0.1", "11.0.0.1"])
async def test_public_addresses_pass(address: str) -> None:
    assert blocked_rule(ipaddress.ip_address(address)) is None
    got = await resolve_checked("pub.example.test", 443, allow_local=False,
                                resolver=ScriptedResolver({"pub.example.test": [[address]]}))
    assert [str(a) for a in got] == [str(ipaddress.ip_address(address))]


@pytest.mark.parametrize(("address", "allowed"), [
    ("127.0.0.1", True), ("192.168.1.20", True), ("10.0.0.5", True), ("fd12::5", True), ("100.64.1.1", True),
    ("169.254.169.254", False), ("169.254.10.10", False), ("fd00:ec2::254", False), ("224.0.0.1", False),
    ("0.0.0.0", False), ("::ffff:169.254.169.254", False),
])
def test_local_opt_in_admits_local_endpoints_but_never_metadata(address: str, allowed: bool) -> None:
    assert (blocked_rule(ipaddress.ip_address(address), allow_local=True) is None) is allowed


async def test_base_url_helper_needs_the_explicit_local_opt_in() -> None:
    with pytest.raises(ToolDeniedError) as info:
        await check_base_url("http://localhost:11434/v1", resolver=ScriptedResolver({"localhost": [["127.0.0.1"]]}))
    assert info.value.reason == "https_required"
    with pytest.raises(ToolDeniedError) as info:
        await check_base_url("https://localhost:11434/v1", resolver=ScriptedResolver({"localhost": [["127.0.0.1"]]}))
    assert info.value.reason == "ssrf_blocked" and "allowLocal" in info.value.message
    ok = await check_base_url("http://localhost:11434/v1", allow_local=True,
                              resolver=ScriptedResolver({"localhost": [["127.0.0.1"]]}))
    assert ok.port == 11434 and [str(a) for a in ok.addresses] == ["127.0.0.1"]
    with pytest.raises(ToolDeniedError) as info:
        await check_base_url("http://169.254.169.254/latest", allow_local=True)
    assert info.value.reason == "ssrf_blocked" and "metadata" in info.value.message


# -- generated spellings --------------------------------------------------------

BLOCKED_V4 = st.one_of(
    st.integers(0x7F000000, 0x7FFFFFFF),  # 127/8
    st.integers(0x0A000000, 0x0AFFFFFF),  # 10/8
    st.integers(0xAC100000, 0xAC1FFFFF),  # 172.16/12
    st.integers(0xC0A80000, 0xC0A8FFFF),  # 192.168/16
    st.integers(0xA9FE0000, 0xA9FEFFFF),  # 169.254/16
    st.integers(0x64400000, 0x647FFFFF),  # 100.64/10
    st.integers(0x00000000, 0x00FFFFFF),  # 0/8
    st.integers(0xE0000000, 0xFFFFFFFF),  # multicast, reserved, broadcast
)


def _part(value: int, style: str) -> str:
    if style == "hex":
        return hex(value)
    if style == "HEX":
        return "0X" + format(value, "X")
    if style == "oct":
        return "0" + format(value, "o")
    return str(value)


@st.composite
def spelled_v4(draw: st.DrawFn) -> tuple[str, int]:
    value = draw(BLOCKED_V4)
    b = value.to_bytes(4, "big")
    parts_n = draw(st.integers(1, 4))
    styles = st.sampled_from(["dec", "hex", "HEX", "oct"])
    if parts_n == 1:
        nums = [value]
    elif parts_n == 2:
        nums = [b[0], int.from_bytes(b[1:], "big")]
    elif parts_n == 3:
        nums = [b[0], b[1], int.from_bytes(b[2:], "big")]
    else:
        nums = list(b)
    text = ".".join(_part(n, draw(styles)) for n in nums)
    return text, value


@settings(max_examples=300, deadline=None)
@given(spelled_v4())
def test_generated_ipv4_spellings_of_blocked_addresses_are_blocked(case: tuple[str, int]) -> None:
    text, value = case
    ip = parse_ip_literal(text)
    assert ip == ipaddress.IPv4Address(value)
    assert blocked_rule(ip) is not None


@st.composite
def spelled_v6(draw: st.DrawFn) -> str:
    v4 = ipaddress.IPv4Address(draw(BLOCKED_V4))
    form = draw(st.sampled_from(["mapped", "mapped-hex", "compat", "nat64", "6to4", "expanded"]))
    if form == "mapped":
        text = f"::ffff:{v4}"
    elif form == "mapped-hex":
        text = str(ipaddress.IPv6Address(int(ipaddress.IPv6Address("::ffff:0:0")) | int(v4)))
    elif form == "compat":
        text = f"::{v4}"
    elif form == "nat64":
        text = f"64:ff9b::{v4}"
    elif form == "6to4":
        text = str(ipaddress.IPv6Address((0x2002 << 112) | (int(v4) << 80)))
    else:
        text = ipaddress.IPv6Address(f"::ffff:{v4}").exploded
    if draw(st.booleans()):
        text = text.upper()
    return f"[{text}]" if draw(st.booleans()) else text


@settings(max_examples=300, deadline=None)
@given(spelled_v6())
def test_generated_ipv6_forms_of_blocked_addresses_are_blocked(text: str) -> None:
    ip = parse_ip_literal(text)
    assert ip is not None
    rule = blocked_rule(ip)
    # ::0.x.y.z (compat form of 0/8) is "unspecified"-space too; every form is refused.
    assert rule is not None, text


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 0xFFFFFFFF))
def test_classifier_agrees_with_ipaddress_on_non_global(value: int) -> None:
    ip = ipaddress.IPv4Address(value)
    if not ip.is_global or ip.is_multicast:
        assert blocked_rule(ip) is not None
