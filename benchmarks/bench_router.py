"""Benchmark ``holyclient.Router``: what routing and mirroring cost the caller.

Two local servers: the primary answers after ``--latency`` (default 20 ms), the shadow after
``--shadow-latency`` (default 500 ms, 25 times slower). The caller's latency is measured for the same
requests through a plain ``Client``, through a ``Router`` with one target, and through a ``Router``
that mirrors every request (``mirror=1.0``) to the slow shadow. Mirroring must add no latency: the copy
runs on a background thread and is dropped when ``--mirror-concurrency`` copies are already in flight.

    python benchmarks/bench_router.py                 # 300 sequential requests
    python benchmarks/bench_router.py --requests 1000 --shadow-latency 2

Prints p50/p95 per setup, the router's overhead per request and how many copies were sent and dropped.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from holyclient import Client, Router, Target
from holyclient.testing import LocalServer

MESSAGES = [{"role": "user", "content": "hi"}]


def measure(call: Callable[[], object], requests: int) -> list[float]:
    for _ in range(10):  # warm the connection pools
        call()
    latencies = []
    for _ in range(requests):
        started = time.perf_counter()
        call()
        latencies.append(time.perf_counter() - started)
    return latencies


def report(name: str, latencies: list[float], base: list[float] | None = None) -> None:
    ordered = sorted(latencies)
    p50, p95 = statistics.median(ordered), ordered[int(0.95 * len(ordered))]
    extra = ""
    if base is not None:
        extra = f"  ({(p50 - statistics.median(base)) * 1000:+.2f} ms p50 vs plain client)"
    print(f"{name:<34} p50 {p50 * 1000:7.2f} ms   p95 {p95 * 1000:7.2f} ms{extra}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--shadow-latency", type=float, default=0.5)
    parser.add_argument("--mirror-concurrency", type=int, default=4)
    args = parser.parse_args()
    with (
        LocalServer(latency=args.latency, log_requests=False) as primary,
        LocalServer(latency=args.shadow_latency, log_requests=False) as shadow,
        tempfile.TemporaryDirectory() as tmp,
    ):
        with Client(api_key="sk-a", base_url=primary.base_url) as client:
            plain = measure(
                lambda: client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES), args.requests
            )
        with Router([Target(primary.base_url, api_key="sk-a")]) as router:
            routed = measure(
                lambda: router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES), args.requests
            )
        pairs = Path(tmp) / "pairs.jsonl"
        mirrored_router = Router(
            [Target(primary.base_url, api_key="sk-a", name="primary")],
            shadow=Target(shadow.base_url, api_key="sk-b", name="shadow"),
            mirror=1.0,
            mirror_to=pairs,
            mirror_concurrency=args.mirror_concurrency,
        )
        mirrored = measure(
            lambda: mirrored_router.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES),
            args.requests,
        )
        mirrored_router.close()  # waits for the copies in flight: their pairs are then counted
        stats = mirrored_router.stats()["shadow"]
        written = len(pairs.read_text().splitlines()) if pairs.exists() else 0
    print(
        f"{args.requests} sequential requests; primary {args.latency * 1000:.0f} ms, shadow {args.shadow_latency * 1000:.0f} ms"
    )
    report("Client", plain)
    report("Router, one target", routed, plain)
    report("Router, mirror=1.0 to slow shadow", mirrored, plain)
    print(
        f"mirror: {stats.mirrored} pairs kept, {stats.mirror_dropped} copies dropped (concurrency {args.mirror_concurrency}), {stats.mirror_lost} lost, {written} pairs written"
    )


if __name__ == "__main__":
    main()
