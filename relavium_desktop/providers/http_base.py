"""The shared HTTP half of every provider: one streamed POST, errors mapped.

Status codes map to the closed provider codes (401/402/403 auth, 429 rate
limit with ``Retry-After`` or LiteLLM's ``llm_provider-retry-after``, 5xx
unavailable, other 4xx validation -- except a 400 whose body says the key is
invalid, which is auth).  Each message is our sentence first, then what the
server itself said: bounded (300 characters), masked, with the key removed.

What counts as "the server was not reached" (``unreached``) is kept apart
from a server that answered and failed (5xx), a stream cut midway
(:class:`StreamCutError`, carrying the text that arrived) and a slow model
(a read timeout), so a surface never calls a failing server unreachable.

A server that answers a streaming request with one complete JSON document
(LiteLLM's ``/v1/messages`` does) is read through the subclass's
``decode_json``; an error object in a 200 body or mid-stream is an error.
"""

from __future__ import annotations

import email.utils
import inspect
import json
import re
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

from relavium_desktop.engine.errors import ToolError
from relavium_desktop.engine.llm.errors import (
    ProviderError,
    ProviderErrorCode,
    StreamCutError,
    code_for_status,
)
from relavium_desktop.engine.llm.provider import ChatRequest
from relavium_desktop.engine.llm.stream import ReasoningDelta, StreamEvent, TextDelta
from relavium_desktop.engine.tools.masking import clip, mask_text
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


# LiteLLM's proxy forwards the upstream provider's hint under this name.
RETRY_AFTER_HEADERS = ("retry-after", "llm_provider-retry-after", "retry-after-ms")
SERVER_SAYS_MAX = 300
ERROR_BODY_MAX = 64 * 1024
# A 400 (or 404/422) whose body says this is an authentication failure, not a bad request.
_AUTH_WORDS = re.compile(
    r"invalid[ _-]?(api[ _-]?)?key|api[ _-]?key[ _-]?(is )?(not valid|invalid|missing|expired)|incorrect api key"
    r"|authenticat|unauthori[sz]ed|invalid x-api-key|api_key_invalid|no api key|missing api key",
    re.IGNORECASE,
)


def retry_after_of(headers: httpx.Headers | dict[str, str]) -> float | None:
    """Seconds the server asks to wait: ``Retry-After`` (seconds or an HTTP date), the proxy's, or ms."""
    for name in RETRY_AFTER_HEADERS:
        raw = headers.get(name)
        if not raw:
            continue
        if name == "retry-after-ms":
            try:
                return max(0.0, float(raw) / 1000)
            except ValueError:
                continue
        value = parse_retry_after(raw)
        if value is not None:
            return value
    return None


def server_says(raw: bytes | str, secret: str | None = None) -> str:
    """What an error body says, as one bounded, masked line (never the key)."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    said = text
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if data is not None:
        said = _message_of(data) or ""
    said = " ".join(said.split())
    if secret:
        said = said.replace(secret, "[key]")
    said = mask_text(said)
    return clip(said, SERVER_SAYS_MAX)


def _message_of(data: object) -> str | None:
    """The human message in a provider's error document (OpenAI, Anthropic, Gemini, LiteLLM, FastAPI)."""
    if isinstance(data, list) and data:
        return _message_of(data[0])
    if not isinstance(data, dict):
        return str(data) if isinstance(data, str) else None
    err = data.get("error")
    if isinstance(err, dict):
        msg = err.get("message") or err.get("msg")
        if isinstance(msg, str) and msg:
            return msg
    elif isinstance(err, str) and err:
        return err
    for key in ("message", "detail", "error_description"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, dict | list):
            inner = _message_of(value)
            if inner:
                return inner
    return None


def error_in(data: object) -> dict[str, Any] | None:
    """The error object of a JSON document that is an error (``{"error": {...}}``, Anthropic's ``type: error``)."""
    if not isinstance(data, dict):
        return None
    err = data.get("error")
    if isinstance(err, dict) and (data.get("type") == "error" or "message" in err or "code" in err):
        return err
    if isinstance(err, str) and err:
        return {"message": err}
    return None


_ANTHROPIC_STATUS = {"overloaded_error": 529, "rate_limit_error": 429, "api_error": 500,
                     "authentication_error": 401, "permission_error": 403}


class StreamIncomplete(Exception):
    """The stream closed before the provider's terminal event."""


class StreamErrorEvent(Exception):
    """The server sent an error event in the middle of a stream (or as a 200 body)."""

    def __init__(self, error: dict[str, Any], status: int | None = None) -> None:
        super().__init__("stream error")
        self.error = error
        self.status = status


