"""Per-target counters for ``router.stats()``. Thread-safe; no I/O."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import asdict, dataclass
from typing import Any

#: Latencies kept per target for the percentiles (the most recent ones).
LATENCY_WINDOW = 1000


@dataclass(frozen=True)
class TargetStats:
    """One target's counters since the router was built.

    Attributes:
        requests: requests sent to the target (each failover attempt counts on its own target).
        successes: requests it answered successfully.
        errors: requests that failed there (any error, the caller's mistakes included).
        failovers: failures that moved the request on to another target.
        latency_p50_s: median seconds to the answer (to the first byte for streams), recent requests.
        latency_p95_s: 95th percentile of the same.
        breaker: ``closed``, ``open`` or ``half-open``.
        breaker_opened: how many times its breaker opened.
        weight: its current weight.
        prompt_tokens: prompt tokens it billed.
        completion_tokens: completion tokens it billed.
        cost_usd: what it cost (None when a model had no known price).
        mirrored: pairs written to ``mirror_to`` from copies sent to it as the shadow target (a copy still
            in flight is not counted yet).
        mirror_dropped: mirror copies not sent: the mirror's concurrency was full, or mirroring had
            stopped (its file could not be written, or was full).
        mirror_lost: copies it answered (and may have billed) whose pair could not be written.
        mirror_refused: copies the budget refused before sending (nothing sent, no pair).
        streams_broken: streams it served that broke part-way (cut, stalled, an error event, ended
            early); each one the router recovered elsewhere also counts in ``failovers``.
        malformed_events: events of its streams that were not valid JSON, skipped (the streams read on).
    """

    requests: int
    successes: int
    errors: int
    failovers: int
    latency_p50_s: float | None
    latency_p95_s: float | None
    breaker: str
    breaker_opened: int
    weight: float
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    mirrored: int = 0
    mirror_dropped: int = 0
    mirror_lost: int = 0
    mirror_refused: int = 0
    streams_broken: int = 0
    malformed_events: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Counters:
    """The mutable counters behind one target's :class:`TargetStats`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests = 0
        self.successes = 0
        self.errors = 0
        self.failovers = 0
        self.streams_broken = 0
        self.malformed_events = 0
        self._latencies: deque[float] = deque(maxlen=LATENCY_WINDOW)

    def sent(self) -> None:
        with self._lock:
            self.requests += 1

    def done(self, latency: float, *, ok: bool) -> None:
        with self._lock:
            self._latencies.append(latency)
            if ok:
                self.successes += 1
            else:
                self.errors += 1

    def add(self, name: str, amount: int = 1) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + amount)

    def latencies(self) -> list[float]:
        with self._lock:
            return list(self._latencies)
