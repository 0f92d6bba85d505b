"""One retry policy for every model request: chat turns, agent runs and workflow agent nodes.

A passing failure (:attr:`ProviderError.transient`: 429, 500, 502, 503,
529, a connection reset before any of the answer arrived) is sent again
after a wait: the server's ``Retry-After`` when it gave one (seconds, an
HTTP date or LiteLLM's ``llm_provider-retry-after``), never more than
:attr:`ProviderRetry.retry_after_cap_s` (the wait says so when it was
capped); otherwise capped exponential backoff with jitter, so many clients
rate-limited together do not come back in step.

A workflow's or agent file's own ``retry:`` wins over these defaults (the
surface then passes no policy and the node retries instead), but even then
no retry is sooner than the server asked: :func:`retry_after_floor_ms`.
Pure: the random source and the clock are the caller's.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from relavium_desktop.engine.llm.errors import ProviderError


@dataclass(frozen=True, slots=True)
class ProviderRetry:
    retries: int = 3  # after the first attempt
    base_s: float = 1.0
    max_backoff_s: float = 16.0
    retry_after_cap_s: float = 60.0


DEFAULT_PROVIDER_RETRY = ProviderRetry()
RETRY_AFTER_CAP_S = DEFAULT_PROVIDER_RETRY.retry_after_cap_s


@dataclass(frozen=True, slots=True)
class Wait:
    seconds: float
    asked: float | None = None  # what the server's Retry-After said
    capped: bool = False  # the server asked for longer than the cap

    def ms(self) -> int:
        return math.ceil(self.seconds * 1000)


def wait_before(
    policy: ProviderRetry, retry: int, error: ProviderError, rand: Callable[[], float] = random.random
) -> Wait:
    """How long to wait before retry number ``retry`` (1-based) after ``error``."""
    asked = error.retry_after
    if asked is not None:
        return Wait(min(asked, policy.retry_after_cap_s), asked, asked > policy.retry_after_cap_s)
    backoff = min(policy.max_backoff_s, policy.base_s * (2 ** (retry - 1)))
    return Wait(backoff * (0.5 + rand() / 2))


def retry_after_floor_ms(retry_after: float | None, cap_s: float = RETRY_AFTER_CAP_S) -> int:
    """The least a configured retry may wait: the server's ``Retry-After``, up to the cap."""
    if retry_after is None:
        return 0
    return math.ceil(min(retry_after, cap_s) * 1000)


def what_failed(error: ProviderError) -> str:
    """The failure in a few words: "rate limited", "the server failed (HTTP 500)"."""
    status = error.status
    if status == 429:
        return "rate limited"
    if status == 529:
        return "the server is overloaded (HTTP 529)"
    if status == 500:
        return "the server failed (HTTP 500)"
    if status is not None and status >= 500:
        return f"the server is unavailable (HTTP {status})"
    if error.connection_reset:
        return "the connection was reset"
    return "the request failed"


def retry_message(error: ProviderError, wait: Wait, cap_s: float = RETRY_AFTER_CAP_S) -> str:
    """What the user reads while waiting: "rate limited, retrying in 5 s"."""
    seconds = max(1, round(wait.seconds)) if wait.seconds >= 0.5 else round(wait.seconds, 1)
    text = f"{what_failed(error)}, retrying in {seconds:g} s"
    if wait.capped and wait.asked is not None:
        text += f" (the server asked to wait {wait.asked:g} s; the wait is capped at {cap_s:g} s)"
    return text
