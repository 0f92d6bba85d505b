"""Table tests of the http_request allowlist matcher (pure engine policy)."""

from __future__ import annotations

import pytest

from relavium_desktop.engine.errors import ToolError
from relavium_desktop.engine.tools.domain_policy import check_url
from relavium_desktop.engine.tools.tooldef import ToolPolicy
from tests.helpers import dispatch

ALLOW = ["api.example.com", "Mixed.Example.ORG.", "bücher.de", "xn--fa-hia.de", "ports.example.com:8443", "[2606:4700::1111]"]

CASES: list[tuple[str, str | None]] = [
    # allowed
    ("https://api.example.com/v1", None),
    ("https://API.EXAMPLE.COM/v1", None),                # case
    ("https://api.example.com./v1", None),               # trailing dot normalised
    ("https://mixed.example.org/", None),                # entry case + trailing dot normalised
    ("https://api.example.com:443/", None),              # the default port spelled out
    ("https://bücher.de/", None),                        # IDNA: unicode URL, unicode entry
    ("https://xn--bcher-kva.de/", None),                 # IDNA: punycode URL, unicode entry
    ("https://BÜCHER.de/", None),                        # IDNA + case
    ("https://faß.de/", None),                           # IDNA2008: ß is not "ss"
    ("https://ports.example.com:8443/x", None),          # port named by the entry
    ("https://[2606:4700::1111]/", None),
    # refused
    ("https://evil.api.example.com/", "domain_not_allowed"),       # subdomain
    ("https://example.com/", "domain_not_allowed"),                # parent
    ("https://myapi.example.com/", "domain_not_allowed"),          # suffix
    ("https://api.example.com.evil.net/", "domain_not_allowed"),   # prefix
    ("https://api.example.comm/", "domain_not_allowed"),
    ("https://fass.de/", "domain_not_allowed"),                    # IDNA2003 folding is not a match
    ("https://api.example.com:8443/", "domain_not_allowed"),       # explicit port not named
    ("https://ports.example.com/", "domain_not_allowed"),          # entry names another port
    ("https://ports.example.com:9443/", "domain_not_allowed"),
    ("https://user@api.example.com/", "domain_not_allowed"),       # userinfo
    ("https://user:pw@api.example.com/", "domain_not_allowed"),
    ("https://evil.net@api.example.com/", "domain_not_allowed"),
    ("https://api.example.com@evil.net/", "domain_not_allowed"),
    ("https://api.example.com\\@evil.net/", "schema"),             # backslash confusion
    ("https://api.example.com%2f@evil.net/", "domain_not_allowed"),
    ("https://%61pi.example.com/", "schema"),                      # percent-encoded host
    ("https://api.example.com../", "schema"),                      # two trailing dots
    ("https:// api.example.com/", "schema"),
    ("https://api.example.com\t/", "schema"),
    ("http://api.example.com/", "https_required"),
    ("ftp://api.example.com/", "https_required"),
    ("file:///etc/passwd", "schema"),
    ("https://[2606:4700::1112]/", "domain_not_allowed"),
    ("https://2130706433/", "domain_not_allowed"),
]


@pytest.mark.parametrize(("url", "reason"), CASES)
def test_allowlist_table(url: str, reason: str | None) -> None:
    if reason is None:
        check_url(url, ALLOW)
        return
    with pytest.raises(ToolError) as info:
        check_url(url, ALLOW)
    assert info.value.reason == reason, info.value.message


@pytest.mark.parametrize("allowed", [None, [], ["", "  "], ["https://"]])
def test_empty_or_absent_allowlist_disables_egress(allowed: list[str] | None) -> None:
    with pytest.raises(ToolError) as info:
        check_url("https://api.example.com/", allowed)
    assert info.value.reason == "egress_disabled"


def test_entries_may_be_written_as_urls() -> None:
    check_url("https://api.example.com/", ["https://api.example.com/"])
    check_url("https://ports.example.com:8443/", ["https://ports.example.com:8443"])


def test_denial_message_names_the_rule_not_a_secret() -> None:
    with pytest.raises(ToolError) as info:
        check_url("https://user:hunter2@api.example.com/", ALLOW)
    assert "hunter2" not in info.value.message
    assert "credentialRef" in info.value.message


async def test_pipeline_applies_the_allowlist_before_any_host_call() -> None:
    # No egress capability at all: a denial proves the guard ran first.
    out = await dispatch("http_request", {"url": "https://evil.example.com/"},
                         policy=ToolPolicy(allowed_domains=("api.example.com",)))
    assert out.error is not None and (out.error.code, out.error.reason) == ("tool_denied", "domain_not_allowed")
    out = await dispatch("http_request", {"url": "https://api.example.com/"}, policy=ToolPolicy())
    assert out.error is not None and out.error.reason == "egress_disabled"
    out = await dispatch("http_request", {"url": "https://api.example.com/"},
                         policy=ToolPolicy(allowed_domains=("api.example.com",)))
    assert out.error is not None and out.error.code == "tool_unavailable"


async def test_body_over_one_mib_is_too_large() -> None:
    out = await dispatch("http_request", {"url": "https://api.example.com/", "method": "POST",
                                          "body": "é" * (512 * 1024 + 1)},
                         policy=ToolPolicy(allowed_domains=("api.example.com",)))
    assert out.error is not None and (out.error.code, out.error.reason) == ("invalid_args", "too_large")
