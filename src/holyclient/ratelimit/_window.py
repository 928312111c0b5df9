"""Rate-limit windows: at most ``limit`` units in any ``window`` seconds, paced by a token bucket.

Rate limits are enforced two ways at once, because servers apply them two ways:

* a *window* (at most ``limit`` units in any ``window`` seconds) -- how OpenAI documents RPM/TPM and how
  the local test server enforces them; a client that mirrors it is never refused;
* a *token bucket* refilled at ``limit / window`` per second with a small burst -- so the units are
  spread over the window instead of all sent in its first second (servers that quantise their limit
  per second, as OpenAI does, refuse such bursts).

The clock is injectable, so the rules are tested with a fake clock; only ``acquire`` sleeps.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable

import anyio

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

#: Requests and tokens are counted a little longer than the server's window: the server stamps a request
#: when it arrives, a few milliseconds after we stamp it, and one early arrival is one 429.
WINDOW_MARGIN = 0.01
WINDOW_SLACK_SECONDS = 0.1


class RateLimiter:
    """At most ``limit`` units in any ``window`` seconds, paced by a token bucket.

    Args:
        limit: units (requests or tokens) allowed per window.
        window: the window in seconds (60 for "per minute").
        burst_seconds: the bucket holds this many seconds' worth of units (at least one request's cost).
        clock: monotonic time source.
    """

    def __init__(
        self, limit: float, window: float = 60.0, *, burst_seconds: float = 1.0, clock: Clock = time.monotonic
    ) -> None:
        if limit <= 0 or window <= 0:
            raise ValueError("rate limit and window must be positive")
        self.limit = float(limit)
        self.window = float(window)
        self.rate = self.limit / self.window
        self.capacity = max(1.0, self.rate * burst_seconds)
        self._clock = clock
        self._level = self.capacity
        self._stamp = clock()
        self._events: deque[list[float]] = deque()  # [time, units]; mutable so ``correct`` can amend
        self._in_window = 0.0
        self._added = 0.0  # every unit ever counted in the window: less ``_in_window``, what has left it
        self._lock = anyio.Lock()

    def _horizon(self, now: float) -> float:
        return now - self.window * (1.0 + WINDOW_MARGIN) - WINDOW_SLACK_SECONDS

    def _refill(self, now: float) -> None:
        self._level = min(self.capacity, self._level + (now - self._stamp) * self.rate)
        self._stamp = now
        horizon = self._horizon(now)
        while self._events and self._events[0][0] <= horizon:
            self._in_window -= self._events.popleft()[1]

    def delay_for(self, units: float) -> float:
        """Seconds to wait before ``units`` may be taken (0 when they may be taken now)."""
        now = self._clock()
        self._refill(now)
        units = min(units, self.limit)  # a request over the whole limit waits for an empty window
        bucket_wait = max(0.0, (min(units, self.capacity) - self._level) / self.rate)
        window_wait = 0.0
        excess = self._in_window + units - self.limit
        if excess > 1e-9:
            horizon = self._horizon(now)
            for stamp, amount in self._events:
                excess -= amount
                if excess <= 1e-9:
                    window_wait = stamp - horizon
                    break
        return max(bucket_wait, window_wait)

    def take(self, units: float) -> list[float]:
        """Take ``units`` now (the caller checked ``delay_for``); returns a handle for :meth:`correct`."""
        now = self._clock()
        self._refill(now)
        self._level -= min(units, self.capacity)
        event = [now, float(units)]
        self._events.append(event)
        self._in_window += units
        self._added += units
        return event

    def left(self) -> float:
        """Units that have left the window so far (an admission keeps it: see :meth:`sync`)."""
        return self._added - self._in_window

    def sync(self, remaining: float, left: float | None = None) -> None:
        """Take phantom units so that no more than ``remaining`` are free: a server's count, which the
        window then missed (another application spending from the same key).

        Args:
            left: :meth:`left` when the answered request was admitted. The server counted ``remaining``
                when the request arrived; what has left this window since it still counted then, and
                is compared as it stood (everything counted, less what had left by then), never
                taken again as fresh usage held a whole window.
        """
        self.delay_for(0)  # prune the window
        counted = self._in_window if left is None else max(self._in_window, self._added - left)
        if self.limit - counted > remaining:
            self.take(self.limit - counted - remaining)

    def correct(self, handle: list[float], units: float) -> None:
        """Charge ``units`` instead of the estimate taken: never less (the server counted the estimate)."""
        extra = units - handle[1]
        if extra <= 0:
            return
        now = self._clock()
        # Prune first: an admission still listed here but already past the horizon would otherwise leave
        # the window later subtracting the corrected amount, of which only the estimate was ever added.
        self._refill(now)
        handle[1] = float(units)
        if handle[0] > self._horizon(now):  # still in the window (and so still listed): count the extra
            self._in_window += extra
            self._added += extra
        self._level -= extra

    async def acquire(self, units: float, sleep: Sleep) -> list[float]:
        """Wait until ``units`` may be taken, then take them (waiters are served in arrival order)."""
        async with self._lock:
            while (wait := self.delay_for(units)) > 0:
                await sleep(wait)
            return self.take(units)
