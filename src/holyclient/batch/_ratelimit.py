"""Flow control for the batch runner: request/token rate limits, adaptive concurrency, token estimates.

Every class here takes an injectable ``clock`` and keeps its decisions in plain methods
(``delay_for``, ``on_attempt``), so the rules are tested with a fake clock; only the small ``acquire``
coroutines sleep.

Rate limits are enforced two ways at once, because servers apply them two ways:

* a *window* (at most ``limit`` units in any ``window`` seconds) -- how OpenAI documents RPM/TPM and how
  the local test server enforces them; a client that mirrors it is never refused;
* a *token bucket* refilled at ``limit / window`` per second with a small burst -- so the units are
  spread over the window instead of all sent in its first second (servers that quantise their limit
  per second, as OpenAI does, refuse such bursts).
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio

from ._bodies import EMBEDDINGS_URL, MODERATIONS_URL, RESPONSES_URL
from ._types import CHAT_COMPLETIONS_URL

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

#: Completion tokens assumed for a request without ``max_tokens``/``max_completion_tokens``: what OpenAI's
#: cookbook and the local test server assume when computing the TPM cost of such a request.
DEFAULT_COMPLETION_TOKENS = 16

#: Requests and tokens are counted a little longer than the server's window: the server stamps a request
#: when it arrives, a few milliseconds after we stamp it, and one early arrival is one 429.
WINDOW_MARGIN = 0.01
#: Backoff after failures without ``Retry-After``: the full policy delay once this share of recent
#: attempts fails, down to ``ISOLATED_BACKOFF_SCALE`` of it when failures are rare.
WIDESPREAD_FAILURES = 0.5
ISOLATED_BACKOFF_SCALE = 0.2
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
        return event

    def correct(self, handle: list[float], units: float) -> None:
        """Charge ``units`` instead of the estimate taken: never less (the server counted the estimate)."""
        extra = units - handle[1]
        if extra <= 0:
            return
        handle[1] = float(units)
        if self._events and handle[0] > self._horizon(self._clock()):
            self._in_window += extra
        self._level -= extra

    async def acquire(self, units: float, sleep: Sleep) -> list[float]:
        """Wait until ``units`` may be taken, then take them (waiters are served in arrival order)."""
        async with self._lock:
            while (wait := self.delay_for(units)) > 0:
                await sleep(wait)
            return self.take(units)


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


def _text_chars(content: Any) -> int:
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        return sum(len(part.get("text") or "") for part in content if isinstance(part, dict))
    return 0


def prompt_chars(body: Mapping[str, Any]) -> int:
    messages = body.get("messages")
    if not isinstance(messages, list):  # embeddings, moderations, completions, responses
        text = body.get("input", body.get("prompt"))
        items = text if isinstance(text, list) else [text]
        return sum(
            len(item)
            if isinstance(item, str)
            else _text_chars(item.get("content"))
            if isinstance(item, dict)
            else 0
            for item in items
        )
    return sum(_text_chars(m.get("content")) for m in messages if isinstance(m, dict))


def completion_allowance(body: Mapping[str, Any], url: str = CHAT_COMPLETIONS_URL) -> int:
    """Completion tokens the server reserves for ``body``: ``max_tokens`` (or the default) times ``n``;
    none for embeddings and moderations, ``max_output_tokens`` for responses."""
    if url in (EMBEDDINGS_URL, MODERATIONS_URL):
        return 0
    value = body.get("max_output_tokens") if url == RESPONSES_URL else body.get("max_tokens")
    if value is None:
        value = body.get("max_completion_tokens")
    if not isinstance(value, int) or isinstance(value, bool):
        value = DEFAULT_COMPLETION_TOKENS
    n = body.get("n")
    return value * (n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 1)


def count_prompt_tokens(body: Mapping[str, Any]) -> int:
    """Prompt (input) tokens of a request body of any endpoint, by the token counter (tiktoken, offline)."""
    from ..tokens import count_request

    try:
        return count_request(body).tokens
    except (ValueError, TypeError):  # no model, odd shapes: the characters / 4 floor still applies
        return 0


class TokenEstimator:
    """Tokens a request will be charged against a TPM limit, before it is sent.

    The prompt is counted with the token counter, scaled by how the real ``prompt_tokens`` of the
    responses so far compare with the counts (the correction, within 1/4x..4x), and never estimated
    below ``characters / 4`` -- the estimate OpenAI documents for its limiter; the completion allowance
    (``max_tokens``, else 16, times ``n``) is added.
    """

    def __init__(self, counter: Callable[[Mapping[str, Any]], int] = count_prompt_tokens) -> None:
        self._counter = counter
        self._estimated = 0
        self._real = 0

    @property
    def ratio(self) -> float:
        """Real prompt tokens per counted token so far (1 before any response)."""
        return min(4.0, max(0.25, self._real / self._estimated)) if self._estimated else 1.0

    def prompt(self, body: Mapping[str, Any]) -> int:
        """The raw count: token counter, or ``characters / 4`` when the counter cannot count it."""
        return self._counter(body) or math.ceil(prompt_chars(body) / 4)

    def estimate(self, body: Mapping[str, Any], url: str = CHAT_COMPLETIONS_URL) -> tuple[int, int]:
        """``(tokens to reserve, raw prompt count)`` for ``body`` sent to ``url``."""
        raw = self.prompt(body)
        prompt = max(math.ceil(raw * self.ratio), math.ceil(prompt_chars(body) / 4))
        return prompt + completion_allowance(body, url), raw

    def observe(self, raw_prompt: int, real_prompt: int) -> None:
        """Feed the raw count of a request that was answered and the ``prompt_tokens`` it was billed."""
        self._estimated += raw_prompt
        self._real += real_prompt
