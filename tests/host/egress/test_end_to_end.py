"""The success path against a real local TLS server, and the clear failures.

The server is reached only through the test-only resolver/check injected in
``conftest.egress``; the default EgressHost refuses it (last test).
"""

from __future__ import annotations

import json
import ssl
from pathlib import Path

import pytest

from relavium_desktop.engine.host import EgressRequest, ToolHost
from relavium_desktop.engine.tools.tooldef import ToolPolicy
from relavium_desktop.host.egress import EgressHost
from relavium_desktop.host.output_store import FileOutputStore
from tests.helpers import dispatch
from tests.host.egress.conftest import ScriptedResolver, TestServer, test_check


def req(url: str, **kw: object) -> EgressRequest:
    return EgressRequest(method=kw.pop("method", "GET"), url=url, run_id="r1", **kw)  # type: ignore[arg-type]


async def test_json_success_through_the_full_pipeline(egress: EgressHost, server: TestServer, store: FileOutputStore) -> None:
    out = await dispatch(
        "http_request",
        {"url": server.url("/json"), "headers": {"X-Client": "relavium"}},
        host=ToolHost(egress=egress, output_store=store),
        policy=ToolPolicy(allowed_domains=server.allowed),
    )
    assert out.ok, out.error
    assert out.result["status"] == 200
    assert out.result["headers"]["x-test-server"] == "yes"
    assert json.loads(out.result["body"]) == {"hello": "world", "n": 1}
    assert type(out.model_facing).__name__ == "UntrustedText"
    # SNI and the Host header carry the original name although we connected to an IP.
    assert server.snis == ["api.example.test"]
    assert server.requests[0]["headers"]["X-Client"] == "relavium"
    assert server.requests[0]["headers"]["Host"].startswith("api.example.test")


async def test_post_body_reaches_the_server(egress: EgressHost, server: TestServer) -> None:
    result = await egress.fetch(
        req(server.url("/json"), method="POST", body='{"a": 1}', allowed_domains=server.allowed)
    )
    assert result["status"] == 200
    assert server.requests[0]["method"] == "POST"
    assert server.requests[0]["body"] == b'{"a": 1}'


async def test_a_user_supplied_host_header_is_dropped(egress: EgressHost, server: TestServer) -> None:
    await egress.fetch(req(server.url("/json"), headers={"Host": "internal.corp"}, allowed_domains=server.allowed))
    assert server.requests[0]["headers"]["Host"].startswith("api.example.test")


async def test_streamed_50_mb_body_spills_to_the_output_store(egress: EgressHost, server: TestServer) -> None:
    result = await egress.fetch(req(server.url("/big?mb=50"), allowed_domains=server.allowed))
    assert result["status"] == 200
    assert result["truncated"] is True
    spill = result["bodySpill"]
    path = Path(spill["path"])
    assert spill["bytes"] == 50 * 1024 * 1024 == path.stat().st_size == result["bodyBytes"]
    with path.open("rb") as fh:
        assert fh.read(32) == b"0123456789abcdef" * 2
    # Only a preview is held in the result, not the 50 MB.
    assert len(result["body"]) <= 64 * 1024
    assert result["body"].startswith("0123456789abcdef")


async def test_stream_flag_spills_even_a_moderate_body(egress: EgressHost, server: TestServer) -> None:
    result = await egress.fetch(req(server.url("/big?mb=1"), stream=True, allowed_domains=server.allowed))
    assert result["truncated"] is True and result["bodySpill"]["bytes"] == 1024 * 1024


async def test_binary_body_is_spilled_not_inlined(egress: EgressHost, server: TestServer) -> None:
    result = await egress.fetch(req(server.url("/png"), allowed_domains=server.allowed))
    assert result["body"] is None
    assert Path(result["bodySpill"]["path"]).read_bytes().startswith(b"\x89PNG")


async def test_byte_ceiling_stops_an_oversized_download(server: TestServer, store: FileOutputStore) -> None:
    host = EgressHost(output_store=store, ssl_context=server.client_context(), resolver=ScriptedResolver(),
                      check=test_check, max_body_bytes=2 * 1024 * 1024)
    out = await dispatch("http_request", {"url": server.url("/big?mb=5")},
                         host=ToolHost(egress=host, output_store=store),
                         policy=ToolPolicy(allowed_domains=server.allowed))
    assert not out.ok and out.error is not None
    assert out.error.code == "tool_failed"
    assert "2,097,152-byte limit" in out.error.message


