"""The throughput a perfect batch runner would reach on a fault mix: the bound ``bench_batch`` compares with.

A discrete-event simulation of a runner with no overhead at all: every attempt takes exactly the
server's latency (a fault answered at once takes no time), a freed slot is refilled the same instant
(retries first, then new requests), a failed attempt is retried at once without any backoff, and the
only waits are the ones a correct client cannot skip: a 429 waits its ``Retry-After``, a hang holds its
slot until the timeout. Faults strike each attempt independently with the server's probability and
weights, as ``holyclient serve --fault-rate/--faults`` does.

What it shows: besides the slot time faults occupy (the steady-state cap), a finite batch ends with a
tail in which the last requests wait out a ``Retry-After`` or a timeout while most slots have nothing
left to do; that tail is a fixed cost of a second or two whatever the batch size, so the ratio a batch
can reach grows with its size.

    python benchmarks/perfect_runner.py            # the table for the default mixes
"""

from __future__ import annotations

import heapq
import random
import statistics
from collections.abc import Mapping

INSTANT_FAULT_SECONDS = 0.0


def simulate(
    n: int,
    *,
    concurrency: int,
    latency: float,
    fault_rate: float,
    weights: Mapping[str, float],
    timeout: float,
    retry_after: float = 1.0,
    seed: int = 0,
) -> float:
    """One run's throughput as a ratio of the ideal ``concurrency / latency``."""
    rng = random.Random(seed)
    kinds = list(weights)
    kind_weights = [float(weights[k]) for k in kinds]
    now = 0.0
    ready: list[tuple[float, int]] = []  # (when it may be sent again, request)
    in_flight: list[tuple[float, int, str]] = []  # (when the attempt ends, request, outcome)
    next_new, free = 0, concurrency
    done = 0
    while done < n:
        while free > 0:
            if ready and ready[0][0] <= now:
                request = heapq.heappop(ready)[1]
            elif next_new < n:
                request, next_new = next_new, next_new + 1
            else:
                break
            kind = rng.choices(kinds, kind_weights)[0] if rng.random() < fault_rate else "ok"
            seconds = {"ok": latency, "malformed": latency, "hang": timeout}.get(kind, INSTANT_FAULT_SECONDS)
            heapq.heappush(in_flight, (now + seconds, request, kind))
            free -= 1
        upcoming = [in_flight[0][0]] if in_flight else []
        if ready and free > 0:
            upcoming.append(ready[0][0])
        now = max(now, min(upcoming))
        while in_flight and in_flight[0][0] <= now:
            ended, request, kind = heapq.heappop(in_flight)
            free += 1
            if kind == "ok":
                done += 1
            else:
                heapq.heappush(ready, (ended + (retry_after if kind == "429" else 0.0), request))
    return n / now / (concurrency / latency)


def bound(n: int, *, runs: int = 10, **kwargs: object) -> tuple[float, float, float]:
    """(mean, min, max) of the perfect runner's ratio over ``runs`` seeds."""
    ratios = [simulate(n, seed=seed, **kwargs) for seed in range(runs)]  # type: ignore[arg-type]
    return statistics.mean(ratios), min(ratios), max(ratios)


def parse_weights(spec: str) -> dict[str, float]:
    """``"429=3,500,drop"`` -> weights (a missing weight is 1), as ``holyclient serve --faults`` reads it."""
    weights: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, sep, weight = item.partition("=")
        weights[name.strip()] = float(weight) if sep else 1.0
    return weights


ISSUE_MIX = "429,500,502,503,drop,malformed,hang"
SERVE_DEFAULT_MIX = "429=3,500,502,503,drop,malformed,hang"


def main() -> None:
    for label, mix in (("equal weights", ISSUE_MIX), ("serve default", SERVE_DEFAULT_MIX)):
        for n in (5_000, 10_000, 100_000):
            mean, low, high = bound(
                n,
                runs=20 if n < 100_000 else 4,
                concurrency=64,
                latency=0.2,
                fault_rate=0.2,
                weights=parse_weights(mix),
                timeout=1.0,
            )
            print(
                f"{label:14s} ({mix}) n={n:>7,}: perfect runner {mean:.3f}x of ideal (min {low:.3f}, max {high:.3f})"
            )


if __name__ == "__main__":
    main()
