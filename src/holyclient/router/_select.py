"""Choosing targets, sans-IO: the weighted split, sticky keys, the failover order and when failing over is safe.

* **Weighted split**: a request without a sticky key picks a target at random in proportion to the
  weights of the targets in rotation (breaker not open). Weight 0 drains a target.
* **Sticky keys** use weighted rendezvous hashing: every (key, target) pair gets a score from a hash,
  the highest score wins. A key therefore stays on its target as long as that target is in rotation,
  and when a target leaves (open breaker, weight 0) only its own keys move.
* **Failover order**: the chosen target, then its own ``fallbacks`` in order, then the other weighted
  targets by descending weight. A target whose breaker is open is skipped.
* **Safe to fail over**: no request sent (a connection refused, a connect or pool timeout), 5xx, 408, a stream whose first event
  is such an error (nothing reached the caller yet), and a 429 that reached the
  caller (beyond the retry budget, or ``insufficient_quota``), and a target's own budget being spent
  (nothing was sent). A timeout after the request was sent: the target said nothing in time (a
  provider that accepts a request and never answers stays silent), so the call goes on to the next
  target; the attempt may still be billed there, and counts as uncertain spend. Never a request error
  (400, 401, 403, 404, 422 ...): it would fail the same way everywhere -- except a
  ``context_length_exceeded`` refusal, which only goes to a target whose context window is larger
  (:func:`context_overflow`). A connection dropped *after* the request was sent may still be answered
  and billed by the target: failing over then is opt-in (``Target(failover_if_sent=True)``).
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._exceptions import APIConnectionError, APIStatusError, APITimeoutError, BudgetExceededError

if TYPE_CHECKING:
    from ._breaker import CircuitBreaker
    from ._target import Target

#: Statuses that say "this target, now" rather than "this request".
FAILOVER_STATUSES = frozenset({408, 429})

StickyKey = str | Callable[[Mapping[str, Any]], object] | None


def failover_safe(exc: BaseException, *, if_sent: bool = False) -> bool:
    """Whether the request that failed with ``exc`` may be sent to another target; ``if_sent`` also
    allows it after a connection error that may have reached the target (it may be paid twice)."""
    if isinstance(exc, APIConnectionError):
        return if_sent or not maybe_sent(exc) or isinstance(exc, APITimeoutError)
    if target_budget_spent(exc):
        return True
    if isinstance(exc, APIStatusError):
        status = exc.status_code or 0
        return status >= 500 or status in FAILOVER_STATUSES
    return False


def maybe_sent(exc: BaseException) -> bool:
    """``exc`` is a connection error or timeout after the request may have reached the target."""
    return isinstance(exc, APIConnectionError) and bool(getattr(exc, "maybe_processed", True))


#: How providers word a prompt that does not fit (OpenAI, DeepSeek; Anthropic's "prompt is too long"):
#: the number is the window the model has.
_WINDOW_WORDS = (
    re.compile(r"maximum context length is (\d+)"),
    re.compile(r"prompt is too long: \d+ tokens > (\d+)"),
)


def context_overflow(exc: BaseException) -> int | None:
    """The context window a ``context_length_exceeded`` refusal says the model has (0 when it does not
    say), or None when ``exc`` is not such a refusal."""
    if not isinstance(exc, APIStatusError) or exc.status_code not in (400, 413):
        return None
    message = exc.message if isinstance(exc.message, str) else ""
    for words in _WINDOW_WORDS:
        found = words.search(message)
        if found is not None:
            return int(found.group(1))
    return 0 if exc.code == "context_length_exceeded" else None


def target_budget_spent(exc: BaseException) -> bool:
    """``exc`` refused the request before sending because its target's own budget is spent."""
    return isinstance(exc, BudgetExceededError) and getattr(exc, "target_budget", False)


def sticky_value(sticky_key: StickyKey, body: Mapping[str, Any] | None) -> str | None:
    """The sticky key of a request: a body field named by ``sticky_key``, or what a callable returns."""
    if sticky_key is None or body is None:
        return None
    value = sticky_key(body) if callable(sticky_key) else body.get(sticky_key)
    return None if value is None or value == "" else str(value)


def _score(key: str, target: Target) -> float:
    """Weighted rendezvous score: ``-weight / ln(u)`` with ``u`` uniform in (0, 1) from a hash."""
    digest = hashlib.sha256(f"{target.name}\x00{key}".encode()).digest()
    u = (int.from_bytes(digest[:8], "big") + 0.5) / 2.0**64
    return -target.weight / math.log(u)


def choose(pool: Sequence[Target], key: str | None, rng: random.Random) -> Target:
    """One target of ``pool`` (all with weight > 0): by ``key`` when given, else at random by weight."""
    if key is not None:
        return max(pool, key=lambda target: _score(key, target))
    return rng.choices(pool, weights=[t.weight for t in pool])[0]


def failover_order(
    weighted: Sequence[Target],
    breakers: Mapping[str, CircuitBreaker],
    key: str | None,
    rng: random.Random,
) -> list[Target]:
    """The targets one request will try, in order (breakers are checked again when each is tried)."""
    live = [t for t in weighted if t.weight > 0]
    healthy = [t for t in live if breakers[t.name].available()]
    pool = healthy or live
    order: list[Target] = []
    if pool:
        first = choose(pool, key, rng)
        order.append(first)
        order.extend(first.fallbacks)
    order.extend(sorted(live, key=lambda t: -t.weight))
    seen: set[str] = set()
    return [t for t in order if not (t.name in seen or seen.add(t.name))]  # type: ignore[func-returns-value]
