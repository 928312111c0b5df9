"""Adaptive concurrency for the batch runner: how many requests are in flight, and the slots that hold them."""

from __future__ import annotations

import math
import time
from collections import deque

import anyio

from ..ratelimit import Clock

#: Backoff after failures without ``Retry-After``: the full policy delay once this share of recent
#: attempts fails, down to ``ISOLATED_BACKOFF_SCALE`` of it when failures are rare.
WIDESPREAD_FAILURES = 0.5
ISOLATED_BACKOFF_SCALE = 0.2


class AdaptiveConcurrency:
    """Additive-increase / multiplicative-decrease of the number of requests in flight.

    Random 429s (a few percent of attempts) leave the limit alone: only *sustained* rate limiting -- the
    share of 429s among recent attempts above ``threshold`` -- halves it, at most once per round trip.
    While attempts succeed the limit grows back by about one per round trip, up to ``maximum``.

    It also tells isolated failures from widespread ones (:attr:`backoff_scale`): the batch's load on
    the server is bounded by the slots, not by the backoff, so a retry after an isolated 5xx need not
    wait the full exponential backoff -- that wait only lengthens the run's tail -- while failures
    across most attempts (an outage) get all of it.
    """

    def __init__(
        self, maximum: int, *, threshold: float = 0.25, decrease: float = 0.5, clock: Clock = time.monotonic
    ) -> None:
        self.maximum = max(1, maximum)
        self.limit = float(self.maximum)
        self.threshold = threshold
        self.decrease = decrease
        self.limited_share = 0.0
        self.failure_share = 0.0
        self.round_trip = 0.0
        self.decreases = 0
        self._alpha = 1.0 / max(8, min(self.maximum, 64))
        self._clock = clock
        self._last_decrease = -math.inf

    @property
    def slots(self) -> int:
        return max(1, int(self.limit))

    @property
    def backoff_scale(self) -> float:
        """Share of the policy's backoff to wait after a failure without ``Retry-After``: 1 when failures
        are widespread (half of recent attempts or more), down to 0.2 when they are isolated."""
        return min(1.0, max(ISOLATED_BACKOFF_SCALE, (self.failure_share / WIDESPREAD_FAILURES) ** 2))

    def on_attempt(self, *, rate_limited: bool, seconds: float, failed: bool | None = None) -> None:
        """Feed one finished attempt: was it answered 429 (as a rate limit), did it fail, how long it took."""
        now = self._clock()
        failed = rate_limited if failed is None else failed
        self.failure_share += self._alpha * ((1.0 if failed else 0.0) - self.failure_share)
        self.limited_share += self._alpha * ((1.0 if rate_limited else 0.0) - self.limited_share)
        if not rate_limited:
            self.round_trip = (
                seconds if self.round_trip == 0.0 else self.round_trip + 0.1 * (seconds - self.round_trip)
            )
        cooldown = max(self.round_trip, 0.05)
        if rate_limited and self.limited_share > self.threshold:
            if now - self._last_decrease >= cooldown:
                self.limit = max(1.0, self.limit * self.decrease)
                self._last_decrease = now
                self.decreases += 1
        elif not rate_limited and self.limit < self.maximum and now - self._last_decrease >= cooldown:
            self.limit = min(float(self.maximum), self.limit + 1.0 / self.limit)


class Slots:
    """A semaphore whose size may change while it is in use (the adaptive concurrency limit).

    Waiters with ``priority`` (retries) are served before the others (new requests): a retry has
    already waited out its backoff, and finishing started requests first keeps the run's tail short.
    """

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self.in_use = 0
        self._urgent: deque[anyio.Event] = deque()
        self._waiters: deque[anyio.Event] = deque()

    def resize(self, size: int) -> None:
        self.size = max(1, size)
        self._wake()

    def _wake(self) -> None:
        while self.in_use < self.size and (self._urgent or self._waiters):
            self.in_use += 1
            (self._urgent or self._waiters).popleft().set()

    async def acquire(self, *, priority: bool = False) -> None:
        if self.in_use < self.size and not self._urgent and (priority or not self._waiters):
            await anyio.lowlevel.checkpoint_if_cancelled()
            self.in_use += 1
            return
        event = anyio.Event()
        queue = self._urgent if priority else self._waiters
        queue.append(event)
        try:
            await event.wait()
        except BaseException:
            if event.is_set():  # granted, then cancelled: hand the slot on
                self.release()
            else:
                queue.remove(event)
            raise

    def release(self) -> None:
        self.in_use -= 1
        self._wake()
