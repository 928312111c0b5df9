"""Edges of the retry policy that mutation testing showed no other test pinned down.

Each test names the boundary it holds: the Retry-After cap is inclusive, an unusable
``retry-after-ms`` falls back to ``Retry-After``, a zone-less HTTP date is UTC whatever the
machine's zone, the async loop counts attempts like the sync one, and the debug line says which
attempt failed, why, and how long we wait.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator

import httpx2
import pytest

from holyclient import APIResponseValidationError, InternalServerError, RateLimitError
from holyclient._core._retry import RetryPolicy, retry_after_seconds


def rate_limited(retry_after: float | None = None) -> RateLimitError:
    return RateLimitError("slow down", response=httpx2.Response(429), body=None, retry_after=retry_after)


def failing(*errors: Exception) -> Callable[[], str]:
    pending = list(errors)

    def fn() -> str:
        if pending:
            raise pending.pop(0)
        return "ok"

    return fn


@pytest.fixture
def new_york_time() -> Iterator[None]:
    """Run with a local zone that is not UTC, so reading a date as local time would show."""
    if not hasattr(time, "tzset"):
        pytest.skip("time.tzset is POSIX only")
    mp = pytest.MonkeyPatch()
    mp.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        yield
    finally:
        mp.undo()
        time.tzset()


def test_an_unusable_retry_after_ms_falls_back_to_retry_after():
    assert retry_after_seconds({"retry-after-ms": "soon", "retry-after": "3"}) == 3.0


def test_a_zoneless_http_date_is_utc_not_local_time(new_york_time):
    # RFC 5322's "-0000" (zone unknown) parses to a naive datetime: it must be read as UTC.
    now = 1445412470.0  # 2015-10-21 07:27:50 UTC
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 -0000"}, now=now) == 10.0
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=now) == 10.0


def test_a_retry_after_equal_to_the_cap_is_honoured_not_refused():
    policy = RetryPolicy(max_retry_after=60.0)
    exc = rate_limited(retry_after=60.0)
    assert policy.should_retry(exc)
    assert policy.delay(exc, 0) == 60.0
    assert not policy.should_retry(rate_limited(retry_after=60.5))


def test_a_validation_error_is_retried_only_when_marked_retryable():
    plain = APIResponseValidationError("wrong shape")
    assert not RetryPolicy().should_retry(plain)
    marked = APIResponseValidationError("not json")
    marked.retryable = True  # type: ignore[attr-defined]
    assert RetryPolicy().should_retry(marked)


async def test_async_run_with_one_retry_retries_once_and_counts_attempts():
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    errors = [InternalServerError("busy", response=httpx2.Response(500), body=None)]

    async def flaky() -> str:
        if errors:
            raise errors.pop()
        return "ok"

    assert await RetryPolicy().arun(flaky, max_retries=1, sleep=sleep) == "ok"
    assert len(waits) == 1

    async def always() -> str:
        raise InternalServerError("busy", response=httpx2.Response(500), body=None)

    with pytest.raises(InternalServerError) as info:
        await RetryPolicy().arun(always, max_retries=2, sleep=sleep)
    assert info.value.attempts == 3


def test_sync_run_counts_attempts_on_the_final_error():
    fn = failing(*(InternalServerError("busy", response=httpx2.Response(500), body=None) for _ in range(5)))
    with pytest.raises(InternalServerError) as info:
        RetryPolicy().run(fn, max_retries=2, sleep=lambda s: None)
    assert info.value.attempts == 3


def test_the_retry_log_line_names_the_attempt_the_error_and_the_wait(caplog):
    fn = failing(rate_limited(retry_after=2.0))
    with caplog.at_level(logging.DEBUG, logger="holyclient"):
        assert RetryPolicy().run(fn, max_retries=1, sleep=lambda s: None) == "ok"
    [record] = [r for r in caplog.records if r.name == "holyclient"]
    assert record.getMessage() == (
        "Retrying request after attempt 1 failed (RateLimitError: slow down); waiting 2.00s"
    )
