"""How much does holyclient cost beside a raw HTTP floor and beside the official ``openai`` package?

One run starts ``holyclient serve --no-log`` (the project's local OpenAI-compatible server, zero latency)
in a subprocess on loopback and measures, each client in a fresh child process, rounds interleaved and
the best round kept:

1. sync CPU per request    process CPU time over N sequential chat completions (target <= 1.3x floor)
2. stream CPU per chunk    one long streamed completion per round, CPU / chunks (target <= 2x floor)
3. async throughput        req/s at concurrency 64 and 256, gather + semaphore (target >= 0.9x httpx2;
                           raw aiohttp, the wire under the default async transport, shown too, and
                           openai on its ``DefaultAioHttpClient`` transport beside plain openai)
4. import wall time        ``python -c "import holyclient"`` vs ``import httpx``, best of K (target <= 2x)
   import + ``Client()``     ``import holyclient; holyclient.Client()`` vs ``import httpx`` (target <= 1.5x)
5. peak RSS                ru_maxrss of the sync child after its N requests (target <= 1.2x floor)
6. OpenTelemetry cost      sync CPU per request with opentelemetry-api importable and no SDK (the API's
                           no-op providers: what every user with the API but no set-up pays) against
                           the same child with ``opentelemetry`` made unimportable (target <= 1.05x)
7. Python calls            per sync request, async request and streamed chunk, holyclient's and openai's,
                           counted by ``call_counts.py`` (no clock: the CI guard's figures) against the
                           budget in ``call_budget.json`` (a count more than 10% over it is a miss)

The raw floor is plain httpx2 or httpx posting JSON and ``json.loads``-ing the answer (for streams:
iterating lines and ``json.loads``-ing each ``data:``), whichever is cheaper in this run. The server's
own CPU use is reported for the async rows, to show it is not the bottleneck. Every figure printed
comes from the same run.

    .venv/bin/python benchmarks/bench_client.py                  # full run, ~7 min on 2 cores
    .venv/bin/python benchmarks/bench_client.py --quick          # smaller counts, ~1.5 min
    .venv/bin/python benchmarks/bench_client.py --profile sync   # cProfile of holyclient's sync path
    .venv/bin/python benchmarks/bench_client.py --otel           # only row 6, ~1 min

Exit code 0 when every target is met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

KEY = "sk-bench-0123456789abcdef"
MODEL = "gpt-4o-mini"
MESSAGES = [{"role": "user", "content": "Benchmark the client, please: one short answer."}]
HEADERS = {"Authorization": f"Bearer {KEY}", "Accept": "application/json"}

SYNC_KINDS = ("holyclient", "holyclient+httpx", "holyclient-no-otel-api", "raw-httpx2", "raw-httpx", "openai")
OTEL_KINDS = ("holyclient", "holyclient-no-otel-api")
ASYNC_KINDS = (
    "holyclient",
    "holyclient+httpx",
    "raw-httpx2",
    "raw-httpx",
    "raw-aiohttp",
    "openai",
    "openai+aiohttp",
)
RAW_KINDS = ("raw-httpx2", "raw-httpx")
TARGETS = {
    "sync": 1.3,
    "stream": 2.0,
    "async": 0.9,
    "import": 2.0,
    "construct": 1.5,
    "rss": 1.2,
    "otel": 1.05,
}


# --- workers: run in a fresh child process, print one JSON line ---------------------------------
# Top-level imports above are stdlib only and identical for every kind, so RSS and CPU compare fairly.


def _http_module(kind: str) -> Any:
    if kind.endswith("httpx2"):
        import httpx2

        return httpx2
    import httpx

    return httpx


def _sync_calls(kind: str, url: str) -> tuple[Callable[[], Any], Callable[[list[dict[str, Any]]], int], Any]:
    """(one chat request, one stream returning its chunk count, the object to close) for ``kind``."""
    if kind.startswith("raw-"):
        http = _http_module(kind).Client(timeout=60)
        endpoint = url + "/chat/completions"
        body = {"model": MODEL, "messages": MESSAGES}

        def request() -> Any:
            return json.loads(http.post(endpoint, json=body, headers=HEADERS).content)

        def stream(messages: list[dict[str, Any]]) -> int:
            chunks = 0
            sbody = {"model": MODEL, "messages": messages, "stream": True}
            with http.stream("POST", endpoint, json=sbody, headers=HEADERS) as response:
                for line in response.iter_lines():
                    if line.startswith("data: "):
                        data = line[6:]
                        if data == "[DONE]":
                            break
                        json.loads(data)
                        chunks += 1
            return chunks

        return request, stream, http

    if kind == "openai":
        import openai

        client: Any = openai.OpenAI(api_key=KEY, base_url=url)
    else:
        if kind == "holyclient-no-otel-api":
            _block_opentelemetry()
        import holyclient

        options: dict[str, Any] = {}
        if kind == "holyclient+httpx":
            import httpx

            options = {"http_client": httpx.Client(timeout=60)}
        client = holyclient.Client(api_key=KEY, base_url=url, **options)

    def sdk_request() -> Any:
        return client.chat.completions.create(model=MODEL, messages=MESSAGES)

    def sdk_stream(messages: list[dict[str, Any]]) -> int:
        chunks = 0
        with client.chat.completions.create(model=MODEL, messages=messages, stream=True) as stream:
            for _chunk in stream:
                chunks += 1
        return chunks

    return sdk_request, sdk_stream, client


class _NoOpenTelemetry:
    """A meta-path finder that makes ``opentelemetry`` unimportable: a machine without the API."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked by the benchmark)", name=name)
        return None


