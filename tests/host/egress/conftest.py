"""A real local HTTPS server (trustme test CA) and the test-only routing to it.

Production egress refuses loopback.  These tests reach the server on
127.0.0.1 through two things injected into the transport and visible only
here: ``ScriptedResolver`` (host names -> scripted DNS answers) and
``test_check`` (the production address rules, except that the one exact
test-server address counts as public).  ``EgressHost()`` built without them
refuses the same server, which ``test_default_host_refuses_the_test_server``
asserts.
"""

from __future__ import annotations

import ipaddress
import json
import ssl
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import trustme

from relavium_desktop.host.egress import EgressHost
from relavium_desktop.host.egress.resolver import default_address_check
from relavium_desktop.host.output_store import FileOutputStore

SERVER_IP = "127.0.0.1"
HOSTS = ("api.example.test", "other.example.test", "search.example.test")


def test_check(ip: ipaddress.IPv4Address | ipaddress.IPv6Address, allow_local: bool) -> str | None:
    """Production rules, with the single test-server address treated as public."""
    if str(ip) == SERVER_IP:
        return None
    return default_address_check(ip, allow_local)


test_check.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


class ScriptedResolver:
    """DNS answers per host name; each call pops the next answer (the last one repeats)."""

    def __init__(self, answers: dict[str, list[list[str]]] | None = None) -> None:
        self.answers = answers or {h: [[SERVER_IP]] for h in HOSTS}
        self.calls: list[str] = []

    async def __call__(self, host: str, port: int) -> Sequence[str]:
        self.calls.append(host)
        script = self.answers.get(host)
        if not script:
            from relavium_desktop.host.egress.resolver import DnsLookupError

            raise DnsLookupError(f"DNS lookup failed for {host!r} (no such name in the test script)")
        index = min(self.calls.count(host) - 1, len(script) - 1)
        return script[index]


@dataclass
class TestServer:
    port: int
    ca: trustme.CA
    requests: list[dict[str, Any]] = field(default_factory=list)
    snis: list[str | None] = field(default_factory=list)

    __test__ = False

    def url(self, path: str, host: str = "api.example.test") -> str:
        return f"https://{host}:{self.port}{path}"

    def client_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context()
        self.ca.configure_trust(ctx)
        return ctx

    @property
    def allowed(self) -> tuple[str, ...]:
        return tuple(f"{h}:{self.port}" for h in HOSTS)


BRAVE_BODY = {
    "web": {
        "results": [
            {"title": "Relavium", "url": "https://relavium.example/", "description": "A workbench."},
            {"title": "Second", "url": "https://two.example/", "description": "Another."},
        ]
    }
}
SEARX_BODY = {
    "results": [
        {"title": "Searx hit", "url": "https://searx.example/a", "content": "From SearXNG."},
    ]
}


def _handler(server_state: TestServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, ctype: str = "application/json", **headers: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-Test-Server", "yes")
            for k, v in headers.items():
                self.send_header(k.replace("_", "-"), v)
            self.end_headers()
            self.wfile.write(body)

        def _handle(self) -> None:
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            server_state.requests.append(
                {"method": self.command, "path": parts.path, "query": query,
                 "headers": dict(self.headers.items()), "body": body}
            )
            path = parts.path
            if path == "/json":
                self._send(200, json.dumps({"hello": "world", "n": 1}).encode())
            elif path == "/echo":
                self._send(200, json.dumps({"headers": dict(self.headers.items())}).encode())
            elif path == "/redirect":
                code = int(query.get("code", "302"))
                self._send(code, b"", "text/plain", Location=query["to"])
            elif path == "/big":
                size = int(query.get("mb", "50")) * 1024 * 1024
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(size))
                self.end_headers()
                chunk = (b"0123456789abcdef" * 4096)  # 64 KiB
                sent = 0
                while sent < size:
                    part = chunk[: size - sent]
                    self.wfile.write(part)
                    sent += len(part)
            elif path == "/png":
                self._send(200, b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "image/png")
            elif path == "/image":  # a real PNG of ?w=&h= (media-handle tests)
                from tests.host.media.pictures import png

                self._send(200, png(int(query.get("w", "7")), int(query.get("h", "5"))), "image/png")
            elif path == "/mislabelled":  # a real PNG a server calls text
                from tests.host.media.pictures import png

                self._send(200, png(4, 3), "text/plain")
            elif path == "/bigbin":  # ?kb= of octet-stream; chunked=1 sends no Content-Length
                size = int(query.get("kb", "64")) * 1024
                if query.get("chunked") != "1":
                    self._send(200, b"\x00\xff" * (size // 2), "application/octet-stream")
                else:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for _ in range(size // 4096):
                        self.wfile.write(b"1000\r\n" + b"\x00\xff" * 2048 + b"\r\n")
                    self.wfile.write(b"0\r\n\r\n")
            elif path == "/res/v1/web/search":
                self._send(200, json.dumps(BRAVE_BODY).encode())
            elif path == "/searx/search":
                self._send(200, json.dumps(SEARX_BODY).encode())
            elif path.startswith("/status/"):
                self._send(int(path.rsplit("/", 1)[1]), b'{"error": "nope"}')
            elif path == "/badjson":
                self._send(200, b"<html>not json</html>", "text/html")
            else:
                self._send(404, b'{"error": "not found"}')

        do_GET = do_POST = do_PUT = do_DELETE = _handle

    return Handler


@pytest.fixture(scope="session")
def tls_server() -> Iterator[TestServer]:
    ca = trustme.CA()
    cert = ca.issue_cert(*HOSTS)
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(ctx)
    state = TestServer(port=0, ca=ca)

    def on_sni(sock: ssl.SSLObject, name: str | None, _ctx: ssl.SSLContext) -> None:
        state.snis.append(name)

    ctx.sni_callback = on_sni  # type: ignore[assignment]
    httpd = ThreadingHTTPServer((SERVER_IP, 0), _handler(state))
    httpd.daemon_threads = True
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def server(tls_server: TestServer) -> TestServer:
    tls_server.requests.clear()
    tls_server.snis.clear()
    return tls_server


@pytest.fixture
def store(relavium_home: Path) -> FileOutputStore:
    return FileOutputStore(relavium_home / "runs")


@pytest.fixture
def resolver() -> ScriptedResolver:
    return ScriptedResolver()


@pytest.fixture
def egress(server: TestServer, store: FileOutputStore, resolver: ScriptedResolver) -> EgressHost:
    """An EgressHost routed to the local test server (test-only resolver + check)."""
    return EgressHost(
        output_store=store,
        ssl_context=server.client_context(),
        resolver=resolver,
        check=test_check,
    )
