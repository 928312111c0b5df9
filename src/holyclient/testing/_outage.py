"""An outage: a target that is down for a while and then recovers, played by a server's fault hook.

``LocalServer(hook=Outage(60))`` answers every request 503 for the 60 seconds after the first request
it sees, then answers normally again: the "primary down for a minute" a circuit breaker must take out of
rotation and let back in. Plain data and a clock; no I/O.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ._config import RecordedRequest
from ._faults import Fault


class Outage:
    """A fault hook: ``fault`` for every request within ``seconds`` of the outage's start, none after.

    Args:
        seconds: how long the target is down.
        fault: what a request gets meanwhile (default: ``Fault.status(503)``; ``Fault.hang(...)`` plays
            a target that accepts requests and never answers).
        clock: monotonic seconds (tests pass a fake).

    The outage starts with the first request it sees, or at :meth:`start`.
    """

    def __init__(
        self, seconds: float, fault: Fault | None = None, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if seconds < 0:
            raise ValueError(f"an outage lasts 0 seconds or more, not {seconds!r}")
        self.seconds = seconds
        self.fault = fault if fault is not None else Fault.status(503)
        self._clock = clock
        self._lock = threading.Lock()
        self.started: float | None = None
        self.refused = 0
        """Requests that got the fault."""
        self.served = 0
        """Requests after the outage (answered normally)."""

    def start(self) -> Outage:
        """Start the outage now (otherwise it starts with the first request)."""
        with self._lock:
            self.started = self._clock()
        return self

    @property
    def over(self) -> bool:
        """Whether the target has recovered."""
        with self._lock:
            return self.started is not None and self._clock() - self.started >= self.seconds

    def __call__(self, request: RecordedRequest) -> Fault | None:
        with self._lock:
            now = self._clock()
            if self.started is None:
                self.started = now
            if now - self.started < self.seconds:
                self.refused += 1
                return self.fault
            self.served += 1
            return None
