"""The Streamable HTTP transport, connected only through the SSRF primitive.

The SDK speaks HTTP through ``httpx2``; every byte it sends here goes through
:func:`~relavium_desktop.host.egress.guarded_client` instead, by way of a small
``httpx2`` transport that hands each request to the guarded (``httpx``)
client.  So every connection is resolved once, checked against the blocked
ranges (loopback/private only with the entry's explicit ``allowLocal``) and
pinned to the checked address, proxies in the environment are ignored and
redirects are never followed by the client (the SDK follows same-origin ones
itself, and each hop again connects through the pinned transport).

The credential header is attached to the client's default headers inside the
host; it is never logged or put into an error message.  An OAuth sign-in
(``auth``) runs its discovery, registration and token requests through this
same client, so each of them is checked the same way: HTTPS unless the entry's
``allowLocal`` allows plain http, and an address the entry may reach.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator

import httpx
import httpx2

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError
from relavium_desktop.host.egress import guarded_client
from relavium_desktop.host.egress.base_url import check_base_url_scheme
from relavium_desktop.host.egress.errors import transport_error_map
from relavium_desktop.host.egress.resolver import (
    AddressCheck,
    Resolver,
    default_address_check,
    system_resolver,
)

# Each httpx exception class -> the httpx2 class the SDK catches; most specific first.
_EXC_MAP = transport_error_map(httpx, httpx2)


def _convert(exc: Exception) -> Exception:
    for src, dst in _EXC_MAP:
        if isinstance(exc, src):
            return dst(str(exc))
    return exc


class _Body(httpx2.AsyncByteStream):
    def __init__(self, response: httpx.Response) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for part in self._response.aiter_raw():
                yield part
        except httpx.HTTPError as exc:
            raise _convert(exc) from exc

    async def aclose(self) -> None:
        await self._response.aclose()


class GuardedHttpx2Transport(httpx2.AsyncBaseTransport):
    """An ``httpx2`` transport that sends through an SSRF-guarded ``httpx`` client."""

    def __init__(self, client: httpx.AsyncClient, *, allow_local: bool = False) -> None:
        self._client = client
        self._allow_local = allow_local

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        # Every hop, the server's own and each sign-in request alike: https, or http under allowLocal.
        try:
            check_base_url_scheme(str(request.url), allow_local=self._allow_local)
        except ToolDeniedError as exc:
            where = f"{request.url.scheme}://{request.url.host}{request.url.path}"  # no query: it may carry a code
            raise ToolDeniedError(
                f"refused to send a request to {where}: it must be https:// (plain http only when the "
                "server's entry sets allowLocal: true)", reason=exc.reason or DenyReason.HTTPS_REQUIRED,
            ) from None
        body = request.read() if request.method != "GET" else b""
        outgoing = self._client.build_request(
            request.method,
            str(request.url),
            headers=list(request.headers.multi_items()),
            content=body or None,
            extensions={k: v for k, v in request.extensions.items() if k == "timeout"},
        )
        try:
            response = await self._client.send(outgoing, stream=True, follow_redirects=False)
        except httpx.HTTPError as exc:
            raise _convert(exc) from exc
        return httpx2.Response(
            status_code=response.status_code,
            headers=list(response.headers.multi_items()),
            stream=_Body(response),
            extensions={k: v for k, v in response.extensions.items() if k == "http_version"},
        )

    async def aclose(self) -> None:
        await self._client.aclose()


def guarded_mcp_client(
    *,
    headers: dict[str, str],
    allow_local: bool,
    timeout_s: float,
    ssl_context: ssl.SSLContext | None = None,
    resolver: Resolver = system_resolver,
    check: AddressCheck = default_address_check,
    auth: httpx2.Auth | None = None,
) -> httpx2.AsyncClient:
    """The ``httpx2`` client handed to the SDK; its only way out is the pinned transport.

    ``ssl_context``/``resolver``/``check`` exist for tests (a local TLS server,
    scripted DNS); production passes none of them.  ``auth`` is the server's
    OAuth sign-in, whose own requests go out through the same pinned transport.
    """
    inner = guarded_client(
        allow_local=allow_local, timeout=timeout_s, ssl_context=ssl_context, resolver=resolver, check=check
    )
    return httpx2.AsyncClient(
        transport=GuardedHttpx2Transport(inner, allow_local=allow_local),
        auth=auth,
        headers=headers,
        timeout=httpx2.Timeout(timeout_s, read=max(timeout_s, 300.0)),
        follow_redirects=False,
        trust_env=False,
    )
