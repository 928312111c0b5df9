"""A per-target circuit breaker, sans-IO: it decides, the router sends. The clock is injectable.

* **closed**: requests flow; ``threshold`` consecutive failures open it.
* **open**: the target is out of rotation for the current cool-down.
* **half-open**: after the cool-down one request (the probe) is let through; its success closes the
  breaker, its failure opens it for another cool-down. Other requests skip the target meanwhile. A
  Router sends the probe as one attempt (no retries): one answer says whether the target is back.

The cool-down adapts between ``min_cooldown`` and ``cooldown``: it starts at ``min_cooldown``, doubles
with each failed probe (a target that stays down is asked less often) up to ``cooldown``, and halves
with each successful one (a target that recovered is let back quickly the next time). So a recovered
target gets its traffic back within ``cooldown`` seconds at most, however long it was down. With
``min_cooldown`` equal to ``cooldown`` (the default of this class; a Router's is a quarter) the
cool-down is fixed.

Only failures that say the target is unwell count (the ones the router fails over on: connection
errors, timeouts, 5xx, 429s beyond the retry budget); a 400 is the caller's mistake and counts as the
target answering.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Literal

State = Literal["closed", "open", "half-open"]
Pass = Literal["pass", "probe"]


class CircuitBreaker:
    """Args:
    threshold: consecutive failures that open the breaker.
    cooldown: the longest the breaker stays open before a probe (seconds).
    clock: monotonic seconds (tests pass a fake).
    min_cooldown: the shortest (the first after the breaker opens); default ``cooldown`` (fixed).
    """

    def __init__(
        self,
        threshold: int = 5,
        cooldown: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        *,
        min_cooldown: float | None = None,
    ) -> None:
        if threshold < 1 or cooldown < 0:
            raise ValueError("breaker threshold must be at least 1 and cooldown not negative")
        if min_cooldown is not None and not 0 <= min_cooldown <= cooldown:
            raise ValueError("breaker min_cooldown must be between 0 and cooldown")
        self.threshold = threshold
        self.cooldown = cooldown
        self.min_cooldown = cooldown if min_cooldown is None else min_cooldown
        self._wait = self.min_cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None
        self._probing = False
        self.opened = 0
        """How many times the breaker opened."""

    @property
    def state(self) -> State:
        with self._lock:
            return self._state_locked()

    def _state_locked(self) -> State:
        if self._opened_at is None:
            return "closed"
        if self._clock() - self._opened_at >= self._wait:
            return "half-open"
        return "open"

    def available(self) -> bool:
        """Whether the target is in rotation (closed, or due a probe), without claiming the probe."""
        with self._lock:
            state = self._state_locked()
            return state == "closed" or (state == "half-open" and not self._probing)

    def allow(self) -> Pass | None:
        """Whether a request may go to the target now: ``"pass"`` (closed), ``"probe"`` (half-open: this
        request is the one probe) or None (open, or a probe is already out)."""
        with self._lock:
            state = self._state_locked()
            if state == "closed":
                return "pass"
            if state == "half-open" and not self._probing:
                self._probing = True
                return "probe"
            return None

    @property
    def current_cooldown(self) -> float:
        """The cool-down the breaker waits now (or will, the next time it opens)."""
        with self._lock:
            return self._wait

    def success(self) -> None:
        with self._lock:
            if self._probing:  # the target is back: the next opening waits less
                self._wait = max(self.min_cooldown, self._wait / 2)
            self._failures = 0
            self._opened_at = None
            self._probing = False

    def failure(self, opened: int | None = None) -> None:
        """Count a failure of the target.

        Args:
            opened: :attr:`opened` when the failed request was let through. A request let through
                before the breaker last opened says nothing new (requests in flight to a target that
                went down fail one after another): its failure neither extends the cool-down nor
                re-opens a breaker that waits for its probe. ``None``: counted whenever it was sent.
        """
        with self._lock:
            if opened is not None and opened != self.opened:
                return
            self._failures += 1
            if self._probing or self._failures >= self.threshold:
                if self._probing:  # still down: wait longer before asking again, up to ``cooldown``
                    self._wait = min(self.cooldown, self._wait * 2) if self._wait else self.cooldown
                if self._opened_at is None or self._probing:
                    self.opened += 1
                self._opened_at = self._clock()
                self._probing = False

    def release(self) -> None:
        """Give back a claimed probe whose request neither succeeded nor failed (a caller's error)."""
        with self._lock:
            self._probing = False