def _error_code_number(error: dict[str, Any]) -> int | None:
    for key in ("code", "status"):
        value = error.get(key)
        if isinstance(value, int) and 100 <= value <= 599:
            return value
        if isinstance(value, str) and value.isdigit() and 100 <= int(value) <= 599:
            return int(value)
    return None


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
        # A key pasted with a trailing newline or spaces: the surrounding whitespace is never part
        # of a key, and left in it makes the header unsendable (httpx LocalProtocolError).
        self._api_key = api_key.strip() if api_key is not None else None
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

    def decode_json(self, data: Any) -> list[StreamEvent]:
        """A complete (non-streamed) reply to the streaming request, as the stream's events."""
        raise StreamIncomplete

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
        key = self._api_key
        if key is not None and any(ord(c) < 32 or c == "\x7f" for c in key):
            raise ProviderError(ProviderErrorCode.AUTH, f"{self.name}: the API key contains a line break or "
                                "another control character; store it again without it")
        url, headers, body = self.build(request, key)
        headers = {"content-type": "application/json", "accept": "text/event-stream", **headers}
        shown: list[str] = []  # the text the caller has already received, kept if the stream dies
        thought = False
        try:
            async with self._client_factory(self.allow_local) as client:
                req = client.build_request("POST", url, headers=headers, content=json.dumps(body),
                                           timeout=httpx.Timeout(self._timeout_s, connect=10.0))
                response = await client.send(req, stream=True)
                try:
                    if response.status_code >= 400:
                        raise await self._status_error(response)
                    ctype = response.headers.get("content-type", "").lower()
                    if "text/event-stream" not in ctype:
                        # A complete JSON reply to a streaming request: read it whole (bounded).
                        for event in self._json_reply(await _read_bounded(response, 32 * 1024 * 1024)):
                            yield event
                        return
                    events = iter_sse(response)
                    async for event in self.decode(_raising_errors(events)):
                        if isinstance(event, TextDelta):
                            shown.append(event.text)
                        elif isinstance(event, ReasoningDelta):
                            thought = True
                        yield event
                    # A decoder may stop at its end marker ([DONE], message_stop) with the SSE
                    # iterator still suspended; read it to the end here, on the loop, so httpx's
                    # byte-stream generators finish now rather than when garbage collection
                    # closes them off the loop (qasync installs no async-generator hooks).
                    async for _ in events:
                        pass
                finally:
                    await response.aclose()
        except ProviderError as exc:
            exc.partial_text = exc.partial_text or "".join(shown)
            raise
        except StreamErrorEvent as exc:
            raise self._event_error(exc, "".join(shown)) from None
        except StreamIncomplete:
            raise StreamCutError(self._cut_message(shown), "".join(shown)) from None
        except httpx.ConnectTimeout:
            raise self._unreached("the connection timed out") from None
        except httpx.TimeoutException:
            if shown:
                raise StreamCutError(self._cut_message(shown, f"no more text came within {self._timeout_s:g} s"),
                                     "".join(shown)) from None
            raise ProviderError(ProviderErrorCode.UNAVAILABLE,
                                f"{self.name}: the model did not answer within {self._timeout_s:g} s "
                                "(the request timed out; a slow model may need a longer timeout)") from None
        except httpx.ConnectError as exc:
            raise self._unreached(f"connection failed ({type(exc).__name__})") from None
        except httpx.LocalProtocolError:
            raise ProviderError(ProviderErrorCode.VALIDATION,
                                f"{self.name}: the request could not be sent (a header value is not valid; "
                                "check the API key for stray characters)") from None
        except (httpx.TransportError, httpx.StreamError) as exc:
            if shown or thought:
                raise StreamCutError(self._cut_message(shown), "".join(shown)) from None
            # Dropped before any of the answer arrived: sending the same request again is safe.
            raise ProviderError(ProviderErrorCode.UNAVAILABLE,
                                f"{self.name}: the connection was reset before any of the answer arrived "
                                f"({type(exc).__name__})", connection_reset=True) from None
        except ToolError as exc:
            # The SSRF egress client refused the address: not retryable, no other model fixes it.
            raise ProviderError(ProviderErrorCode.VALIDATION,
                                f"{self.name}: the base URL's address is refused ({exc.reason or exc.code})") from None
        except Exception as exc:  # noqa: BLE001 - fail closed with a closed code, never a traceback
            # A refusal from the egress client or a decoding surprise: fail closed, no crash.
            raise ProviderError(ProviderErrorCode.UNAVAILABLE,
                                f"{self.name}: request failed ({type(exc).__name__})") from None

    def _unreached(self, what: str) -> ProviderError:
        return ProviderError(ProviderErrorCode.UNAVAILABLE, f"{self.name}: {what}", unreached=True)

    def _cut_message(self, shown: list[str], why: str = "the connection closed before the reply was complete") -> str:
        if shown:
            return f"{self.name}: the answer was cut off: {why}"
        return f"{self.name}: the stream ended before the reply was complete ({why})"

    def _json_reply(self, raw: bytes) -> list[StreamEvent]:
        try:
            data = json.loads(raw)
        except ValueError:
            raise ProviderError(ProviderErrorCode.UNAVAILABLE,
                                f"{self.name}: the server answered with neither a stream nor JSON") from None
        err = error_in(data)
        if err is not None:
            raise StreamErrorEvent(err)
        return self.decode_json(data)

    def _event_error(self, exc: StreamErrorEvent, partial: str) -> ProviderError:
        """An error the server sent in place of (or in the middle of) the answer."""
        err = exc.error
        said = server_says(json.dumps({"error": err}), self._api_key)
        etype = str(err.get("type") or err.get("status") or "")
        # Anthropic's error events name their kind, not a status: the status they stand for.
        status = exc.status or _error_code_number(err) or _ANTHROPIC_STATUS.get(etype)
        if status is not None:
            code = code_for_status(status)
        elif etype in ("overloaded_error", "api_error", "server_error", "UNAVAILABLE", "INTERNAL"):
            code = ProviderErrorCode.UNAVAILABLE
        elif etype in ("rate_limit_error", "RESOURCE_EXHAUSTED"):
            code = ProviderErrorCode.RATE_LIMIT
        elif etype in ("authentication_error", "permission_error", "UNAUTHENTICATED", "PERMISSION_DENIED"):
            code = ProviderErrorCode.AUTH
        else:
            code = ProviderErrorCode.UNAVAILABLE if not etype else ProviderErrorCode.VALIDATION
        if code is ProviderErrorCode.VALIDATION and _AUTH_WORDS.search(said):
            code = ProviderErrorCode.AUTH
        where = "the answer was cut off by an error from the server" if partial else "the server sent an error"
        message = f"{self.name}: {where}" + (f". The server said: {said}" if said else "")
        error = ProviderError(code, message, status=status)
        error.partial_text = partial
        return error

    async def _status_error(self, response: httpx.Response) -> ProviderError:
        status = response.status_code
        code = code_for_status(status)
        try:
            said = server_says(await _read_bounded(response, ERROR_BODY_MAX), self._api_key)
        except (httpx.HTTPError, httpx.StreamError):
            said = ""
        if code is ProviderErrorCode.VALIDATION and status in (400, 404, 422) and _AUTH_WORDS.search(said):
            code = ProviderErrorCode.AUTH  # an auth failure some servers send as a 400
        retry_after = retry_after_of(response.headers) if status in (429, 503, 529) else None
        if code is ProviderErrorCode.AUTH:
            what = "the key was refused (check the provider key reference)"
        elif status == 429:
            what = "rate limited"
        elif status == 500:
            what = "the server failed"
        elif status == 529:
            what = "the server is overloaded"
        elif code is ProviderErrorCode.UNAVAILABLE:
            what = "the server is unavailable"
        else:
            what = "the provider rejected the request"
        wait = f"; retry after {retry_after:g}s" if retry_after is not None else ""
        tail = f". The server said: {said}" if said else ""
        return ProviderError(code, f"{self.name}: HTTP {status}: {what}{wait}{tail}", status=status,
                             retry_after=retry_after)


async def _read_bounded(response: httpx.Response, limit: int) -> bytes:
    out = bytearray()
    async for chunk in response.aiter_bytes():
        out += chunk
        if len(out) >= limit:
            break
    return bytes(out[:limit])


async def _raising_errors(events: AsyncIterator[SseEvent]) -> AsyncIterator[SseEvent]:
    """The SSE events, with an error event (``event: error`` or ``data: {"error": …}``) raised."""
    async for ev in events:
        if ev.event == "error" or '"error"' in ev.data[:200]:
            try:
                data = json.loads(ev.data)
            except ValueError:
                data = None
            err = error_in(data)
            if err is None and ev.event == "error":
                err = {"message": ev.data} if data is None else (data if isinstance(data, dict) else {})
            if err is not None:
                raise StreamErrorEvent(err)
        yield ev


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