def _block_opentelemetry() -> None:
    sys.meta_path.insert(0, _NoOpenTelemetry())  # type: ignore[arg-type]


def _stream_messages(words: int) -> list[dict[str, Any]]:
    """The server echoes the user text back, one streamed chunk per word."""
    return [{"role": "user", "content": " ".join(f"w{i % 100}" for i in range(words))}]


def worker_sync(kind: str, url: str, requests: int, warmup: int) -> dict[str, Any]:
    request, _, closer = _sync_calls(kind, url)
    for _ in range(warmup):
        request()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(requests):
        request()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    closer.close()
    return {
        "cpu_us": cpu / requests * 1e6,
        "wall_us": wall / requests * 1e6,
        "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


def worker_stream(kind: str, url: str, words: int, streams: int) -> dict[str, Any]:
    _, stream, closer = _sync_calls(kind, url)
    messages = _stream_messages(words)
    stream(_stream_messages(50))  # warm-up: connection, imports, caches
    chunks = 0
    cpu = time.process_time()
    for _ in range(streams):
        chunks += stream(messages)
    cpu = time.process_time() - cpu
    closer.close()
    return {"cpu_us": cpu / chunks * 1e6, "chunks": chunks}


def _server_cpu(pid: int) -> float | None:
    """utime + stime of the server process, from /proc (Linux); None elsewhere."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker_async(kind: str, url: str, concurrency: int, requests: int, server_pid: int) -> dict[str, Any]:
    import asyncio

    async def main() -> dict[str, Any]:
        if kind == "raw-aiohttp":  # the wire under holyclient's default async transport, on its own
            import aiohttp

            session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency))
            endpoint = url + "/chat/completions"
            body = {"model": MODEL, "messages": MESSAGES}

            async def call() -> Any:
                async with session.post(endpoint, json=body, headers=HEADERS) as response:
                    return json.loads(await response.read())

            close = session.close
        elif kind.startswith("raw-"):
            module = _http_module(kind)
            limits = module.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
            http = module.AsyncClient(timeout=60, limits=limits)
            endpoint = url + "/chat/completions"
            body = {"model": MODEL, "messages": MESSAGES}

            async def call() -> Any:
                return json.loads((await http.post(endpoint, json=body, headers=HEADERS)).content)

            close = http.aclose
        else:
            if kind.startswith("openai"):
                import openai

                # "openai+aiohttp": the official SDK on its own aiohttp transport, as fair a comparison
                # with holyclient's default (aiohttp-backed) async transport as openai offers.
                extra = {"http_client": openai.DefaultAioHttpClient()} if kind == "openai+aiohttp" else {}
                client: Any = openai.AsyncOpenAI(api_key=KEY, base_url=url, **extra)
            else:
                import holyclient

                options: dict[str, Any] = {}
                if kind == "holyclient+httpx":  # the same pool limits as holyclient's default transport
                    import httpx

                    limits = httpx.Limits(max_connections=1000, max_keepalive_connections=256)
                    options = {"http_client": httpx.AsyncClient(timeout=60, limits=limits)}
                client = holyclient.AsyncClient(api_key=KEY, base_url=url, **options)

            async def call() -> Any:
                return await client.chat.completions.create(model=MODEL, messages=MESSAGES)

            close = client.close
        semaphore = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with semaphore:
                await call()

        await asyncio.gather(*(one() for _ in range(concurrency * 2)))  # warm-up: open the connections
        server_cpu = _server_cpu(server_pid)
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(one() for _ in range(requests)))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        server_after = _server_cpu(server_pid)
        await close()
        busy = None if server_cpu is None or server_after is None else (server_after - server_cpu) / wall
        return {"rps": requests / wall, "cpu_us": cpu / requests * 1e6, "server_busy": busy}

    return asyncio.run(main())


def worker_counts(url: str) -> dict[str, Any]:
    """Python calls per request, holyclient's and openai's (``call_counts.py``: the CI guard's figures)."""
    import call_counts  # this script's folder is on sys.path; imported here, not by the timed workers

    return call_counts.measure(url, call_counts.CLIENT_FIGURES)


def run_worker(spec: dict[str, Any]) -> dict[str, Any]:
    mode = spec.pop("mode")
    function = {"sync": worker_sync, "stream": worker_stream, "async": worker_async, "counts": worker_counts}[
        mode
    ]
    result: dict[str, Any] = function(**spec)
    return result


# --- orchestration ------------------------------------------------------------------------------


def child_env() -> dict[str, str]:
    # Bytecode caches as an installed package has them: PYTHONDONTWRITEBYTECODE would make every
    # fresh interpreter recompile holyclient from source and inflate its import time.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.pop("HOLYSHEEP_API_KEY", None)
    env.pop("HOLYSHEEP_BASE_URL", None)
    return env


def spawn(spec: dict[str, Any]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--worker", json.dumps(spec)],
        capture_output=True,
        text=True,
        env=child_env(),
        check=False,
        timeout=600,
    )
    if out.returncode != 0:
        raise RuntimeError(f"worker {spec} failed:\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def best(rounds: list[dict[str, Any]], key: str, highest: bool = False) -> dict[str, Any]:
    return (max if highest else min)(rounds, key=lambda r: r[key])


def import_time(code: str, runs: int) -> float:
    """Best wall time of ``python -c code`` over ``runs`` fresh interpreters (after one warm-up)."""
    env = child_env()
    times = []
    for i in range(runs + 1):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
        if i:  # the first run only writes bytecode caches
            times.append(time.perf_counter() - started)
    return min(times)


class Server:
    """``holyclient serve`` in a subprocess: the first stdout line is the base URL."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "holyclient", "serve", "--port", "0", "--no-log"],
            stdout=subprocess.PIPE,
            text=True,
            env=child_env(),
        )
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        if not self.url.startswith("http"):
            self.close()
            raise RuntimeError("holyclient serve did not print its URL")

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()


def ratio_row(
    name: str, value: float, floor: float, floor_name: str, target_key: str, unit: str, official: float
) -> tuple[str, bool]:
    """One line of the summary: holyclient, the floor, their ratio against the target, the official SDK's."""
    target = TARGETS[target_key]
    higher_is_better = target_key == "async"
    ratio = value / floor
    ok = ratio >= target if higher_is_better else ratio <= target
    fmt = "{:.0f}" if higher_is_better else "{:.1f}"
    line = (
        f"{name:<28}{fmt.format(value):>10} {unit:<6}{fmt.format(floor):>10} {unit:<6}{floor_name:<12}"
        f"{ratio:>7.2f}x  {'>=' if higher_is_better else '<='} {target:<5}{'ok' if ok else 'MISS':<6}"
        f"{official / floor:>11.2f}x"
    )
    return line, ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=2000, help="sync requests per round (default 2000)")
    parser.add_argument("--stream-words", type=int, default=2000, help="chunks per streamed completion")
    parser.add_argument("--streams", type=int, default=3, help="streamed completions per round")
    parser.add_argument("--async-requests", type=int, default=1500, help="requests per async round")
    parser.add_argument("--concurrency", default="64,256", help="async concurrency levels (default 64,256)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per measurement; the best is kept")
    parser.add_argument("--import-runs", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="smaller counts and one round")
    parser.add_argument("--json", metavar="PATH", help="also write every figure to PATH as JSON")
    parser.add_argument(
        "--profile",
        choices=("sync", "stream", "async"),
        help="profile holyclient's path in this process with cProfile instead",
    )
    parser.add_argument(
        "--otel", action="store_true", help="only the OpenTelemetry row (no-op provider vs no API installed)"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        print(json.dumps(run_worker(json.loads(args.worker))))
        return 0
    if args.quick:
        args.requests, args.streams, args.async_requests, args.rounds = 500, 1, 600, 1
        args.import_runs = 5
    levels = [int(c) for c in args.concurrency.split(",")]
    command = " ".join(
        ["python", "benchmarks/bench_client.py", *(argv if argv is not None else sys.argv[1:])]
    )

    server = Server()
    try:
        if args.profile:
            return profile(args.profile, server)
        if args.otel:
            return otel_row(args, server, command)
        results = measure(args, levels, server)
    finally:
        server.close()
    return report(results, levels, command, args)


def measure(args: argparse.Namespace, levels: list[int], server: Server) -> dict[str, Any]:
    url, pid = server.url, server.process.pid
    sync: dict[str, list[dict[str, Any]]] = {k: [] for k in SYNC_KINDS}
    stream: dict[str, list[dict[str, Any]]] = {k: [] for k in SYNC_KINDS}
    async_: dict[str, dict[str, list[dict[str, Any]]]] = {
        str(c): {k: [] for k in ASYNC_KINDS} for c in levels
    }
    for n in range(args.rounds):
        print(f"round {n + 1}/{args.rounds} ...", file=sys.stderr)
        for kind in SYNC_KINDS:
            common = {"kind": kind, "url": url}
            sync[kind].append(spawn({**common, "mode": "sync", "requests": args.requests, "warmup": 200}))
            stream[kind].append(
                spawn({**common, "mode": "stream", "words": args.stream_words, "streams": args.streams})
            )
        for c in levels:
            for kind in ASYNC_KINDS:
                spec = {"mode": "async", "kind": kind, "url": url, "concurrency": c, "server_pid": pid}
                async_[str(c)][kind].append(spawn({**spec, "requests": args.async_requests}))
    print("Python calls per request ...", file=sys.stderr)
    calls = spawn({"mode": "counts", "url": url})
    print("import times ...", file=sys.stderr)
    imports = {
        "python -c pass": import_time("pass", args.import_runs),
        "import httpx": import_time("import httpx", args.import_runs),
        "import httpx2": import_time("import httpx2", args.import_runs),
        "import holyclient": import_time("import holyclient", args.import_runs),
        "import openai": import_time("import openai", args.import_runs),
        "holyclient: import + Client()": import_time(
            "import holyclient; holyclient.Client(api_key='k', base_url='http://127.0.0.1:1/v1')",
            args.import_runs,
        ),
        "openai: import + OpenAI()": import_time(
            "import openai; openai.OpenAI(api_key='k', base_url='http://127.0.0.1:1/v1')", args.import_runs
        ),
    }
    return {
        "sync": {k: best(v, "cpu_us") for k, v in sync.items()},
        "rss": {k: best(v, "maxrss_kb") for k, v in sync.items()},
        "stream": {k: best(v, "cpu_us") for k, v in stream.items()},
        "async": {c: {k: best(v, "rps", highest=True) for k, v in per.items()} for c, per in async_.items()},
        "imports": imports,
        "calls": calls,
        "python": sys.version.split()[0],
        "versions": versions(),
        "counts": {
            "requests": args.requests,
            "stream_words": args.stream_words,
            "streams": args.streams,
            "async_requests": args.async_requests,
            "rounds": args.rounds,
        },
    }


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in ("holyclient", "httpx", "httpx2", "openai", "pydantic"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "-"
    return found


def report(results: dict[str, Any], levels: list[int], command: str, args: argparse.Namespace) -> int:
    sync, stream, rss, imports = results["sync"], results["stream"], results["rss"], results["imports"]
    floor_kind = min(RAW_KINDS, key=lambda k: sync[k]["cpu_us"])
    stream_floor = min(RAW_KINDS, key=lambda k: stream[k]["cpu_us"])
    rss_floor = min(RAW_KINDS, key=lambda k: rss[k]["maxrss_kb"])
    lines: list[str] = []
    oks: list[bool] = []

    def add(line_ok: tuple[str, bool]) -> None:
        lines.append(line_ok[0])
        oks.append(line_ok[1])

    header = (
        f"{'measure':<28}{'holyclient':>17}{'floor':>17} {'(which)':<12}{'ratio':>8}  {'target':<8}"
        f"{'':<6}{'openai/floor':>12}"
    )
    lines += [header, "-" * len(header)]
    rows = [
        ("sync CPU / request", sync, "cpu_us", floor_kind, "sync", "us", 1.0),
        ("stream CPU / chunk", stream, "cpu_us", stream_floor, "stream", "us", 1.0),
        *(
            (f"async req/s @ {c}", results["async"][str(c)], "rps", "raw-httpx2", "async", "req/s", 1.0)
            for c in levels
        ),
        ("peak RSS", rss, "maxrss_kb", rss_floor, "rss", "MiB", 1 / 1024),
        ("otel no-op vs no API", sync, "cpu_us", "holyclient-no-otel-api", "otel", "us", 1.0),
    ]
    for name, table, key, floor_name, target_key, unit, scale in rows:
        add(
            ratio_row(
                name,
                table["holyclient"][key] * scale,
                table[floor_name][key] * scale,
                floor_name,
                target_key,
                unit,
                table["openai"][key] * scale,
            )
        )
    ms = {name: seconds * 1e3 for name, seconds in imports.items()}
    add(
        ratio_row(
            "import wall time",
            ms["import holyclient"],
            ms["import httpx"],
            "import httpx",
            "import",
            "ms",
            ms["import openai"],
        )
    )
    add(
        ratio_row(
            "import + Client()",
            ms["holyclient: import + Client()"],
            ms["import httpx"],
            "import httpx",
            "construct",
            "ms",
            ms["openai: import + OpenAI()"],
        )
    )
    lines += [
        "",
        "every client (best of rounds):",
        f"{'client':<20}{'sync CPU/req':>14}{'wall/req':>11}{'stream CPU/chunk':>18}{'peak RSS':>11}"
        + "".join(f"{f'req/s @{c}':>12}{'CPU/req':>10}{'server':>8}" for c in levels),
    ]
    for kind in dict.fromkeys(SYNC_KINDS + ASYNC_KINDS):
        if kind in sync:
            row = (
                f"{kind:<20}{sync[kind]['cpu_us']:>11.1f} us{sync[kind]['wall_us']:>8.0f} us"
                f"{stream[kind]['cpu_us']:>15.1f} us{rss[kind]['maxrss_kb'] / 1024:>7.1f} MiB"
            )
        else:  # async only
            row = f"{kind:<20}{'-':>14}{'-':>11}{'-':>18}{'-':>11}"
        for c in levels:
            a = results["async"][str(c)].get(kind)
            if a is None:  # sync only (holyclient-no-otel-api)
                row += f"{'-':>12}{'-':>10}{'-':>8}"
                continue
            busy = f"{a['server_busy'] * 100:>7.0f}%" if a["server_busy"] is not None else f"{'n/a':>8}"
            row += f"{a['rps']:>12.0f}{a['cpu_us']:>7.0f} us{busy}"
        lines.append(row)
    lines += ["", f"import wall time (best of {args.import_runs}):"]
    for name, seconds in imports.items():
        lines.append(f"  {name:<34}{seconds * 1e3:>8.1f} ms")
    import call_counts

    lines += ["", *call_counts.counts_table(results["calls"])]
    oks.append(not call_counts.over_budget(results["calls"], call_counts.load_budget(), measured_only=True))
    counts = results["counts"]
    lines += [
        "",
        f"python {results['python']}; " + ", ".join(f"{k} {v}" for k, v in results["versions"].items()),
        f"{counts['requests']} sync requests, {counts['streams']} x {counts['stream_words']}-chunk streams, "
        f"{counts['async_requests']} async requests per client and round; {counts['rounds']} round(s), "
        "best kept; server: holyclient serve --no-log, zero latency, loopback",
        "'server' = the server process's CPU use during the async phase (100% = one core: the server "
        "would be the bottleneck)",
        f"command: {command}",
        "all targets met" if all(oks) else "SOME TARGETS MISSED",
    ]
    print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**results, "command": command, "table": lines}, f, indent=2)
    return 0 if all(oks) else 1


def otel_row(args: argparse.Namespace, server: Server, command: str) -> int:
    """Row 6 alone: sync CPU per request with the API's no-op providers against no API installed."""
    rounds: dict[str, list[dict[str, Any]]] = {k: [] for k in OTEL_KINDS}
    for n in range(args.rounds):
        print(f"round {n + 1}/{args.rounds} ...", file=sys.stderr)
        for kind in OTEL_KINDS:  # interleaved, so load on the machine hits both alike
            spec = {"mode": "sync", "kind": kind, "url": server.url, "requests": args.requests, "warmup": 200}
            rounds[kind].append(spawn(spec))
    noop, absent = (best(rounds[k], "cpu_us")["cpu_us"] for k in OTEL_KINDS)
    ratio = noop / absent
    ok = ratio <= TARGETS["otel"]
    print(
        f"otel no-op vs no API: {noop:.1f} us vs {absent:.1f} us sync CPU / request = {ratio:.3f}x "
        f"(target <= {TARGETS['otel']}) {'ok' if ok else 'MISS'}\n"
        f"{args.requests} requests per child, {args.rounds} round(s), best kept; command: {command}"
    )
    return 0 if ok else 1


def profile(mode: str, server: Server) -> int:
    """Run holyclient's path under cProfile in this process and print where the time goes."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    if mode == "sync":
        request, _, closer = _sync_calls("holyclient", server.url)
        for _ in range(200):
            request()
        profiler.enable()
        for _ in range(3000):
            request()
        profiler.disable()
        closer.close()
    elif mode == "stream":
        _, stream, closer = _sync_calls("holyclient", server.url)
        stream(_stream_messages(50))
        profiler.enable()
        for _ in range(3):
            stream(_stream_messages(2000))
        profiler.disable()
        closer.close()
    else:
        profiler.enable()
        worker_async("holyclient", server.url, 256, 4000, server.process.pid)
        profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
