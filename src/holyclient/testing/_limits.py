"""Requests-per-minute and tokens-per-minute limits over a sliding window, the way OpenAI applies them.

Token cost of a request (documented so a client-side limiter can match it exactly):
``ceil(characters of all message text / 4) + max_tokens`` for chat, where ``max_tokens`` falls back
to ``max_completion_tokens`` and then to 16; ``ceil(characters of all input text / 4)`` for
embeddings. A request over a limit is answered 429 and does not consume capacity.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class RateLimits:
    """Limits the server enforces on ``/v1/chat/completions`` and ``/v1/embeddings``.

    Args:
        rpm: requests per window (``None`` = unlimited).
        tpm: tokens per window (``None`` = unlimited).
        window: window length in seconds; 60 like OpenAI, shorter in tests.
    """

    rpm: int | None = None
    tpm: int | None = None
    window: float = 60.0

    def __post_init__(self) -> None:
        for name in ("rpm", "tpm"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive, got {value}")
        if self.window <= 0:
            raise ValueError("window must be positive")


def format_reset(seconds: float) -> str:
    """Format a duration like OpenAI's ``x-ratelimit-reset-*`` headers: ``20ms``, ``1.5s``, ``6m0s``."""
    seconds = max(seconds, 0.0)
    if seconds < 1:
        return f"{math.ceil(seconds * 1000)}ms"
    if seconds < 60:
        return f"{round(seconds, 3):g}s"
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)}m{round(rest, 3):g}s"


@dataclass
class Verdict:
    """The limiter's answer for one request: allowed, or the 429 to send and for how long to wait."""

    allowed: bool
    headers: list[tuple[str, str]]
    retry_after: float = 0.0
    message: str = ""
    error_type: str = "requests"


class SlidingWindowLimiter:
    """Counts admitted requests and tokens in the last ``window`` seconds. Not thread-safe: loop only."""

    def __init__(self, limits: RateLimits) -> None:
        self.limits = limits
        self._events: deque[tuple[float, int]] = deque()
        self._tokens = 0

    def reset(self) -> None:
        self._events.clear()
        self._tokens = 0

    def _prune(self, now: float) -> None:
        horizon = now - self.limits.window
        events = self._events
        while events and events[0][0] <= horizon:
            self._tokens -= events.popleft()[1]

    def _wait_for_requests(self, now: float, needed: int) -> float:
        """Seconds until ``needed`` request slots are free."""
        rpm = self.limits.rpm
        assert rpm is not None
        excess = len(self._events) + needed - rpm
        if excess <= 0:
            return 0.0
        return self._events[excess - 1][0] + self.limits.window - now

    def _wait_for_tokens(self, now: float, cost: int) -> float:
        tpm = self.limits.tpm
        assert tpm is not None
        excess = self._tokens + cost - tpm
        if excess <= 0:
            return 0.0
        for stamp, tokens in self._events:
            excess -= tokens
            if excess <= 0:
                return stamp + self.limits.window - now
        return self.limits.window  # pragma: no cover - unreachable when cost <= tpm

    def _headers(self, now: float) -> list[tuple[str, str]]:
        headers: list[tuple[str, str]] = []
        until_empty = (self._events[-1][0] + self.limits.window - now) if self._events else 0.0
        if self.limits.rpm is not None:
            headers += [
                ("x-ratelimit-limit-requests", str(self.limits.rpm)),
                ("x-ratelimit-remaining-requests", str(max(self.limits.rpm - len(self._events), 0))),
                ("x-ratelimit-reset-requests", format_reset(until_empty)),
            ]
        if self.limits.tpm is not None:
            headers += [
                ("x-ratelimit-limit-tokens", str(self.limits.tpm)),
                ("x-ratelimit-remaining-tokens", str(max(self.limits.tpm - self._tokens, 0))),
                ("x-ratelimit-reset-tokens", format_reset(until_empty)),
            ]
        return headers

    def check(self, now: float, cost: int, model: str) -> Verdict:
        """Admit (and record) a request costing ``cost`` tokens at time ``now``, or refuse it."""
        self._prune(now)
        limits = self.limits
        if limits.tpm is not None and cost > limits.tpm:
            return Verdict(
                allowed=False,
                headers=self._headers(now),
                retry_after=0.0,
                error_type="tokens",
                message=(
                    f"Request too large for {model} on tokens per min (TPM): Limit {limits.tpm}, "
                    f"Requested {cost}. The input or output tokens must be reduced in order to run "
                    "successfully."
                ),
            )
        if limits.rpm is not None:
            wait = self._wait_for_requests(now, 1)
            if wait > 0:
                return Verdict(
                    allowed=False,
                    headers=self._headers(now),
                    retry_after=wait,
                    error_type="requests",
                    message=(
                        f"Rate limit reached for {model} on requests per min (RPM): Limit {limits.rpm}, "
                        f"Used {len(self._events)}, Requested 1. Please try again in {format_reset(wait)}."
                    ),
                )
        if limits.tpm is not None:
            wait = self._wait_for_tokens(now, cost)
            if wait > 0:
                return Verdict(
                    allowed=False,
                    headers=self._headers(now),
                    retry_after=wait,
                    error_type="tokens",
                    message=(
                        f"Rate limit reached for {model} on tokens per min (TPM): Limit {limits.tpm}, "
                        f"Used {self._tokens}, Requested {cost}. Please try again in {format_reset(wait)}."
                    ),
                )
        self._events.append((now, cost))
        self._tokens += cost
        return Verdict(allowed=True, headers=self._headers(now))
