"""The shared HTTP half of every provider: one streamed POST, errors mapped.

Status codes map to the closed provider codes (401/402/403 auth, 429 rate
limit with ``Retry-After``, 5xx unavailable, other 4xx validation); transport
failures, timeouts and a stream that ends before its terminal event are
``provider_unavailable``.  Messages name the provider and the status only —
never a header, a key or the response body (which may echo the request).
"""

from __future__ import annotations

import email.utils
import inspect
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

from relavium_desktop.engine.errors import ToolError
from relavium_desktop.engine.llm.errors import ProviderError, ProviderErrorCode, code_for_status
from relavium_desktop.engine.llm.provider import ChatRequest
from relavium_desktop.engine.llm.stream import StreamEvent
from relavium_desktop.providers.config import BaseUrlValidator, ProviderConfigError
from relavium_desktop.providers.sse import SseEvent, iter_sse

ClientFactory = Callable[[bool], httpx.AsyncClient]


def default_client_factory(allow_local: bool) -> httpx.AsyncClient:
    """A bare client (tests, or before the SSRF egress client is wired)."""
    return httpx.AsyncClient(timeout=httpx.Timeout(120.0, connect=10.0), trust_env=False)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


class StreamIncomplete(Exception):
    """The stream closed before the provider's terminal event."""


class HttpProvider:
    """Subclasses build the request and decode SSE events into stream events."""

    kind = "http"

    def __init__(
        self,
        name: str,
        *,
        base_url: str,
        api_key: str | None,
        allow_local: bool,
        validate_base_url: BaseUrlValidator,
        client_factory: ClientFactory = default_client_factory,
        timeout_s: float = 120.0,
    ) -> None:
        self.name = name
        self._configured_url = base_url
        self._validate = validate_base_url
        self._validated = False
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.allow_local = allow_local
        self._client_factory = client_factory
        self._timeout_s = timeout_s

    def __repr__(self) -> str:  # never the key
        return f"{type(self).__name__}(name={self.name!r}, base_url={self.base_url!r})"

    def media_input(self, model: str) -> frozenset[str]:
        """The media kinds ``model`` takes as input here (engine ``MediaInputAware``)."""
        from relavium_desktop.providers.media_input import media_input

        return media_input(self.kind, model)

    # -- subclass hooks -----------------------------------------------------

    def build(self, request: ChatRequest, api_key: str | None) -> tuple[str, dict[str, str], dict[str, Any]]:
        raise NotImplementedError

    def decode(self, events: AsyncIterator[SseEvent]) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError

    async def check_base_url(self) -> None:
        """Run the injected base-URL gate once, before the first connection.

        The host's gate resolves DNS, so it is async and cannot run in the
        constructor; a refusal is ``provider_validation`` (``unavailable``
        when the gate says the name does not resolve), never a crash.
        """
        if self._validated:
            return
        try:
            outcome = self._validate(self._configured_url, self.allow_local)
            if inspect.isawaitable(outcome):
                await outcome
        except ProviderError:
            raise
        except ProviderConfigError as exc:
            raise ProviderError(ProviderErrorCode.VALIDATION, f"{self.name}: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - any refusal from the injected gate closes it
            raise ProviderError(
                ProviderErrorCode.VALIDATION, f"{self.name}: base URL refused: {type(exc).__name__}"
            ) from None
        self._validated = True

    # -- the stream ---------------------------------------------------------

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        await self.check_base_url()
        url, headers, body = self.build(request, self._api_key)
        headers = {"content-type": "application/json", "accept": "text/event-stream", **headers}
        try:
            async with self._client_factory(self.allow_local) as client:
                req = client.build_request("POST", url, headers=headers, content=json.dumps(body),
                                           timeout=httpx.Timeout(self._timeout_s, connect=10.0))
                response = await client.send(req, stream=True)
                try:
                    if response.status_code >= 400:
                        raise self._status_error(response)
                    events = iter_sse(response)
                    async for event in self.decode(events):
                        yield event
                    # A decoder may stop at its end marker ([DONE], message_stop) with the SSE
                    # iterator still suspended; read it to the end here, on the loop, so httpx's
                    # byte-stream generators finish now rather than when garbage collection
                    # closes them off the loop (qasync installs no async-generator hooks).
                    async for _ in events:
                        pass
                finally:
                    await response.aclose()
        except ProviderError:
            raise
        except StreamIncomplete:
            raise ProviderError(ProviderErrorCode.UNAVAILABLE,
                                f"{self.name}: the stream ended before the reply was complete") from None
        except httpx.TimeoutException:
            raise ProviderError(ProviderErrorCode.UNAVAILABLE, f"{self.name}: the request timed out") from None
        except (httpx.TransportError, httpx.StreamError) as exc:
            raise ProviderError(ProviderErrorCode.UNAVAILABLE,
                                f"{self.name}: connection failed ({type(exc).__name__})") from None
        except ToolError as exc:
            # The SSRF egress client refused the address: not retryable, no other model fixes it.
            raise ProviderError(ProviderErrorCode.VALIDATION,
                                f"{self.name}: the base URL's address is refused ({exc.reason or exc.code})") from None
        except Exception as exc:  # noqa: BLE001 - fail closed with a closed code, never a traceback
            # A refusal from the egress client or a decoding surprise: fail closed, no crash.
            raise ProviderError(ProviderErrorCode.UNAVAILABLE,
                                f"{self.name}: request failed ({type(exc).__name__})") from None

    def _status_error(self, response: httpx.Response) -> ProviderError:
        status = response.status_code
        code = code_for_status(status)
        retry_after = parse_retry_after(response.headers.get("retry-after")) if status == 429 else None
        what = {
            ProviderErrorCode.AUTH: "the key was refused (check the provider key reference)",
            ProviderErrorCode.RATE_LIMIT: "rate limited",
            ProviderErrorCode.UNAVAILABLE: "the provider is unavailable",
            ProviderErrorCode.VALIDATION: "the provider rejected the request",
        }.get(code, "request failed")
        wait = f"; retry after {retry_after:g}s" if retry_after is not None else ""
        return ProviderError(code, f"{self.name}: HTTP {status}: {what}{wait}", status=status,
                             retry_after=retry_after)


def loads_object(text: str) -> tuple[dict[str, Any], str | None]:
    """Tool arguments as a dict, or ({}, why) when they are not a JSON object."""
    if not text.strip():
        return {}, None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return {}, f"invalid JSON ({exc.msg} at character {exc.pos})"
    if not isinstance(value, dict):
        return {}, f"expected a JSON object, got {type(value).__name__}"
    return value, None
