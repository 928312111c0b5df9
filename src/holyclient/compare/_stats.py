"""Percentiles and a paired bootstrap confidence interval for a ratio of percentiles. No I/O.

The interval resamples *requests* (old and new latency of the same request stay together), so a
sample with a few slow prompts does not widen it for nothing; it is seeded, so a report is
reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .._core import percentile

__all__ = ["bootstrap_ratio_ci", "percentile", "ratio"]

BOOTSTRAP_ITERATIONS = 1000


def ratio(new: float | None, old: float | None) -> float | None:
    if new is None or old is None or old <= 0:
        return None
    return new / old


def bootstrap_ratio_ci(
    pairs: Sequence[tuple[float, float]],
    q: float,
    *,
    confidence: float = 0.95,
    iterations: int = BOOTSTRAP_ITERATIONS,
    seed: int = 0,
) -> tuple[float, float] | None:
    """A confidence interval for ``percentile(new, q) / percentile(old, q)`` over ``(old, new)`` pairs."""
    if len(pairs) < 2:
        return None
    rng = random.Random(seed)
    size = len(pairs)
    ratios: list[float] = []
    for _ in range(iterations):
        draw = [pairs[rng.randrange(size)] for _ in range(size)]
        value = ratio(percentile([n for _, n in draw], q), percentile([o for o, _ in draw], q))
        if value is not None:
            ratios.append(value)
    if not ratios:
        return None
    tail = (1.0 - confidence) / 2 * 100
    low, high = percentile(ratios, tail), percentile(ratios, 100 - tail)
    assert low is not None and high is not None
    return low, high