async def test_untrusted_ca_is_a_clear_tls_error(server: TestServer, store: FileOutputStore) -> None:
    host = EgressHost(output_store=store, ssl_context=ssl.create_default_context(),
                      resolver=ScriptedResolver(), check=test_check)
    out = await dispatch("http_request", {"url": server.url("/json")},
                         host=ToolHost(egress=host), policy=ToolPolicy(allowed_domains=server.allowed))
    assert out.error is not None and out.error.code == "tool_failed"
    assert "TLS certificate verification failed for 'api.example.test'" in out.error.message


async def test_certificate_is_checked_for_the_original_name(server: TestServer, store: FileOutputStore) -> None:
    # wrong.example.test resolves to the server, but its certificate does not name it.
    host = EgressHost(output_store=store, ssl_context=server.client_context(),
                      resolver=ScriptedResolver({"wrong.example.test": [["127.0.0.1"]]}), check=test_check)
    with pytest.raises(Exception) as info:
        await host.fetch(req(f"https://wrong.example.test:{server.port}/json",
                             allowed_domains=(f"wrong.example.test:{server.port}",)))
    assert "TLS certificate verification failed for 'wrong.example.test'" in str(info.value)


async def test_dns_failure_is_clear(egress: EgressHost, server: TestServer) -> None:
    out = await dispatch("http_request", {"url": f"https://nxdomain.example.test:{server.port}/"},
                         host=ToolHost(egress=egress),
                         policy=ToolPolicy(allowed_domains=(f"nxdomain.example.test:{server.port}",)))
    assert out.error is not None and out.error.code == "tool_failed"
    assert "DNS lookup failed for 'nxdomain.example.test'" in out.error.message


async def test_refused_connection_is_clear(egress: EgressHost, server: TestServer) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = await dispatch("http_request", {"url": f"https://api.example.test:{port}/"},
                         host=ToolHost(egress=egress),
                         policy=ToolPolicy(allowed_domains=(f"api.example.test:{port}",)))
    assert out.error is not None and out.error.code == "tool_failed"
    assert "connection to 'api.example.test' was refused" in out.error.message


async def test_timeout_is_clear(egress: EgressHost) -> None:
    import socket

    # A listener that accepts TCP but never speaks TLS: the handshake times out.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        out = await dispatch(
            "http_request", {"url": f"https://api.example.test:{port}/"},
            host=ToolHost(egress=egress), config=_cfg(timeoutMs=300),
            policy=ToolPolicy(allowed_domains=(f"api.example.test:{port}",)),
        )
    assert out.error is not None and out.error.code == "tool_failed"
    assert "timed out" in out.error.message and "api.example.test" in out.error.message


def _cfg(**params: object):  # type: ignore[no-untyped-def]
    from relavium_desktop.engine.tools.tooldef import NodeToolConfig

    return NodeToolConfig(parameters=params)


async def test_default_host_refuses_the_test_server(server: TestServer, store: FileOutputStore) -> None:
    """No loopback exception in production: the real resolver + check refuse 127.0.0.1."""
    host = EgressHost(output_store=store, ssl_context=server.client_context())
    out = await dispatch("http_request", {"url": f"https://127.0.0.1:{server.port}/json"},
                         host=ToolHost(egress=host),
                         policy=ToolPolicy(allowed_domains=(f"127.0.0.1:{server.port}",)))
    assert out.error is not None and (out.error.code, out.error.reason) == ("tool_denied", "ssrf_blocked")
    assert "loopback" in out.error.message
    assert server.requests == []
    # "localhost" goes through the real OS resolver and is refused the same way.
    out = await dispatch("http_request", {"url": f"https://localhost:{server.port}/json"},
                         host=ToolHost(egress=host),
                         policy=ToolPolicy(allowed_domains=(f"localhost:{server.port}",)))
    assert out.error is not None and out.error.reason == "ssrf_blocked"
    assert server.requests == []
