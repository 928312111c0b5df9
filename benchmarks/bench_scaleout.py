"""Benchmark: 4 ``holyclient batch --shard K/4`` workers sharing one rate limit through Redis.

The local server (``holyclient serve``, its own process) enforces one global RPM limit and sends
``x-ratelimit-*`` headers on every answer; 4 worker processes x concurrency 64 send 20,000 requests
between them. Each scenario prints: results after ``holyclient batch merge`` (lost / duplicated),
attempts answered 429, the aggregate rate against the server's limit, and -- sampled once a second --
the steady rate (from 10% to 90% of the answers: start-up and the tail left out), what the shared
window held on average (near 1x: the limiter is what holds the fleet back; well below: the machine is)
and how much of it the limiter took as someone else's usage from the headers (none when only the
fleet spends from the key)::

    python benchmarks/bench_scaleout.py            # every scenario
    python benchmarks/bench_scaleout.py shared skew independent

* ``shared``       -- ``--limiter redis://...`` on every worker;
* ``skew``         -- the same, one worker's clock 2 s ahead (the limiter reads the Redis server's);
* ``restart``      -- the same, Redis stopped part way and started 3 s later: fallback, then shared again;
* ``kill``         -- the same, two workers killed with SIGKILL part way and started again (shard
  leases lapse after 15 s): the merge is still exactly once;
* ``independent``  -- 4 local limiters, each told the whole limit (as before this issue, except that
  each worker now also pauses on the 429s it sees itself).

Measured on the 2-core development machine, shared with other jobs (load average 7-11), with
``python benchmarks/bench_scaleout.py`` (20,000 requests, limit 1,500 per 10 s = 150/s, 50 ms latency)::

    scenario     lost  dup  attempts answered 429   aggregate / limit
    shared          0    0    20004     4 (0.02%)   140.4/s = 0.94x
    skew            0    0    20002     2 (0.01%)   132.0/s = 0.88x  (one 0.5 s Redis timeout under load:
                                                                      a short fallback; timeouts are now 2 s)
    restart         0    0    20020    20 (0.10%)   134.8/s = 0.90x  (fallback and back, both said on stderr)
    kill            0    0    20006     3 (0.01%)   129.8/s = 0.87x  (two workers SIGKILLed at 30%, restarted
                                                                      after their leases lapsed; 3 answers
                                                                      re-sent: the requests in flight)
    independent     0    0    20416   416 (2.04%)   141.6/s = 0.94x

And ``python benchmarks/bench_scaleout.py shared independent --requests 5000 --rpm 500`` (50/s)::

    shared          0    0     5002     2 (0.04%)    48.2/s = 0.96x
    independent     0    0     5112   112 (2.19%)    51.7/s = 1.03x

The aggregate rate is bounded here by the machine (the server and 4 workers share 2 busy cores), not by
the limiter.

Answers that take longer than the window's margin (issue 43: chat models take seconds) are read after
the window here has moved on: ``python benchmarks/bench_scaleout.py shared --requests 6000 --rpm 1000
--window 10 --latency 2``, 2026-12-07, load average 15-21, before and after the limiter compared each
answer's remaining budget with the window as it stood at the admission::

    before   steady 0.95x (window held 0.98x), 246 requests of it taken as someone else's usage
             (an earlier run: steady 0.88x, 323 taken; one more, sampled by hand: 0.82x)
    after    steady 0.95x (window held 0.97x), none taken (another run, by hand: 0.95x)

The issue's own figure, 4 workers on a 6,000 RPM limit (60 s window) with answers of 2 s:
``python benchmarks/bench_scaleout.py shared --requests 9000 --rpm 6000 --window 60 --latency 2``,
2026-12-07, load average about 6, on the limiter before the fix above (``705a229^``, through ``PYTHONPATH``)
and after it (``e64911d``)::

    before   0 lost, 0 dup, 9,002 attempts, 2 answered 429 (0.02%), aggregate 0.92x, steady 0.99x;
             133 requests of the window taken as someone else's usage
    after    0 lost, 0 dup, 9,001 attempts, 1 answered 429 (0.01%), aggregate 0.93x, steady 0.99x;
             3 taken

The issue's 1,816 RPM (0.30x) did not come back on this machine before the fix either: the phantom usage
it took was 133 requests of a 6,000-request window. ``tests/test_ratelimit_stale_answers.py`` holds the
same, bounded: four workers on 100 requests per 5 s with 2 s answers keep the window >= 0.9x full with
<= 2% 429s and take none of their own requests as someone else's.

Needs ``redis-server`` on PATH (Debian's package) and ``pip install 'holyclient[redis]'``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))

from bench_batch import KEY, Server, write_input

from redis_server import RedisServer

SKEWED = "import sys, time; _t = time.time; time.time = lambda: _t() + 2.0; from holyclient._cli import main; sys.exit(main(sys.argv[1:]))"
SCENARIOS = ("shared", "skew", "restart", "kill", "independent")


def start_worker(
    k: int, args: argparse.Namespace, source: Path, out: Path, base_url: str, extra: list[str], skew: bool
) -> subprocess.Popen[str]:
    command = [sys.executable, "-c", SKEWED] if skew else [sys.executable, "-m", "holyclient"]
    argv = [
        "batch",
        str(source),
        "-o",
        str(out),
        "--shard",
        f"{k}/{args.workers}",
        "--concurrency",
        str(args.concurrency),
    ]
    argv += ["--window", str(args.window), "--progress-every", "0", *extra]
    env = {**os.environ, "HOLYSHEEP_API_KEY": KEY, "HOLYSHEEP_BASE_URL": base_url}
    return subprocess.Popen(command + argv, env=env, stderr=subprocess.PIPE, text=True)


class Watch:
    """Samples the server's answered-200 count and what the shared limiter took as someone else's
    usage (its ``sync:`` entries in Redis), once a second, while the workers run.

    The steady rate is the server's 200s per second between 10% and 90% of them: start-up (imports,
    the first window's burst) and the last requests' tail stay out of it, so that it says how much of
    the limit the limiter lets the fleet use, not how fast four interpreters start on a busy machine.
    """

    def __init__(self, server: Server, redis_url: str) -> None:
        self.server = server
        self.redis_url = redis_url
        self.samples: list[tuple[float, int]] = []
        self.phantoms: dict[bytes, float] = {}
        self.held: list[tuple[float, float]] = []  # (time, requests the shared window held)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        import redis

        client = redis.Redis.from_url(self.redis_url, socket_timeout=2)
        while not self._stop.is_set():
            try:
                held = 0.0
                for key in client.scan_iter("holyclient:*:req"):
                    held += float(client.hget(key[: -len(b"req")] + b"state", "rsum") or 0)
                    for member in client.zrange(key, 0, -1):
                        if member.startswith(b"sync:"):
                            self.phantoms[member] = float(member.rsplit(b":", 1)[1])
                self.held.append((time.monotonic(), held))
            except (redis.RedisError, OSError):
                pass  # Redis stopped on purpose (restart): nothing to see
            self.samples.append((time.monotonic(), self.server.stats()["by_status"].get("200", 0)))
            self._stop.wait(1.0)
        client.close()

    def _steady(self, total: int) -> tuple[tuple[float, int], tuple[float, int]] | None:
        start = next(((t, n) for t, n in self.samples if n >= 0.1 * total), None)
        end = next(((t, n) for t, n in self.samples if n >= 0.9 * total), None)
        return None if start is None or end is None or end[0] <= start[0] else (start, end)

    def steady_rate(self, total: int) -> float | None:
        """200s per second between 10% and 90% of ``total`` answered (``None``: too few samples)."""
        steady = self._steady(total)
        return None if steady is None else (steady[1][1] - steady[0][1]) / (steady[1][0] - steady[0][0])

    def steady_held(self, total: int) -> float | None:
        """The mean of what the shared window held over the same span: near the limit when the limiter
        is what holds the fleet back, well below it when the machine is (too busy to send faster)."""
        steady = self._steady(total)
        held = [] if steady is None else [h for t, h in self.held if steady[0][0] <= t <= steady[1][0]]
        return sum(held) / len(held) if held else None


def lines_in(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def run(name: str, args: argparse.Namespace) -> None:
    redis = RedisServer()
    redis.start()
    server = Server(
        "--latency", str(args.latency), "--rpm", str(args.rpm), "--rate-window", str(args.window), "--no-log"
    )
    notes: list[str] = []
    watch = Watch(server, redis.url)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            source, out = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
            write_input(source, args.requests)
            shared = ["--rpm", str(args.rpm), "--limiter", redis.url, "--workers", str(args.workers)]
            extra = ["--rpm", str(args.rpm)] if name == "independent" else shared
            started = time.monotonic()
            watch.start()
            workers = [
                start_worker(k, args, source, out, server.base_url, extra, name == "skew" and k == 0)
                for k in range(args.workers)
            ]
            shard_files = [
                out.with_name(f"{out.name}.shard-{k}-of-{args.workers}") for k in range(args.workers)
            ]
            if name in ("restart", "kill"):
                while sum(lines_in(p) for p in shard_files) < args.requests * 0.3:
                    time.sleep(0.2)
                if name == "restart":
                    redis.stop()
                    time.sleep(3)
                    redis.start()
                    notes.append("Redis stopped at 30% of results, started again 3 s later")
                else:
                    for k in (0, 1):
                        workers[k].send_signal(signal.SIGKILL)
                        workers[k].wait()
                    done_at_kill = sum(lines_in(shard_files[k]) for k in (0, 1))
                    for k in (0, 1):
                        while True:  # the killed worker's lease lapses within 15 s: until then, exit 2
                            workers[k] = start_worker(k, args, source, out, server.base_url, extra, False)
                            workers[k].wait()
                            if workers[k].returncode != 2:
                                break
                            time.sleep(1)
                    notes.append(
                        f"workers 0 and 1 killed at 30% ({done_at_kill} of their results written), restarted"
                    )
            errors = [w.communicate()[1] for w in workers]
            wall = time.monotonic() - started
            watch.stop()
            stats = server.stats()
            merged = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "holyclient",
                    "batch",
                    "merge",
                    str(source),
                    *map(str, shard_files),
                    "-o",
                    str(out),
                ],
                capture_output=True,
                text=True,
            )
            ids = (
                [json.loads(line)["custom_id"] for line in out.read_text().splitlines()]
                if merged.returncode == 0
                else []
            )
            elapsed = [float(m.group(1)) for e in errors for m in re.finditer(r"requests in ([\d.]+)s", e)]
            run_seconds = max(elapsed) if elapsed and name not in ("kill",) else wall
            limit_rate = args.rpm / args.window
            ok = stats["by_status"].get("200", 0)
            print(
                f"\n[{name}] {args.requests} requests, {args.workers} workers x concurrency {args.concurrency}, "
                f"server limit {args.rpm} per {args.window:g} s ({limit_rate:g}/s)"
            )
            print(
                f"  merge: exit {merged.returncode}; {len(ids)} results, lost {args.requests - len(set(ids))}, "
                f"duplicates {len(ids) - len(set(ids))}"
            )
            print(
                f"  attempts {stats['requests']}, answered 429: {stats['rate_limited']} "
                f"({100 * stats['rate_limited'] / max(1, stats['requests']):.2f}%), answered 200: {ok}"
            )
            print(
                f"  aggregate {ok / run_seconds:.1f}/s over {run_seconds:.1f} s = {ok / run_seconds / limit_rate:.2f}x the limit "
                f"(wall {wall:.1f} s incl. start-up)"
            )
            steady, held = watch.steady_rate(args.requests), watch.steady_held(args.requests)
            if steady is not None and held is not None:
                print(
                    f"  steady {steady:.1f}/s = {steady / limit_rate:.2f}x the limit (from 10% to 90% of the answers); "
                    f"the shared window held {held / args.rpm:.2f}x the limit on average, "
                    f"{sum(watch.phantoms.values()):g} requests of it taken as someone else's usage"
                )
            said = [line for e in errors for line in e.splitlines() if "shared limiter" in line]
            for line in sorted(set(said))[:4]:
                print(f"  stderr: {line}")
            for note in notes:
                print(f"  note: {note}")
    finally:
        watch.stop()
        server.stop()
        redis.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "scenarios", nargs="*", metavar="SCENARIO", help=f"any of {', '.join(SCENARIOS)} (default: all)"
    )
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument(
        "--rpm", type=int, default=1500, help="server limit per window (default: 1500 per 10 s)"
    )
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    unknown = set(args.scenarios) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenarios: {', '.join(sorted(unknown))}")
    for name in args.scenarios or SCENARIOS:
        run(name, args)


if __name__ == "__main__":
    main()
