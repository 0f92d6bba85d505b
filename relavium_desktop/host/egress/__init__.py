"""The egress host: one SSRF primitive for every outbound URL the app fetches.

- :mod:`.addresses` classifies addresses and normalises literal IPs;
- :mod:`.resolver` resolves once (worker thread) and refuses blocked answers;
- :mod:`.transport` connects to the validated address with SNI/cert checks
  for the original name (the httpx transport, and :func:`guarded_client`
  for providers and MCP);
- :mod:`.host` is the engine's ``EgressCapability`` (http_request,
  web_search, http tools);
- :mod:`.base_url` validates a configured base URL with an explicit
  local-endpoint opt-in.
"""

from relavium_desktop.host.egress.addresses import blocked_rule, parse_ip_literal
from relavium_desktop.host.egress.base_url import CheckedBaseUrl, check_base_url
from relavium_desktop.host.egress.host import EgressHost
from relavium_desktop.host.egress.resolver import DnsLookupError, resolve_checked
from relavium_desktop.host.egress.transport import PinnedTransport, guarded_client

__all__ = [
    "CheckedBaseUrl",
    "DnsLookupError",
    "EgressHost",
    "PinnedTransport",
    "blocked_rule",
    "check_base_url",
    "guarded_client",
    "parse_ip_literal",
    "resolve_checked",
]
