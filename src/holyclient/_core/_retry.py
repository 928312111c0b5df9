"""The retry policy, configured once for both clients and driven by tenacity.

The policy only *decides* (retry or not, and how long to wait); tenacity's ``Retrying`` /
``AsyncRetrying`` drive the loop, with an injectable ``sleep`` so tests record delays instead of
waiting. The batch runner reuses the same decisions but sleeps outside its concurrency slots.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import email.utils
import functools
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from .._constants import (
    DEFAULT_MAX_RETRY_AFTER,
    INITIAL_RETRY_DELAY,
    LOGGER_NAME,
    MAX_RETRY_DELAY,
    RETRYABLE_STATUS_CODES,
)
from .._exceptions import (
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
)

if TYPE_CHECKING:
    import tenacity

logger = logging.getLogger(LOGGER_NAME)
T = TypeVar("T")


def retry_after_seconds(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms``, else ``Retry-After`` in seconds or as an HTTP date.

    ``None`` (back off as usual, as openai-python does) when the header is absent or unusable: not a
    number, not finite, zero, negative, or a date already past. Retrying at once because a server
    said ``0`` would hammer it exactly when it is struggling. A date with no zone or with ``-0000``
    (RFC 5322's "zone unknown") is read as UTC, never as the machine's local time.
    """
    value = headers.get("retry-after-ms")
    if value is not None:
        with contextlib.suppress(ValueError):
            return _positive(float(value) / 1000.0)
    value = headers.get("retry-after")
    if value is None:
        return None
    with contextlib.suppress(ValueError):
        return _positive(float(value))
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return _positive(when.timestamp() - (time.time() if now is None else now))


def _positive(seconds: float) -> float | None:
    return seconds if math.isfinite(seconds) and seconds > 0 else None


