"""The closed provider error codes and what the loop may do about each.

Providers map every HTTP status, transport failure and refusal to one of
these so fallback and retry decisions never parse messages.  Messages are
secret-free: they name the status and the provider, never a key or header.
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


class ProviderError(Exception):
    def __init__(
        self,
        code: ProviderErrorCode,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        return self.code in RETRYABLE_PROVIDER_CODES

    def info(self) -> ErrorInfo:
        return ErrorInfo(code=str(self.code), reason=None, message=self.message, retry_after=self.retry_after)

    def to_json(self) -> dict[str, Any]:
        return self.info().to_wire()


def code_for_status(status: int) -> ProviderErrorCode:
    """The closed code of an HTTP error status."""
    if status in (401, 402, 403):
        return ProviderErrorCode.AUTH
    if status == 429:
        return ProviderErrorCode.RATE_LIMIT
    if status >= 500 or status in (408, 409):
        return ProviderErrorCode.UNAVAILABLE
    return ProviderErrorCode.VALIDATION
