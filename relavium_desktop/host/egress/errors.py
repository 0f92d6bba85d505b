"""Turning transport failures into messages a user can act on.

httpx wraps the real cause (a certificate error, a refused connection) in a
generic ConnectError; the cause chain is walked so the message says *which*
of TLS, refusal, reset or timeout happened, naming the host -- never a
resolved address, a header or a body.
"""

from __future__ import annotations

import errno
import ssl
from types import ModuleType

import httpx

# Transport exception names shared by httpcore, httpx and httpx2, most specific first.
_TRANSPORT_ERROR_NAMES = (
    "ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout", "TimeoutException",
    "ConnectError", "ReadError", "WriteError", "NetworkError",
    "RemoteProtocolError", "LocalProtocolError", "ProtocolError", "UnsupportedProtocol", "TransportError",
)


def transport_error_map(source: ModuleType, target: ModuleType) -> tuple[tuple[type[Exception], type[Exception]], ...]:
    """Pairs (source class, target class) for re-raising one HTTP stack's errors as another's.

    One name list serves both bridges (httpcore -> httpx under our pinned
    transport, httpx -> httpx2 under the MCP SDK): the libraries name their
    classes alike, so the pairs are built by name, most specific first.
    """
    return tuple((getattr(source, n), getattr(target, n)) for n in _TRANSPORT_ERROR_NAMES
                 if hasattr(source, n) and hasattr(target, n))


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in seen:
        seen.append(cur)
        cur = cur.__cause__ or cur.__context__
    return seen


def describe_transport_error(exc: httpx.HTTPError, host: str) -> str:
    chain = _chain(exc)
    text = " ".join(str(e) for e in chain).lower()
    if isinstance(exc, httpx.TimeoutException):
        phase = {
            httpx.ConnectTimeout: "connecting to",
            httpx.ReadTimeout: "waiting for a response from",
            httpx.WriteTimeout: "sending the request to",
            httpx.PoolTimeout: "waiting for a connection to",
        }.get(type(exc), "talking to")
        return f"timed out {phase} {host!r}"
    if any(isinstance(e, ssl.SSLCertVerificationError) for e in chain) or "certificate verify failed" in text:
        return f"TLS certificate verification failed for {host!r} (the server's certificate is not valid for this name or not trusted)"
    if any(isinstance(e, ssl.SSLError) for e in chain) or "ssl" in text or "tls" in text:
        return f"the TLS handshake with {host!r} failed"
    if any(isinstance(e, ConnectionRefusedError) for e in chain) or "refused" in text or any(
        isinstance(e, OSError) and e.errno == errno.ECONNREFUSED for e in chain
    ):
        return f"the connection to {host!r} was refused"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"{host!r} closed the connection or answered with a malformed HTTP response"
    if isinstance(exc, httpx.ConnectError):
        return f"could not connect to {host!r}"
    return f"the request to {host!r} failed ({type(exc).__name__})"