@dataclass(frozen=True)
class RetryPolicy:
    """What to retry and how long to wait.

    Attributes:
        initial_delay: first backoff, doubled on each retry up to ``max_delay`` (with jitter).
        max_delay: cap of the exponential backoff.
        max_retry_after: longest server-requested wait we honour; a longer request fails at once,
            with the requested wait on the error's ``retry_after``.
        retry_silence: retry a timeout after the request was sent (the server said nothing in time).
            A Router's target that has another target behind it does not (:attr:`failing_over`): a
            provider that accepts a request and answers nothing stays silent, so the call goes on to
            the next target at once instead of waiting the timeout out again.
    """

    initial_delay: float = INITIAL_RETRY_DELAY
    max_delay: float = MAX_RETRY_DELAY
    max_retry_after: float = DEFAULT_MAX_RETRY_AFTER
    retry_silence: bool = True

    @functools.cached_property
    def failing_over(self) -> RetryPolicy:
        """This policy for a call that has another target to go to: a silent target is not retried."""
        return dataclasses.replace(self, retry_silence=False) if self.retry_silence else self

    def should_retry(self, exc: BaseException) -> bool:
        if isinstance(exc, APIStatusError):
            if exc.retry_after is not None and exc.retry_after > self.max_retry_after:
                return False  # even with ``x-should-retry: true``: a silent hour-long stall is never right
            should = exc.response.headers.get("x-should-retry") if exc.response is not None else None
            if should == "true":
                return True
            if should == "false":
                return False
            if exc.status_code not in RETRYABLE_STATUS_CODES:
                return False
            return exc.code != "insufficient_quota"  # out of credit: waiting will not help
        if isinstance(exc, APIConnectionError):
            return self.retry_silence or not (isinstance(exc, APITimeoutError) and exc.maybe_processed)
        if isinstance(exc, APIResponseValidationError):
            return bool(getattr(exc, "retryable", False))
        return False

    def backoff(self, retries_done: int) -> float:
        """Exponential backoff with jitter: 0.5 s, 1 s, 2 s ... capped at ``max_delay``, each minus up to 25%."""
        delay = min(self.initial_delay * (2.0**retries_done), self.max_delay)
        return delay * (1.0 - 0.25 * random.random())

    def delay(self, exc: BaseException | None, retries_done: int) -> float:
        """Seconds to wait before the next attempt after ``exc``."""
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None and retry_after <= self.max_retry_after:
            return float(retry_after)
        return self.backoff(retries_done)

    # --- tenacity glue --------------------------------------------------------------------------

    def run(self, fn: Callable[[], T], max_retries: int, sleep: Callable[[float], None] | None = None) -> T:
        """Call ``fn``, retrying per this policy.

        The first attempt runs outside tenacity: building a ``Retrying`` costs ~35 us, a measurable share
        of a loopback request. Only when it fails with a retryable error does tenacity take over
        (:meth:`retry`), replaying that failure as its own first attempt so waits, stops and logging are
        tenacity's.
        """
        try:
            return fn()
        except Exception as exc:
            first = exc
        return self.retry(first, fn, max_retries, sleep)

    def retry(
        self,
        first: Exception,
        fn: Callable[[], T],
        max_retries: int,
        sleep: Callable[[float], None] | None = None,
    ) -> T:
        """The rest of a call whose first attempt (run by the caller) failed with ``first``: ``first``
        raised again when it is not to be retried, else ``fn`` retried per this policy.

        A caller that runs its first attempt itself pays for the retry machinery only when it fails."""
        counter = _Counter(first)
        if max_retries <= 0 or not self.should_retry(first):
            raise first
        return self.retrying(max_retries, sleep)(_replay(first, lambda: counter.call(fn)))

    async def arun(
        self,
        fn: Callable[[], Awaitable[T]],
        max_retries: int,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> T:
        """Async twin of :meth:`run`."""
        try:
            return await fn()
        except Exception as exc:
            first = exc
        return await self.aretry(first, fn, max_retries, sleep)

    async def aretry(
        self,
        first: Exception,
        fn: Callable[[], Awaitable[T]],
        max_retries: int,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> T:
        """Async twin of :meth:`retry`."""
        counter = _Counter(first)
        if max_retries <= 0 or not self.should_retry(first):
            raise first
        replayed = [first]

        async def attempt() -> T:
            if replayed:
                raise replayed.pop()
            return await counter.acall(fn)

        result: T = await self.async_retrying(max_retries, sleep)(attempt)
        return result

    def _wait(self, state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        return self.delay(exc, state.attempt_number - 1)

    def _kwargs(self, max_retries: int) -> dict[str, Any]:
        import tenacity

        return {
            "stop": tenacity.stop_after_attempt(max_retries + 1),
            "wait": self._wait,
            "retry": tenacity.retry_if_exception(self.should_retry),
            "reraise": True,
            "before_sleep": _log_retry,
        }

    def retrying(self, max_retries: int, sleep: Callable[[float], None] | None = None) -> tenacity.Retrying:
        import tenacity

        kwargs = self._kwargs(max_retries)
        if sleep is not None:
            kwargs["sleep"] = sleep
        return tenacity.Retrying(**kwargs)

    def async_retrying(
        self, max_retries: int, sleep: Callable[[float], Awaitable[None]] | None = None
    ) -> tenacity.AsyncRetrying:
        import tenacity

        kwargs = self._kwargs(max_retries)
        if sleep is not None:
            kwargs["sleep"] = sleep
        return tenacity.AsyncRetrying(**kwargs)


class _Counter:
    """Numbers the attempts and writes the count on the error the caller finally sees (the first
    attempt's own failure, ``first``, is attempt 1)."""

    __slots__ = ("attempts",)

    def __init__(self, first: Exception) -> None:
        self.attempts = 1
        if isinstance(first, APIError):
            first.attempts = 1

    def call(self, fn: Callable[[], T]) -> T:
        self.attempts += 1
        try:
            return fn()
        except APIError as exc:
            exc.attempts = self.attempts
            raise

    async def acall(self, fn: Callable[[], Awaitable[T]]) -> T:
        self.attempts += 1
        try:
            return await fn()
        except APIError as exc:
            exc.attempts = self.attempts
            raise


def _replay(first: BaseException, fn: Callable[[], T]) -> Callable[[], T]:
    """``fn`` whose first call re-raises the failure that happened before tenacity took over."""
    replayed = [first]

    def attempt() -> T:
        if replayed:
            raise replayed.pop()
        return fn()

    return attempt


def _log_retry(state: tenacity.RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome is not None else None
    wait = state.next_action.sleep if state.next_action is not None else 0.0
    logger.debug(
        "Retrying request after attempt %d failed (%s: %s); waiting %.2fs",
        state.attempt_number,
        type(exc).__name__,
        exc,
        wait,
    )
