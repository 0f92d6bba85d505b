"""web_search against local servers speaking Brave's and SearXNG's JSON formats."""

from __future__ import annotations

from typing import Any

import pytest

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.tooldef import NodeToolConfig
from relavium_desktop.host.egress import EgressHost
from relavium_desktop.host.output_store import FileOutputStore
from tests.helpers import dispatch
from tests.host.egress.conftest import ScriptedResolver, TestServer, test_check


async def search(egress: EgressHost, args: dict[str, Any], **config: Any) -> Any:
    return await dispatch("web_search", args, host=ToolHost(egress=egress),
                          config=NodeToolConfig(parameters=config))


async def test_brave_results_are_normalised(egress: EgressHost, server: TestServer) -> None:
    out = await search(egress, {"query": "relavium desktop", "count": 5}, provider="brave",
                       baseUrl=server.url("/res/v1/web/search", "search.example.test"))
    assert out.ok, out.error
    assert out.result == {"results": [
        {"title": "Relavium", "url": "https://relavium.example/", "snippet": "A workbench."},
        {"title": "Second", "url": "https://two.example/", "snippet": "Another."},
    ]}
    sent = server.requests[0]
    assert sent["query"] == {"q": "relavium desktop", "count": "5"}
    assert type(out.model_facing).__name__ == "UntrustedText"


async def test_count_limits_results(egress: EgressHost, server: TestServer) -> None:
    out = await search(egress, {"query": "x", "count": 1}, provider="brave",
                       baseUrl=server.url("/res/v1/web/search", "search.example.test"))
    assert [r["title"] for r in out.result["results"]] == ["Relavium"]


async def test_searxng_results_are_normalised(egress: EgressHost, server: TestServer) -> None:
    out = await search(egress, {"query": "q"}, provider="searxng", baseUrl=server.url("/searx", "search.example.test"))
    assert out.ok, out.error
    assert out.result == {"results": [{"title": "Searx hit", "url": "https://searx.example/a",
                                       "snippet": "From SearXNG."}]}
    assert server.requests[0]["path"] == "/searx/search"
    assert server.requests[0]["query"]["format"] == "json"


@pytest.mark.parametrize(("path", "expect"), [
    ("/status/401", "refused the request (HTTP 401); check the API key"),
    ("/status/429", "rate limit was hit (HTTP 429)"),
    ("/status/500", "answered HTTP 500"),
    ("/badjson", "did not return valid JSON"),
])
async def test_provider_errors_are_clear_tool_errors(
    egress: EgressHost, server: TestServer, path: str, expect: str
) -> None:
    out = await search(egress, {"query": "q"}, provider="brave", baseUrl=server.url(path, "search.example.test"))
    assert out.error is not None and out.error.code == "tool_failed"
    assert expect in out.error.message


async def test_provider_url_goes_through_the_ssrf_primitive(server: TestServer, store: FileOutputStore) -> None:
    # A self-hosted SearXNG on a private address: refused without the opt-in ...
    resolver = ScriptedResolver({"searx.lan": [["192.168.1.50"]]})
    host = EgressHost(output_store=store, ssl_context=server.client_context(), resolver=resolver, check=test_check)
    out = await search(host, {"query": "q"}, provider="searxng", baseUrl="https://searx.lan/")
    assert out.error is not None and (out.error.code, out.error.reason) == ("tool_denied", "ssrf_blocked")
    assert "allowLocal" in out.error.message
    # ... and the opt-in admits the private address (nothing listens there, so it fails to
    # connect -- the point is that it is no longer an SSRF denial).
    out = await search(host, {"query": "q"}, provider="searxng", baseUrl="https://searx.lan/", allowLocal=True,
                       timeoutMs=500)
    assert out.error is not None and out.error.code == "tool_failed"
    # Plain http only with the opt-in; metadata never.
    out = await search(host, {"query": "q"}, provider="searxng", baseUrl="http://searx.lan/")
    assert out.error is not None and out.error.reason == "https_required"
    out = await search(host, {"query": "q"}, provider="searxng", baseUrl="http://169.254.169.254/", allowLocal=True)
    assert out.error is not None and out.error.reason == "ssrf_blocked"


async def test_model_cannot_choose_provider_or_url(egress: EgressHost, server: TestServer) -> None:
    out = await search(egress, {"query": "q", "baseUrl": "https://evil.example/"}, provider="searxng",
                       baseUrl=server.url("/searx", "search.example.test"))
    assert out.ok and server.requests[0]["path"] == "/searx/search"
