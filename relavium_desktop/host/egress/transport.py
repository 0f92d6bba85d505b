"""The pinned-address httpx transport: the SSRF primitive's connection half.

httpx normally resolves a host itself when it opens a connection.  Here the
httpcore network backend is replaced by :class:`PinnedNetworkBackend`, whose
``connect_tcp`` resolves the name once (through :func:`resolve_checked`),
refuses the connection if any answer is blocked, and then opens the socket
to a validated address itself.  httpcore still performs the TLS handshake
with the *original host name* as SNI and as the name the certificate is
verified against, so pinning never weakens certificate checks.

A proxy would defeat pinning, so clients built here never read proxy
settings from the environment.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

from relavium_desktop.host.egress.errors import transport_error_map
from relavium_desktop.host.egress.resolver import (
    AddressCheck,
    Resolver,
    default_address_check,
    resolve_checked,
    system_resolver,
)

_EXC_MAP = transport_error_map(httpcore, httpx)


@contextmanager
def _mapped() -> Iterator[None]:
    try:
        yield
    except httpcore.TimeoutException as exc:
        raise _convert(exc) from exc
    except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol) as exc:
        raise _convert(exc) from exc


def _convert(exc: Exception) -> Exception:
    for src, dst in _EXC_MAP:
        if isinstance(exc, src):
            return dst(str(exc))
    return exc


class PinnedNetworkBackend(httpcore.AsyncNetworkBackend):
    """Resolve-and-check once, then connect to the validated address itself."""

    def __init__(
        self,
        *,
        allow_local: bool,
        resolver: Resolver,
        check: AddressCheck,
        inner: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self.allow_local = allow_local
        self.resolver = resolver
        self.check = check
        self.inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await resolve_checked(
            host, port, allow_local=self.allow_local, resolver=self.resolver, check=self.check
        )
        last: Exception | None = None
        for ip in addresses:  # every one was validated before the first connect
            try:
                return await self.inner.connect_tcp(
                    str(ip), port, timeout=timeout, local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        assert last is not None
        raise last

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not an egress destination")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class _ResponseStream(httpx.AsyncByteStream):
    def __init__(self, stream: Any) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _mapped():
            async for part in self._stream:
                yield part

    async def aclose(self) -> None:
        if hasattr(self._stream, "aclose"):
            with _mapped():
                await self._stream.aclose()


class PinnedTransport(httpx.AsyncBaseTransport):
    """An httpx transport whose every connection goes through the SSRF check.

    ``resolver`` and ``check`` exist so tests can script DNS and reach a
    local test server; production code never passes them.
    """

    def __init__(
        self,
        *,
        allow_local: bool = False,
        ssl_context: ssl.SSLContext | None = None,
        resolver: Resolver = system_resolver,
        check: AddressCheck = default_address_check,
    ) -> None:
        self.backend = PinnedNetworkBackend(allow_local=allow_local, resolver=resolver, check=check)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context or httpx.create_ssl_context(),
            http1=True,
            http2=False,
            retries=0,
            network_backend=self.backend,
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.AsyncByteStream)
        req = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _mapped():
            resp = await self._pool.handle_async_request(req)
        return httpx.Response(
            status_code=resp.status,
            headers=resp.headers,
            stream=_ResponseStream(resp.stream),
            extensions=resp.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()


def guarded_client(
    *,
    allow_local: bool = False,
    timeout: float = 30.0,
    ssl_context: ssl.SSLContext | None = None,
    resolver: Resolver = system_resolver,
    check: AddressCheck = default_address_check,
    **kwargs: Any,
) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` for any outbound call made on a user's behalf.

    LLM providers and MCP clients use this instead of a bare client: every
    connection is resolved once, checked, and pinned.  Redirects are not
    followed (a redirect must be re-checked by the caller) and proxy
    environment variables are ignored.
    """
    return httpx.AsyncClient(
        transport=PinnedTransport(
            allow_local=allow_local, ssl_context=ssl_context, resolver=resolver, check=check
        ),
        timeout=timeout,
        follow_redirects=False,
        trust_env=False,
        **kwargs,
    )
