"""The closed provider error codes and what the loop may do about each.

Providers map every HTTP status, transport failure and refusal to one of
these so fallback and retry decisions never parse messages.  Messages are
secret-free: they name the status and the provider (and, bounded and masked,
what the server itself said), never a key or header.

``transient`` says whether the failure is the passing kind the retry policy
(``engine/llm/retry.py``) waits out: 429, 500, 502, 503, 529 and a
connection reset before anything arrived.  A stream cut after the answer
began is :class:`StreamCutError`, which carries the text that did arrive.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from relavium_desktop.engine.events import ErrorInfo


class ProviderErrorCode(StrEnum):
    AUTH = "provider_auth"
    RATE_LIMIT = "provider_rate_limit"
    UNAVAILABLE = "provider_unavailable"
    CONTENT_FILTER = "content_filter"
    VALIDATION = "validation"


RETRYABLE_PROVIDER_CODES = frozenset({ProviderErrorCode.RATE_LIMIT, ProviderErrorCode.UNAVAILABLE})
# The statuses the default retry policy waits out: rate limits, a failed or overloaded server.
TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 529})


class ProviderError(Exception):
    def __init__(
        self,
        code: ProviderErrorCode,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        connection_reset: bool = False,
        unreached: bool = False,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after
        # The connection dropped before any byte of the answer: safe to send again.
        self.connection_reset = connection_reset
        # The server was never reached (refused, DNS, connect timeout): only then is it "unreachable".
        self.unreached = unreached
        # Text the model had streamed before the failure (shown already; kept by the caller).
        self.partial_text = ""

    @property
    def retryable(self) -> bool:
        return self.code in RETRYABLE_PROVIDER_CODES

    @property
    def transient(self) -> bool:
        """A failure worth the same request again after a wait (the default retry policy's set)."""
        return self.status in TRANSIENT_STATUSES or self.connection_reset

    def info(self) -> ErrorInfo:
        return ErrorInfo(code=str(self.code), reason=None, message=self.message, retry_after=self.retry_after)

    def to_json(self) -> dict[str, Any]:
        return self.info().to_wire()


class StreamCutError(ProviderError):
    """The stream stopped before the reply was complete, after part of it arrived.

    ``partial_text`` is what the model had written by then, so a surface can
    keep it (marked as cut) instead of losing what the user already read.
    """

    def __init__(self, message: str, partial_text: str = "") -> None:
        super().__init__(ProviderErrorCode.UNAVAILABLE, message)
        self.partial_text = partial_text


def code_for_status(status: int) -> ProviderErrorCode:
    """The closed code of an HTTP error status."""
    if status in (401, 402, 403):
        return ProviderErrorCode.AUTH
    if status == 429:
        return ProviderErrorCode.RATE_LIMIT
    if status >= 500 or status in (408, 409):
        return ProviderErrorCode.UNAVAILABLE
    return ProviderErrorCode.VALIDATION
