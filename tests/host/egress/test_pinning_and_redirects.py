"""DNS pinning (no second lookup) and redirect handling, against the real TLS server."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from relavium_desktop.engine.errors import ToolError
from relavium_desktop.engine.host import EgressRequest, ToolHost
from relavium_desktop.engine.tools.tooldef import NodeToolConfig, ToolPolicy
from relavium_desktop.host.egress import EgressHost
from relavium_desktop.host.output_store import FileOutputStore
from tests.helpers import dispatch
from tests.host.egress.conftest import ScriptedResolver, TestServer, test_check


def host_with(server: TestServer, store: FileOutputStore, resolver: ScriptedResolver) -> EgressHost:
    return EgressHost(output_store=store, ssl_context=server.client_context(), resolver=resolver, check=test_check)


async def test_rebinding_resolver_is_asked_once_and_the_first_answer_is_used(
    server: TestServer, store: FileOutputStore
) -> None:
    # First answer: the server's address (public for this test); any later query
    # would answer loopback 127.0.0.2, where nothing listens.
    resolver = ScriptedResolver({"api.example.test": [["127.0.0.1"], ["127.0.0.2"]]})
    host = host_with(server, store, resolver)
    result = await host.fetch(EgressRequest(method="GET", url=server.url("/json"), run_id="r",
                                            allowed_domains=server.allowed))
    assert result["status"] == 200
    assert resolver.calls == ["api.example.test"]
    assert len(server.requests) == 1


async def test_second_lookup_answering_loopback_would_have_been_refused(
    server: TestServer, store: FileOutputStore
) -> None:
    """Control for the test above: the scripted second answer is really blocked."""
    resolver = ScriptedResolver({"api.example.test": [["127.0.0.2"]]})
    with pytest.raises(ToolError) as info:
        await host_with(server, store, resolver).fetch(
            EgressRequest(method="GET", url=server.url("/json"), run_id="r", allowed_domains=server.allowed)
        )
    assert info.value.reason == "ssrf_blocked" and "loopback" in info.value.message


@pytest.mark.parametrize("private", ["10.1.2.3", "192.168.0.10", "169.254.169.254", "fd12::1", "::ffff:10.0.0.1"])
async def test_one_public_and_one_private_answer_is_refused(
    server: TestServer, store: FileOutputStore, private: str
) -> None:
    resolver = ScriptedResolver({"api.example.test": [["127.0.0.1", private]]})
    with pytest.raises(ToolError) as info:
        await host_with(server, store, resolver).fetch(
            EgressRequest(method="GET", url=server.url("/json"), run_id="r", allowed_domains=server.allowed)
        )
    assert (info.value.code, info.value.reason) == ("tool_denied", "ssrf_blocked")
    assert private not in info.value.message and "127.0.0.1" not in info.value.message
    assert server.requests == []


async def test_public_answer_passes_the_real_classifier_then_connects_to_it(
    server: TestServer, store: FileOutputStore
) -> None:
    """The pinned backend connects to the validated address: a public one is attempted."""
    attempted: list[str] = []

    class Recorder:
        async def connect_tcp(self, host: str, port: int, **kw: object) -> object:
            attempted.append(host)
            import httpcore

            raise httpcore.ConnectError("recorded only")

        async def sleep(self, seconds: float) -> None:  # pragma: no cover
            pass

    # No real public network here, so a recording inner backend stands in for the socket.
    from relavium_desktop.host.egress.transport import PinnedNetworkBackend

    backend = PinnedNetworkBackend(
        allow_local=False, resolver=ScriptedResolver({"pub.example.test": [["93.184.216.34"]]}),
        check=lambda ip, local: None if str(ip) == "93.184.216.34" else "x",
        inner=Recorder(),  # type: ignore[arg-type]
    )
    with pytest.raises(Exception, match="recorded only"):
        await backend.connect_tcp("pub.example.test", 443)
    assert attempted == ["93.184.216.34"]


def r(server: TestServer, to: str, code: int = 302) -> str:
    return server.url(f"/redirect?code={code}&to={quote(to, safe='')}")


async def test_redirect_is_returned_by_default(egress: EgressHost, server: TestServer, store: FileOutputStore) -> None:
    out = await dispatch("http_request", {"url": r(server, server.url("/json", "other.example.test"))},
                         host=ToolHost(egress=egress, output_store=store),
                         policy=ToolPolicy(allowed_domains=server.allowed))
    assert out.ok, out.error
    assert out.result["status"] == 302
    assert out.result["location"] == server.url("/json", "other.example.test")
    assert out.result["headers"]["location"] == out.result["location"]
    assert len(server.requests) == 1  # not followed


async def test_model_cannot_turn_following_on(egress: EgressHost, server: TestServer) -> None:
    out = await dispatch("http_request", {"url": r(server, server.url("/json")), "followRedirects": True},
                         host=ToolHost(egress=egress), policy=ToolPolicy(allowed_domains=server.allowed))
    assert out.ok and out.result["status"] == 302  # config-only: a model value is dropped


def follow() -> NodeToolConfig:
    return NodeToolConfig(parameters={"followRedirects": True})


async def test_follow_redirects_reaches_an_allowlisted_target(egress: EgressHost, server: TestServer) -> None:
    out = await dispatch("http_request", {"url": r(server, server.url("/json", "other.example.test"))},
                         host=ToolHost(egress=egress), config=follow(),
                         policy=ToolPolicy(allowed_domains=server.allowed))
    assert out.ok, out.error
    assert out.result["status"] == 200 and out.result["redirects"] == 1
    assert server.snis == ["api.example.test", "other.example.test"]


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("http://other.example.test/json", "https_required"),
        ("https://evil.example.test/json", "domain_not_allowed"),
        ("https://user:pw@other.example.test/json", "domain_not_allowed"),
    ],
)
async def test_follow_redirects_refuses_a_bad_hop(
    egress: EgressHost, server: TestServer, target: str, reason: str
) -> None:
    out = await dispatch("http_request", {"url": r(server, target)},
                         host=ToolHost(egress=egress), config=follow(),
                         policy=ToolPolicy(allowed_domains=server.allowed))
    assert out.error is not None and (out.error.code, out.error.reason) == ("tool_denied", reason)
    assert "redirect hop 1" in out.error.message
    assert len(server.requests) == 1


async def test_follow_redirects_refuses_a_hop_to_a_private_address(server: TestServer, store: FileOutputStore) -> None:
    resolver = ScriptedResolver({"api.example.test": [["127.0.0.1"]], "other.example.test": [["10.0.0.7"]]})
    host = host_with(server, store, resolver)
    out = await dispatch("http_request", {"url": r(server, server.url("/json", "other.example.test"))},
                         host=ToolHost(egress=host), config=follow(),
                         policy=ToolPolicy(allowed_domains=server.allowed))
    assert out.error is not None and (out.error.code, out.error.reason) == ("tool_denied", "ssrf_blocked")
    assert "private" in out.error.message and "10.0.0.7" not in out.error.message
    assert len(server.requests) == 1


async def test_follow_redirects_refuses_a_literal_loopback_hop(egress: EgressHost, server: TestServer) -> None:
    # 0x7f.2 is 127.0.0.2 (only 127.0.0.1 is the test exception).
    out = await dispatch("http_request", {"url": r(server, f"https://0x7f.2:{server.port}/json")},
                         host=ToolHost(egress=egress), config=follow(),
                         policy=ToolPolicy(allowed_domains=(*server.allowed, f"0x7f.2:{server.port}")))
    assert out.error is not None and out.error.reason == "ssrf_blocked"


async def test_redirect_chain_longer_than_five_hops_fails(egress: EgressHost, server: TestServer) -> None:
    url = server.url("/json")
    for _ in range(6):
        url = r(server, url)
    out = await dispatch("http_request", {"url": url}, host=ToolHost(egress=egress), config=follow(),
                         policy=ToolPolicy(allowed_domains=server.allowed))
    assert out.error is not None and "too many redirects" in out.error.message
    assert len(server.requests) == 6


async def test_303_turns_post_into_get_without_body(egress: EgressHost, server: TestServer) -> None:
    out = await dispatch("http_request", {"method": "POST", "url": r(server, server.url("/json"), 303), "body": "x"},
                         host=ToolHost(egress=egress), config=follow(),
                         policy=ToolPolicy(allowed_domains=server.allowed))
    assert out.ok
    assert [q["method"] for q in server.requests] == ["POST", "GET"]
    assert server.requests[1]["body"] == b""
