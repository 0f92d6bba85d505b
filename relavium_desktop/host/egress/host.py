"""``EgressHost``: the engine's EgressCapability over the SSRF primitive.

One request is: re-check the URL (scheme, allowlist, parser agreement) ->
resolve the ``credentialRef`` here, inside the host -> send through the
pinned transport (resolve once, refuse any blocked answer, connect to the
validated address with SNI and certificate checks for the original name) ->
stop at a redirect unless the config opted in, and then re-check every hop
-> read the body with a memory ceiling and spill beyond it.  Failures become
clear, secret-free tool errors naming the rule or the limit.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
import ssl
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin

import httpx

from relavium_desktop.engine.errors import (
    DenyReason,
    InvalidArgsError,
    ToolDeniedError,
    ToolError,
    ToolFailedError,
    ToolUnavailableError,
)
from relavium_desktop.engine.host import EgressRequest
from relavium_desktop.engine.tools.domain_policy import ParsedUrl, check_url, normalise_host
from relavium_desktop.host.egress.base_url import check_base_url_scheme
from relavium_desktop.host.egress.body import Scrubber, read_body
from relavium_desktop.host.egress.errors import describe_transport_error
from relavium_desktop.host.egress.media_body import (
    bounded,
    declared_mime,
    looks_binary,
    publish_held,
    publish_in_memory,
    publish_spill,
    too_large,
)
from relavium_desktop.host.egress.resolver import (
    AddressCheck,
    DnsLookupError,
    Resolver,
    SsrfBlockedError,
    default_address_check,
    ssrf_denial,
    system_resolver,
)
from relavium_desktop.host.egress.transport import guarded_client
from relavium_desktop.host.media import MediaHost
from relavium_desktop.host.output_store import FileOutputStore
from relavium_desktop.host.secrets import SecretStore, SecretStoreError

log = logging.getLogger("relavium.egress")

MAX_REDIRECTS = 5
MEMORY_CEILING = 1 << 20  # 1 MiB held in memory; beyond it the body is spilled
PREVIEW_BYTES = 64 << 10  # kept in the result when the body was spilled
MAX_BODY_BYTES = 1 << 30  # a download larger than this is stopped
_DROP_REQUEST_HEADERS = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "proxy-authorization"}
)
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript",
               "application/x-www-form-urlencoded", "application/x-ndjson", "application/yaml")


def is_text_type(content_type: str | None) -> bool:
    if not content_type:
        return True
    mime = content_type.split(";", 1)[0].strip().lower()
    return mime.startswith("text/") or mime.endswith(("+json", "+xml")) or mime in _TEXT_TYPES


def _charset(content_type: str | None) -> str:
    for part in (content_type or "").split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value:
            try:
                return codecs.lookup(value.strip('"')).name
            except LookupError:
                return "utf-8"
    return "utf-8"


class EgressHost:
    """Implements :class:`relavium_desktop.engine.host.EgressCapability`.

    ``resolver``, ``check`` and ``ssl_context`` are injectable for tests (a
    scripted DNS, a local TLS server's CA); the defaults are the OS resolver,
    the full SSRF rule set with no exception, and the certifi trust store.
    ``media`` is the store a binary body is published to (its result then
    carries a ``media`` handle); without one a binary body is spilled to a
    file and ``body`` is None, as before media handles existed.
    """

    def __init__(
        self,
        *,
        output_store: FileOutputStore | None,
        secrets: SecretStore | None = None,
        ssl_context: ssl.SSLContext | None = None,
        resolver: Resolver = system_resolver,
        check: AddressCheck = default_address_check,
        memory_ceiling: int = MEMORY_CEILING,
        preview_bytes: int = PREVIEW_BYTES,
        max_body_bytes: int = MAX_BODY_BYTES,
        media: MediaHost | None = None,
    ) -> None:
        self.output_store = output_store
        self.media = media
        self.secrets = secrets
        self.ssl_context = ssl_context
        self.resolver = resolver
        self.check = check
        self.memory_ceiling = memory_ceiling
        self.preview_bytes = preview_bytes
        self.max_body_bytes = max_body_bytes

    # -- URL checks ------------------------------------------------------------

    def _check_target(self, url: str, request: EgressRequest) -> ParsedUrl:
        if request.allowed_domains is not None:
            parsed = check_url(url, request.allowed_domains)
        else:
            # A config-pinned destination (search provider, http tool base): the
            # base-URL rule; its addresses are checked as the pinned client connects.
            parsed = check_base_url_scheme(url, allow_local=request.allow_local)
        # The connecting parser must read the same host the checking parser did.
        try:
            wire_host = httpx.URL(url).raw_host.decode("ascii")
        except (httpx.InvalidURL, UnicodeError):
            raise InvalidArgsError("url: not a valid URL") from None
        try:
            same = normalise_host(f"[{wire_host}]" if ":" in wire_host else wire_host) == parsed.host
        except ValueError:
            same = False
        if not same:
            raise ToolDeniedError(
                "url: the host is ambiguous (parsers disagree on it)", reason=DenyReason.DOMAIN_NOT_ALLOWED
            )
        return parsed

    # -- the request -------------------------------------------------------------

    async def _credential(self, ref: str | None) -> tuple[str, str] | None:
        if not ref:
            return None
        if self.secrets is None:
            raise ToolUnavailableError("this host has no secret store, so a credentialRef cannot be resolved")
        try:
            return await asyncio.to_thread(self.secrets.resolve_ref, ref)
        except SecretStoreError as exc:
            raise ToolFailedError(str(exc)) from None

    def _headers(self, request: EgressRequest, credential: tuple[str, str] | None, attach: bool) -> dict[str, str]:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _DROP_REQUEST_HEADERS}
        if credential is not None:
            headers = {k: v for k, v in headers.items() if k.lower() != request.credential_header.lower()}
            if attach:
                value = credential[1]
                headers[request.credential_header] = (
                    f"{request.credential_scheme} {value}" if request.credential_scheme else value
                )
        return headers

    async def fetch(self, request: EgressRequest) -> dict[str, Any]:
        first = self._check_target(request.url, request)
        credential = await self._credential(request.credential_ref)
        timeout_s = request.timeout_ms / 1000
        try:
            async with asyncio.timeout(timeout_s):
                return await self._fetch(request, first, credential, timeout_s)
        except TimeoutError:
            raise ToolFailedError(
                f"the request to {first.host!r} timed out after {request.timeout_ms} ms"
            ) from None

    async def _fetch(
        self,
        request: EgressRequest,
        first: ParsedUrl,
        credential: tuple[str, str] | None,
        timeout_s: float,
    ) -> dict[str, Any]:
        origin = (first.scheme, first.host, first.effective_port)
        scrub = (credential[1].encode(), f"[secret:{credential[0]}]".encode()) if credential else None
        method: str = request.method
        body: str | None = request.body
        url = request.url
        hops = 0
        async with guarded_client(
            allow_local=request.allow_local,
            timeout=timeout_s,
            ssl_context=self.ssl_context,
            resolver=self.resolver,
            check=self.check,
        ) as client:
            while True:
                parsed = first if hops == 0 else self._check_hop(url, request, hops)
                same_origin = (parsed.scheme, parsed.host, parsed.effective_port) == origin
                headers = self._headers(request, credential, attach=same_origin)
                content = body.encode("utf-8") if body is not None else None
                try:
                    response = await client.send(
                        client.build_request(method, url, headers=headers, content=content), stream=True
                    )
                except SsrfBlockedError as exc:
                    raise _reworded(exc, request) from None
                except ToolError:
                    raise
                except DnsLookupError as exc:
                    raise ToolFailedError(str(exc)) from None
                except httpx.HTTPError as exc:
                    raise ToolFailedError(describe_transport_error(exc, parsed.host)) from None
                try:
                    location = response.headers.get("location")
                    if request.follow_redirects and response.is_redirect and location:
                        if hops >= MAX_REDIRECTS:
                            raise ToolFailedError(f"too many redirects (more than {MAX_REDIRECTS})")
                        hops += 1
                        url = urljoin(url, location)
                        if response.status_code == 303 or (
                            response.status_code in (301, 302) and method == "POST"
                        ):
                            method, body = "GET", None
                        continue
                    log.info("egress %s %s -> %s", method, parsed.host, response.status_code)
                    return await self._result(response, request, url, hops, scrub)
                finally:
                    await response.aclose()

    def _check_hop(self, url: str, request: EgressRequest, hop: int) -> ParsedUrl:
        try:
            return self._check_target(url, request)
        except ToolError as exc:
            exc.message = f"redirect hop {hop} refused: {exc.message}"
            exc.args = (exc.message,)
            raise

    async def _result(
        self,
        response: httpx.Response,
        request: EgressRequest,
        url: str,
        hops: int,
        scrub: tuple[bytes, bytes] | None,
    ) -> dict[str, Any]:
        content_type = response.headers.get("content-type")
        text = is_text_type(content_type)
        chunks = (response.aiter_raw() if response.headers.get("content-encoding") in (None, "identity")
                  else response.aiter_bytes())
        if not text and self.media is not None:
            return await self._media_result(response, request, chunks=chunks, url=url, hops=hops, scrub=scrub)
        try:
            body = await read_body(
                chunks,
                store=self.output_store,
                run_id=request.run_id,
                label="http_request",
                memory_ceiling=self.preview_bytes if request.stream else self.memory_ceiling,
                max_bytes=self.max_body_bytes,
                preview_bytes=self.preview_bytes,
                scrubber=Scrubber(*scrub) if scrub else Scrubber(None, b""),
                force_spill=not text,
            )
        except httpx.HTTPError as exc:
            raise ToolFailedError(describe_transport_error(exc, httpx.URL(url).host)) from None
        result = _result_head(response, url, hops, scrub, body_bytes=body.total)
        charset = _charset(content_type)
        if text and self.media is not None and body.data and looks_binary(
            body.data, charset, complete=body.spill_path is None
        ):
            # Called text, but not: a handle instead of mojibake.
            if body.spill_path is None:
                media = await publish_held(body.data, media=self.media, content_type=content_type)
            else:
                media = await publish_spill(body.spill_path, media=self.media, content_type=content_type)
            result["body"] = None
            result["media"] = media
            return result
        result["body"] = body.data.decode(charset, "replace") if text else None
        if body.spill_path is not None:
            result["truncated"] = True
            result["bodySpill"] = {"path": str(body.spill_path), "bytes": body.spill_bytes}
        return result

    async def _media_result(
        self,
        response: httpx.Response,
        request: EgressRequest,
        *,
        chunks: Any,
        url: str,
        hops: int,
        scrub: tuple[bytes, bytes] | None,
    ) -> dict[str, Any]:
        """A binary body: published to the media store, the result names its handle (never its bytes)."""
        media_host = self.media
        assert media_host is not None
        content_type = response.headers.get("content-type")
        length = response.headers.get("content-length")
        declared = int(length) if length is not None and length.isdigit() else None
        ceiling = media_host.store.ceiling
        scrubber = Scrubber(*scrub) if scrub else Scrubber(None, b"")
        media: dict[str, Any] | None
        try:
            if self.output_store is None:
                media = await publish_in_memory(chunks, media=media_host, content_type=content_type,
                                                content_length=declared, scrubber=scrubber)
            else:
                if declared is not None and declared > ceiling:
                    raise too_large(declared, ceiling, declared_mime(content_type))
                # Streamed to a spill file (bounded memory), then published from its descriptor.
                body = await read_body(
                    bounded(chunks, ceiling, declared_mime(content_type)),
                    store=self.output_store, run_id=request.run_id, label="http_request",
                    memory_ceiling=self.memory_ceiling, max_bytes=ceiling, preview_bytes=0,
                    scrubber=scrubber, force_spill=True,
                )
                media = (await publish_spill(body.spill_path, media=media_host, content_type=content_type)
                         if body.spill_path is not None else None)
        except httpx.HTTPError as exc:
            raise ToolFailedError(describe_transport_error(exc, httpx.URL(url).host)) from None
        result = _result_head(response, url, hops, scrub,
                              body_bytes=int(media["sizeBytes"]) if media is not None else 0)
        result["body"] = None
        if media is not None:
            result["media"] = media
        return result


def _result_head(
    response: httpx.Response, url: str, hops: int, scrub: tuple[bytes, bytes] | None, *, body_bytes: int,
) -> dict[str, Any]:
    """What every http_request result says before its body (a text body or a media handle follows)."""
    head: dict[str, Any] = {
        "status": response.status_code,
        "headers": _scrub_headers(response.headers, scrub),
        "url": url,
        "contentType": response.headers.get("content-type"),
        "bodyBytes": body_bytes,
    }
    if response.is_redirect and response.headers.get("location"):
        head["location"] = _scrub_text(response.headers["location"], scrub)
    if hops:
        head["redirects"] = hops
    return head


def _reworded(exc: SsrfBlockedError, request: EgressRequest) -> SsrfBlockedError:
    """The denial in the words of the caller's own options.

    An allowlisted request (http_request, ``type: http`` tools) has no local
    opt-in, so the message must not suggest one; a config-pinned destination
    (web_search's provider URL) has ``allowLocal`` in the tool's config.
    """
    if request.allowed_domains is not None:
        return ssrf_denial(exc.host, exc.rule, request.allow_local, local_hint=None,
                           note="listing the host in allowedDomains does not lift this rule")
    return ssrf_denial(exc.host, exc.rule, request.allow_local,
                       local_hint="a self-hosted endpoint needs allowLocal: true in the tool's config")


def _scrub_text(text: str, scrub: tuple[bytes, bytes] | None) -> str:
    if scrub is None:
        return text
    return text.replace(scrub[0].decode(), scrub[1].decode())


def _scrub_headers(headers: Mapping[str, str], scrub: tuple[bytes, bytes] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in headers.items():
        out[key] = _scrub_text(value, scrub)
    return out
