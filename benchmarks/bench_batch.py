"""Benchmark ``holyclient batch`` against the local server: throughput, attempts, memory, exactly-once.

Each scenario starts ``holyclient serve`` and the batch command as separate processes (so neither
steals the other's interpreter), then checks OUTPUT: every ``custom_id`` exactly once, with the
server's answer for its prompt.

Scenarios::

    python benchmarks/bench_batch.py faults  # 5,000 requests, concurrency 64, 200 ms, 20% faults
    python benchmarks/bench_batch.py kill    # the same, kill -9 part way, rerun: nothing re-sent
    python benchmarks/bench_batch.py limits  # server RPM/TPM limits with matching --rpm/--tpm
    python benchmarks/bench_batch.py scale   # 10,000 and 100,000 requests: ratio, attempts, peak memory
    python benchmarks/bench_batch.py fast    # 20,000 embedding requests, no latency, concurrency 256:
                                             # client CPU per request, holyclient batch vs raw aiohttp writing each line,
                                             # and the Python calls per request (call_counts.py)
    python benchmarks/bench_batch.py all

Throughput ratio = requests / seconds / ideal, ideal = concurrency / latency (also shown against the
mean latency the runner measured, which includes the client's own overhead). The fault mix defaults
to the issue's: 429 with Retry-After: 1 s, 500, 502, 503, dropped connection, malformed 200 and hang,
equal weights (``--faults`` takes ``holyclient serve --faults`` syntax; the server's own default weighs
429 three times), at 20%; hangs last 30 s and the batch uses a 1 s timeout (``--timeout``).

Each throughput line also gives the bound for the same parameters from ``perfect_runner.py``: a
simulated runner with zero overhead, instant slot reuse and no backoff that still honours Retry-After
and the timeout, averaged over 20 seeds. The time faults occupy caps it at 0.82x (equal weights) in
steady state; the tail of the last requests' Retry-After waits and timeouts costs a fixed second or two,
so the bound is about 0.77x at 5,000 requests and 0.82x at 100,000. "share of perfect" is our ratio
divided by that bound.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from call_counts import counts_table, measure
from perfect_runner import ISSUE_MIX, bound, parse_weights

KEY = "sk-bench-local"


class Server:
    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "holyclient", "serve", "--seed", "1", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        self.base_url = self.process.stdout.readline().strip()
        self.admin = self.base_url.removesuffix("/v1") + "/_holyclient"

    def _call(self, path: str, method: str = "GET") -> Any:
        request = urllib.request.Request(
            self.admin + path, method=method, data=b"" if method == "POST" else None
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def stats(self) -> dict[str, Any]:
        return dict(self._call("/stats"))

    def requests(self) -> list[dict[str, Any]]:
        return list(self._call("/requests")["data"])

    def reset(self) -> None:
        self._call("/reset", "POST")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=10)


def write_input(path: Path, n: int) -> None:
    with path.open("w") as file:
        for i in range(n):
            body = {
                "model": "gpt-4o-mini",
                "messages": [{"role": "user", "content": f"prompt r{i}"}],
                "max_tokens": 20,
            }
            line = {"custom_id": f"r{i}", "method": "POST", "url": "/v1/chat/completions", "body": body}
            file.write(json.dumps(line) + "\n")


def start_batch(source: Path, out: Path, base_url: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "holyclient",
            "batch",
            str(source),
            "-o",
            str(out),
            "--base-url",
            base_url,
            *extra,
        ],
        env={**os.environ, "HOLYSHEEP_API_KEY": KEY},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> tuple[int, float, str]:
    """Exit code, peak RSS in MB and stderr of a batch process."""
    assert process.stderr is not None
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_maxrss / 1024, err


def run_batch(source: Path, out: Path, base_url: str, *extra: str) -> dict[str, Any]:
    started = time.monotonic()
    code, peak_mb, err = finish(start_batch(source, out, base_url, *extra))
    wall = time.monotonic() - started
    match = re.search(r"requests in ([\d.]+)s", err)
    latency = re.search(r"mean latency ([\d.]+)s", err)
    return {
        "code": code,
        "peak_mb": peak_mb,
        "wall": wall,
        "run": float(match.group(1)) if match else wall,
        "latency": float(latency.group(1)) if latency else None,
        "err": err,
    }


def check_output(out: Path, n: int) -> tuple[int, int, int]:
    """(lost, duplicates, wrong answers) in OUTPUT."""
    seen: dict[str, int] = {}
    wrong = 0
    with out.open() as file:
        for raw in file:
            line = json.loads(raw)
            seen[line["custom_id"]] = seen.get(line["custom_id"], 0) + 1
            response = line["response"] or {}
            body = response.get("body") or {}
            choices = body.get("choices") or [{}]
            if (
                line["error"] is not None
                or choices[0].get("message", {}).get("content") != f"Echo: prompt {line['custom_id']}"
            ):
                wrong += 1
                if wrong <= 3:
                    print(f"  wrong: {json.dumps(line)[:500]}", flush=True)
    lost = sum(1 for i in range(n) if f"r{i}" not in seen)
    duplicates = sum(count - 1 for count in seen.values())
    return lost, duplicates, wrong


def _server_args(args: argparse.Namespace, faults: bool = True) -> list[str]:
    out = ["--latency", str(args.latency), "--hang-seconds", "30", "--no-log"]
    if faults:
        out += ["--fault-rate", str(args.fault_rate), "--faults", args.faults]
    return out


def _batch_args(args: argparse.Namespace) -> list[str]:
    return ["--concurrency", str(args.concurrency), "--timeout", str(args.timeout)]


def report(
    label: str, n: int, result: dict[str, Any], stats: dict[str, Any], args: argparse.Namespace, out: Path
) -> None:
    ideal = args.concurrency / args.latency
    lost, duplicates, wrong = check_output(out, n)
    measured = result["latency"] or args.latency
    print(
        f"{label}: {n} requests, exit {result['code']}, run {result['run']:.1f}s (wall {result['wall']:.1f}s), "
        f"throughput ratio {n / result['run'] / ideal:.2f}x of ideal ({n / result['wall'] / ideal:.2f}x wall; "
        f"{n / result['run'] / (args.concurrency / measured):.2f}x of the ideal at the measured mean latency "
        f"{measured:.3f}s), "
        f"attempts/request {stats['requests'] / n:.3f}, rate-limited {stats.get('rate_limited', 0)}, "
        f"peak RSS {result['peak_mb']:.0f} MB, lost {lost}, duplicates {duplicates}, wrong {wrong}",
        flush=True,
    )
    if not args.no_faults:
        perfect, low, high = bound(
            n,
            runs=20 if n <= 20_000 else 3,
            concurrency=args.concurrency,
            latency=args.latency,
            fault_rate=args.fault_rate,
            weights=parse_weights(args.faults),
            timeout=args.timeout,
        )
        print(
            f"  perfect runner on this mix (simulated, no overhead, honours Retry-After and the timeout): "
            f"{perfect:.3f}x (min {low:.3f}, max {high:.3f}); share of perfect "
            f"{n / result['run'] / ideal / perfect:.2f} (run) / {n / result['wall'] / ideal / perfect:.2f} (wall)",
            flush=True,
        )
    if result["code"] != 0:
        print(f"  server statuses {stats.get('by_status')}, faults {stats.get('by_fault')}", flush=True)
        print("  " + result["err"].strip().replace("\n", "\n  "), flush=True)


def scenario_faults(args: argparse.Namespace, n: int | None = None, label: str = "faults") -> None:
    n = n or args.requests
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
        write_input(source, n)
        server = Server(*_server_args(args, faults=not args.no_faults))
        try:
            result = run_batch(source, out, server.base_url, *_batch_args(args))
            report(label, n, result, server.stats(), args, out)
        finally:
            server.stop()


def scenario_scale(args: argparse.Namespace) -> None:
    for n in args.scale:
        scenario_faults(args, n, label=f"scale-{n}")


def scenario_kill(args: argparse.Namespace) -> None:
    n = args.requests
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
        write_input(source, n)
        server_args = [a for a in _server_args(args) if a != "--no-log"]
        server = Server(*server_args)
        try:
            process = start_batch(source, out, server.base_url, *_batch_args(args))
            while not out.exists() or out.read_bytes().count(b"\n") < int(n * args.kill_at):
                time.sleep(0.05)
            process.kill()
            finish(process)
            written = {json.loads(line)["custom_id"] for line in out.read_text().splitlines()}
            server.reset()
            result = run_batch(source, out, server.base_url, *_batch_args(args))
            resent = [
                r
                for r in server.requests()
                if r["body"] and r["body"]["messages"][0]["content"].removeprefix("prompt ") in written
            ]
            lost, duplicates, wrong = check_output(out, n)
            print(
                f"kill: {n} requests, killed with {len(written)} written; rerun exit {result['code']}, "
                f"server requests for already-written custom_ids: {len(resent)}; "
                f"lost {lost}, duplicates {duplicates}, wrong {wrong}",
                flush=True,
            )
        finally:
            server.stop()


def scenario_limits(args: argparse.Namespace) -> None:
    n = args.limit_requests
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
        write_input(source, n)
        limits = ["--rpm", str(args.rpm), "--tpm", str(args.tpm)]
        server = Server("--latency", str(args.latency), "--no-log", *limits)
        try:
            result = run_batch(source, out, server.base_url, "--concurrency", str(args.concurrency), *limits)
            stats = server.stats()
            failed = re.search(r"(\d+) failed", result["err"])
            print(
                f"limits: {n} requests, rpm {args.rpm}, tpm {args.tpm}: exit {result['code']}, "
                f"failed {failed.group(1) if failed else '?'}, attempts {stats['requests']}, "
                f"answered 429: {stats['rate_limited']} ({100 * stats['rate_limited'] / stats['requests']:.2f}% of attempts), "
                f"run {result['run']:.1f}s ({n / result['run'] * 60:.0f} requests/min)",
                flush=True,
            )
        finally:
            server.stop()


def write_embeddings_input(path: Path, n: int, dimensions: int) -> None:
    with path.open("w") as file:
        for i in range(n):
            body = {"model": "text-embedding-3-small", "input": f"prompt r{i}", "dimensions": dimensions}
            line = {"custom_id": f"r{i}", "method": "POST", "url": "/v1/embeddings", "body": body}
            file.write(json.dumps(line) + "\n")


def cpu_seconds(command: list[str], env: dict[str, str] | None = None) -> tuple[int, float, float, str]:
    """Exit code, user+system CPU seconds, wall seconds and stderr of a child process."""
    started = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = process.communicate()
    wall = time.monotonic() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime - _spent_so_far[0]
    _spent_so_far[0] = usage.ru_utime + usage.ru_stime
    return process.returncode, cpu, wall, out + err


#: CPU seconds of the children waited for so far (RUSAGE_CHILDREN only grows): the server's excluded,
#: as it is still running.
_spent_so_far = [0.0]


def scenario_fast(args: argparse.Namespace) -> None:
    """Client CPU per request on a fast endpoint: the batch command against a plain aiohttp loop."""
    n = args.fast_requests
    here = Path(__file__).parent
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
        write_embeddings_input(source, n, args.dimensions)
        server = Server("--latency", "0", "--no-log")
        try:
            _spent_so_far[0] = sum(resource.getrusage(resource.RUSAGE_CHILDREN)[:2])
            floor: list[float] = []
            ours: list[float] = []
            for _ in range(args.rounds):  # interleaved, so that machine noise hits both alike
                floor_out = Path(tmp) / "floor.jsonl"
                floor_out.unlink(missing_ok=True)
                code, cpu, wall_floor, text = cpu_seconds(
                    [
                        *(sys.executable, str(here / "raw_aiohttp_floor.py"), str(source)),
                        *(server.base_url, "256", str(floor_out)),
                    ]
                )
                assert code == 0 and '"failed": 0' in text, text
                floor.append(cpu)
                out.unlink(missing_ok=True)
                command = [sys.executable, "-m", "holyclient", "batch", str(source), "-o", str(out)]
                command += ["--base-url", server.base_url, "--concurrency", "256", *args.batch_args]
                code, cpu, wall_batch, text = cpu_seconds(command, {**os.environ, "HOLYSHEEP_API_KEY": KEY})
                assert code == 0, text
                assert sum(1 for _ in out.open()) == n
                ours.append(cpu)
                print(
                    f"  round: raw aiohttp writing each line {cpu_ms(floor[-1], n):.3f} ms/request ({wall_floor:.1f}s wall), "
                    f"holyclient batch {cpu_ms(cpu, n):.3f} ms/request ({wall_batch:.1f}s wall): "
                    f"{cpu / floor[-1]:.2f}x",
                    flush=True,
                )
            calls = measure(server.base_url, ["batch_request"])  # this process, the server is another
        finally:
            server.stop()
    best_floor, best_ours = min(floor), min(ours)
    ratios = sorted(o / f for o, f in zip(ours, floor, strict=True))
    print(
        f"fast: {n} embedding requests, no latency, concurrency 256, best of {args.rounds}: client CPU "
        f"raw aiohttp writing each line {cpu_ms(best_floor, n):.3f} ms/request, holyclient batch {cpu_ms(best_ours, n):.3f} "
        f"ms/request (process start and input validation included): ratio {best_ours / best_floor:.2f}x "
        f"(target <= 2x); per round {', '.join(f'{r:.2f}x' for r in ratios)}, median "
        f"{ratios[len(ratios) // 2]:.2f}x",
        flush=True,
    )
    print("\n".join(counts_table(calls)), flush=True)


def cpu_ms(seconds: float, n: int) -> float:
    return seconds / n * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("scenario", choices=["faults", "kill", "limits", "scale", "fast", "all"])
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--fault-rate", type=float, default=0.2)
    parser.add_argument("--no-faults", action="store_true")
    parser.add_argument("--faults", default=ISSUE_MIX, help="fault weights, as holyclient serve --faults")
    parser.add_argument("--timeout", type=float, default=1.0)
    parser.add_argument("--kill-at", type=float, default=0.4, help="fraction written before kill -9")
    parser.add_argument("--scale", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--limit-requests", type=int, default=1500)
    parser.add_argument("--rpm", type=int, default=1500)
    parser.add_argument("--tpm", type=int, default=50_000)
    parser.add_argument("--fast-requests", type=int, default=20_000)
    parser.add_argument("--dimensions", type=int, default=16, help="embedding size in the fast scenario")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the fast scenario (best kept)")
    parser.add_argument(
        "--batch-args", nargs="*", default=[], help="more holyclient batch options in the fast scenario"
    )
    args = parser.parse_args()
    scenarios = {
        "faults": scenario_faults,
        "kill": scenario_kill,
        "limits": scenario_limits,
        "scale": scenario_scale,
        "fast": scenario_fast,
    }
    for name, scenario in scenarios.items():
        if args.scenario in (name, "all"):
            scenario(args)


if __name__ == "__main__":
    main()
