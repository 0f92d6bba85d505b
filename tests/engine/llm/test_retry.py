"""The retry policy's choices: Retry-After first (capped, and said so), else capped backoff with jitter.

Pure functions with the random source passed in; no server needed (the
policy never touches the network -- the provider tests cover the headers).
"""

from __future__ import annotations

from relavium_desktop.engine.llm.errors import ProviderError, ProviderErrorCode, StreamCutError
from relavium_desktop.engine.llm.retry import (
    DEFAULT_PROVIDER_RETRY,
    ProviderRetry,
    retry_after_floor_ms,
    retry_message,
    wait_before,
)


def _error(status: int | None, retry_after: float | None = None, **kw: bool) -> ProviderError:
    return ProviderError(ProviderErrorCode.RATE_LIMIT if status == 429 else ProviderErrorCode.UNAVAILABLE,
                         "x", status=status, retry_after=retry_after, **kw)


def test_retry_after_is_honoured_and_a_longer_one_is_capped_and_said() -> None:
    wait = wait_before(DEFAULT_PROVIDER_RETRY, 1, _error(429, 5.0))
    assert wait.seconds == 5.0 and not wait.capped
    assert retry_message(_error(429, 5.0), wait) == "rate limited, retrying in 5 s"
    long = wait_before(DEFAULT_PROVIDER_RETRY, 1, _error(429, 600.0))
    assert long.seconds == DEFAULT_PROVIDER_RETRY.retry_after_cap_s and long.capped and long.asked == 600.0
    assert retry_message(_error(429, 600.0), long) == (
        "rate limited, retrying in 60 s (the server asked to wait 600 s; the wait is capped at 60 s)")


def test_backoff_doubles_up_to_its_cap_with_jitter_between_half_and_full() -> None:
    policy = ProviderRetry(retries=6, base_s=1.0, max_backoff_s=8.0)
    low = [wait_before(policy, n, _error(503), rand=lambda: 0.0).seconds for n in range(1, 7)]
    high = [wait_before(policy, n, _error(503), rand=lambda: 0.999999).seconds for n in range(1, 7)]
    assert low == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    assert [round(h, 3) for h in high] == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_what_is_transient() -> None:
    assert all(_error(s).transient for s in (429, 500, 502, 503, 529))
    assert not any(_error(s).transient for s in (400, 401, 404, 504))
    assert _error(None, connection_reset=True).transient
    assert not StreamCutError("cut", "partial").transient  # text was shown: never sent again
    assert retry_message(_error(None, connection_reset=True), wait_before(DEFAULT_PROVIDER_RETRY, 1, _error(None),
                         rand=lambda: 1.0)) == "the connection was reset, retrying in 1 s"


def test_a_configured_retry_never_waits_less_than_retry_after() -> None:
    assert retry_after_floor_ms(None) == 0
    assert retry_after_floor_ms(2.0) == 2000
    assert retry_after_floor_ms(3600.0) == 60_000  # capped like the default policy
