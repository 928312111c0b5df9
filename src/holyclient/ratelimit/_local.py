"""The in-process limiter: the batch runner's window-and-bucket :class:`RateLimiter` behind :class:`Limiter`."""

from __future__ import annotations

import threading
import time

import anyio

from ._protocol import Admission, Feedback
from ._window import Clock, RateLimiter, Sleep


class LocalLimiter:
    """RPM and TPM limits counted in this process only (one budget for every model).

    Args:
        rpm: requests per window (``None``: no limit).
        tpm: tokens per window (``None``: no limit).
        window: the window in seconds (60 for "per minute").
        clock: monotonic time source.
        sleep: async sleep (the sync twin uses ``time.sleep``).
    """

    def __init__(
        self,
        rpm: float | None = None,
        tpm: float | None = None,
        *,
        window: float = 60.0,
        clock: Clock = time.monotonic,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        self.rpm = rpm
        self.tpm = tpm
        self.window = window
        self.requests = RateLimiter(rpm, window, clock=clock) if rpm else None
        self.tokens = RateLimiter(tpm, window, clock=clock) if tpm else None
        self._clock = clock
        self._sleep = sleep
        self._paused_until = 0.0
        self._thread_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalLimiter(rpm={self.rpm}, tpm={self.tpm}, window={self.window})"

    def pause_left(self) -> float:
        return max(0.0, self._paused_until - self._clock())

    async def acquire(self, model: str, tokens: int) -> Admission:
        """Wait until a request of ``tokens`` tokens may be sent (and a 429's pause is over); charge it."""
        while (wait := self.pause_left()) > 0:
            await self._sleep(wait)
        if self.requests is not None:
            await self.requests.acquire(1, self._sleep)
        handle = await self.tokens.acquire(tokens, self._sleep) if self.tokens is not None else None
        return Admission(model, tokens, self._clock(), handle, left=self._left())

    def acquire_sync(self, model: str, tokens: int) -> Admission:
        """:meth:`acquire` for threads: ``time.sleep`` instead of the event loop's sleep."""
        with self._thread_lock:
            while (wait := self.pause_left()) > 0:
                time.sleep(wait)
            handle = None
            for limiter, units in ((self.requests, 1), (self.tokens, tokens)):
                if limiter is None:
                    continue
                while (wait := limiter.delay_for(units)) > 0:
                    time.sleep(wait)
                taken = limiter.take(units)
                if limiter is self.tokens:
                    handle = taken
            return Admission(model, tokens, self._clock(), handle, left=self._left())

    def _left(self) -> tuple[float | None, float | None]:
        """What has left each window so far: an admission keeps it (see :meth:`RateLimiter.sync`)."""
        requests, tokens = self.requests, self.tokens
        return (None if requests is None else requests.left(), None if tokens is None else tokens.left())

    def apply(self, admission: Admission, feedback: Feedback) -> None:
        """Take in what a response said: pause, real usage above the estimate, the server's remaining budget."""
        if feedback.pause is not None:
            self._paused_until = max(self._paused_until, self._clock() + feedback.pause)
        if self.tokens is not None and admission.handle is not None and feedback.total_tokens is not None:
            self.tokens.correct(admission.handle, feedback.total_tokens)
        # a shared admission (Redis went away since) says what had left the shared window, not this one
        left = (None if admission.shared else admission.left) or (None, None)
        for limiter, remaining, then in (
            (self.requests, feedback.remaining_requests, left[0]),
            (self.tokens, feedback.remaining_tokens, left[1]),
        ):
            if limiter is not None and remaining is not None:
                limiter.sync(remaining, then)

    async def observe(self, admission: Admission, feedback: Feedback) -> None:
        self.apply(admission, feedback)

    def observe_sync(self, admission: Admission, feedback: Feedback) -> None:
        with self._thread_lock:
            self.apply(admission, feedback)
