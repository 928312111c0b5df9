"""What every limiter offers, and the sans-IO reading of a response that feeds it."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .._core import retry_after_seconds

if TYPE_CHECKING:
    from ..pricing import Charging


@dataclass
class Admission:
    """One request let through: what it was charged, so real usage can correct it.

    Attributes:
        model: the budget it was drawn from.
        tokens: tokens charged at admission (prompt estimate + ``max_tokens``).
        stamp: when it was admitted, on the clock of whoever decided (the Redis server's, or local).
        handle: the local limiter's record (``None`` when the shared limiter admitted it).
        shared: admitted by the shared (Redis) budget rather than a local fallback.
        id: unique name of the admission in the shared budget.
        left: requests and tokens that had left the limiter's window when it was admitted (``None``:
            not tracked). A server's ``x-ratelimit-remaining-*`` header on its answer was counted when
            it arrived: the limiter compares it with its window as it stood then (everything counted
            less what had left), not as it stands when the answer is read -- what left in between
            the server had still counted, and is not someone else's usage.
    """

    model: str
    tokens: int
    stamp: float = 0.0
    handle: Any = None
    shared: bool = False
    id: str = ""
    left: tuple[float | None, float | None] | None = None


@dataclass(frozen=True)
class Feedback:
    """What one response tells a limiter: a shared pause to take, the server's remaining budget, usage.

    Attributes:
        pause: seconds every worker should wait (a 429's ``Retry-After``), or ``None``.
        remaining_requests: ``x-ratelimit-remaining-requests``, or ``None``.
        remaining_tokens: ``x-ratelimit-remaining-tokens``, or ``None``.
        total_tokens: real tokens of the answered request (``usage.total_tokens``), or ``None``.
    """

    pause: float | None = None
    remaining_requests: int | None = None
    remaining_tokens: int | None = None
    total_tokens: int | None = None


def _header_int(headers: Mapping[str, str], name: str) -> int | None:
    value = headers.get(name)
    try:
        number = float(value) if value is not None else math.nan
    except ValueError:
        return None
    return int(number) if math.isfinite(number) and number >= 0 else None


def read_feedback(status: int, headers: Mapping[str, str], total_tokens: int | None = None) -> Feedback:
    """The :class:`Feedback` of a response (no I/O): a 429's ``Retry-After`` (``insufficient_quota``
    is answered without one, so it pauses nobody) and the ``x-ratelimit-remaining-*`` headers."""
    pause = retry_after_seconds(headers) if status == 429 else None
    return Feedback(
        pause=pause if pause is not None and pause > 0 else None,
        remaining_requests=_header_int(headers, "x-ratelimit-remaining-requests"),
        remaining_tokens=_header_int(headers, "x-ratelimit-remaining-tokens"),
        total_tokens=total_tokens,
    )


@runtime_checkable
class Limiter(Protocol):
    """Requests-per-window and tokens-per-window admission, in one process or shared by many.

    ``acquire`` waits until one request of ``tokens`` tokens may be sent and charges it; ``observe``
    feeds back what its response said (shared pause, remaining budget, real usage). Each has a
    ``_sync`` twin for :class:`holyclient.Client`.
    """

    rpm: float | None
    tpm: float | None

    async def acquire(self, model: str, tokens: int) -> Admission: ...

    async def observe(self, admission: Admission, feedback: Feedback) -> None: ...

    def acquire_sync(self, model: str, tokens: int) -> Admission: ...

    def observe_sync(self, admission: Admission, feedback: Feedback) -> None: ...


def admission_cost(
    limiter: Limiter, body: Mapping[str, Any] | None, charging: Charging | None = None
) -> tuple[str, int]:
    """``(model, tokens to charge)`` for a request body: prompt estimate + completion allowance, as the
    provider counts them. Tokens are counted only when the limiter has a token limit, by the endpoint's
    declaration (``charging.counts``: chat, completions, Responses, embeddings); an endpoint with
    nothing to count is admitted at 0 tokens."""
    from ._estimate import TokenEstimator

    body = body or {}
    model = str(body.get("model") or "unknown")
    if not limiter.tpm or charging is None or charging.counts is None:
        return model, 0
    return model, TokenEstimator().estimate(body, charging.counts)[0]


def response_feedback(response: Any, *, stream: bool) -> Feedback:
    """The :class:`Feedback` of a client's response (a streamed one is not read here: no usage)."""
    total = None
    if not stream and response.status_code == 200:
        try:
            usage = json.loads(response.content).get("usage") or {}
            total = int(usage.get("total_tokens") or 0) or None
        except (ValueError, TypeError, AttributeError):
            total = None
    return read_feedback(int(response.status_code), response.headers, total)
