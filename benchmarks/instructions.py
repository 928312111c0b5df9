"""Instructions per request, holyclient against its floors: the CPU figures a loaded machine cannot move.

``valgrind --tool=callgrind`` counts the instructions a process executes, whatever else the machine runs.
Each workload runs twice in a fresh interpreter under it, with N and 2N units (requests, stream chunks,
batch requests) after the same warm-up; the difference over N is what one more unit costs, start-up and
warm-up cancelled. holyclient and its floor run the same workload against the same
``holyclient serve --no-log`` process (which valgrind does not watch), so their ratio compares the clients
alone. (Instructions are not time: cache misses and allocation differ. ``bench_client.py`` and
``bench_batch.py`` measure time; this is the figure that does not depend on the machine's load.)

Before counting, the tree is compiled (``compileall`` of holyclient and the site-packages it imports) and
each workload runs once outside valgrind: a module imported for the first time is compiled and its
``.pyc`` written, which costs ~450 M instructions in the first counted run only and would skew the slope.

    sync       one chat completion, ``Client`` against httpx2 posting JSON and ``json.loads``-ing the answer
    stream     one chunk of a streamed completion, against httpx2 iterating lines and ``json.loads``-ing each
    async      one chat completion awaited at a time, ``AsyncClient`` against aiohttp (its wire) posting
               JSON and ``json.loads``-ing the answer
    as_openai  one chat completion through ``Client.as_openai()`` against a plain ``openai.OpenAI`` (what
               a framework built on openai pays for holyclient's budget, retries, usage and spans)
    batch      one request of ``holyclient batch`` (process, validation, output file and all) against
               ``raw_aiohttp_floor.py`` writing each output line, 20,000 embedding requests at concurrency
               256, as ``bench_batch.py fast``: the fixed cost (start-up) counts, weighted at 20,000 requests
    memory     peak RSS after 2,000 sync chat requests, ``Client`` against the raw httpx2 loop
               (``bench_memory.py``'s httpx2-json and holyclient-client rungs; no valgrind)

Each measured row is written to ``recorded_figures.json`` (holyclient's figure, the floor's, the ratio, the
date and commit) and the tables quoting it in README.md, CONTRIBUTING.md and benchmarks/README.md are
rewritten from that file (``recorded_figures.py``); rows not measured keep their last run's figures.

    python benchmarks/instructions.py                  # every workload (~20 min on 2 cores)
    python benchmarks/instructions.py sync stream      # some of them
    python benchmarks/instructions.py --no-record sync # print only
    python benchmarks/instructions.py --json out.json  # also write every raw figure
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
KEY = "sk-bench-instructions-0123456789"
MODEL = "gpt-4o-mini"
MESSAGES = [{"role": "user", "content": "Benchmark the client, please: one short answer."}]
WARMUP = 30
UNITS = {
    "sync": (20, 120),
    "stream": (200, 1200),
    "async": (20, 120),
    "as_openai": (20, 120),
    "batch": (10, 2000),
}
KINDS = {
    "sync": ("holyclient", "raw-httpx2"),
    "stream": ("holyclient", "raw-httpx2"),
    "async": ("holyclient", "raw-aiohttp"),
    "as_openai": ("holyclient", "openai"),
    "batch": ("holyclient", "raw-aiohttp"),
}
BATCH_AT = 20_000  # bench_batch.py fast's size: the fixed cost is spread over this many requests
MEMORY_REQUESTS = 2_000
WORKLOADS = (*UNITS, "memory")


# --- the workloads, run by a child under valgrind ---------------------------------------------------


def _worker(workload: str, kind: str, units: int, url: str) -> None:
    sys.path.insert(0, str(HERE))
    import bench_client

    if workload == "sync":
        request, _, closer = bench_client._sync_calls(kind, url)
        for _ in range(WARMUP + units):
            request()
        closer.close()
    elif workload == "as_openai":
        request, closer = _openai_calls(kind, url)
        for _ in range(WARMUP + units):
            request()
        closer.close()
    elif workload == "stream":
        _, stream, closer = bench_client._sync_calls(kind, url)
        stream(bench_client._stream_messages(50))
        stream(bench_client._stream_messages(units))
        closer.close()
    else:
        import asyncio

        asyncio.run(_async_worker(kind, units, url))


def _openai_calls(kind: str, url: str) -> tuple[Any, Any]:
    """(one chat request, what to close): a plain ``openai.OpenAI``, or holyclient's ``as_openai()``."""
    import openai

    if kind == "openai":
        sdk = openai.OpenAI(api_key=KEY, base_url=url)
        closer: Any = sdk
    else:
        import holyclient

        closer = holyclient.Client(api_key=KEY, base_url=url)
        sdk = closer.as_openai()

    def request() -> Any:
        return sdk.chat.completions.create(model=MODEL, messages=MESSAGES)

    return request, closer


async def _async_worker(kind: str, units: int, url: str) -> None:
    headers = {"Authorization": f"Bearer {KEY}", "Accept": "application/json"}
    body = {"model": MODEL, "messages": MESSAGES}
    if kind == "raw-aiohttp":
        import aiohttp

        session = aiohttp.ClientSession()

        async def call() -> Any:
            async with session.post(url + "/chat/completions", json=body, headers=headers) as response:
                return json.loads(await response.read())

        close = session.close
    elif kind == "raw-httpx2":
        import httpx2

        http = httpx2.AsyncClient(timeout=60)

        async def call() -> Any:
            return json.loads(
                (await http.post(url + "/chat/completions", json=body, headers=headers)).content
            )

        close = http.aclose
    else:
        import holyclient

        client = holyclient.AsyncClient(api_key=KEY, base_url=url)

        async def call() -> Any:
            return await client.chat.completions.create(model=MODEL, messages=MESSAGES)

        close = client.close
    for _ in range(WARMUP + units):
        await call()
    await close()


# --- counting -----------------------------------------------------------------------------------


def instructions(command: list[str], env: dict[str, str] | None = None) -> int:
    """The instructions ``command`` executed, as callgrind counts them."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        capture_output=True,
        text=True,
        env={**(env or os.environ), "PYTHONHASHSEED": "0"},
        check=False,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"{' '.join(command)} failed under valgrind:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def compile_tree() -> None:
    """Write every ``.pyc`` holyclient and its dependencies will import, before anything is counted."""
    spec = importlib.util.find_spec("holyclient")
    assert spec is not None and spec.submodule_search_locations is not None
    trees = [*spec.submodule_search_locations, sysconfig.get_paths()["purelib"], str(HERE)]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *trees], capture_output=True, check=False)


def _client_figure(workload: str, kind: str, url: str) -> dict[str, float]:
    small, large = UNITS[workload]
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", workload, kind, url]
    subprocess.run([*command, "1"], capture_output=True, check=True)  # anything lazily compiled or cached
    a, b = instructions([*command, str(small)]), instructions([*command, str(large)])
    return {"per_unit": (b - a) / (large - small), "fixed": a}


def _batch_figure(kind: str, url: str, inputs: dict[int, Path], out: Path) -> dict[str, float]:
    small, large = UNITS["batch"]

    def run(n: int, count: bool = True) -> int:
        out.unlink(missing_ok=True)  # a fresh run, not a resume; the floor appends its lines too
        if kind == "raw-aiohttp":
            command = [
                sys.executable,
                str(HERE / "raw_aiohttp_floor.py"),
                str(inputs[n]),
                url,
                "256",
                str(out),
            ]
        else:
            command = [sys.executable, "-m", "holyclient", "batch", str(inputs[n]), "-o", str(out)]
            command += ["--base-url", url, "--concurrency", "256"]
        env = {**os.environ, "HOLYSHEEP_API_KEY": KEY}
        if not count:
            subprocess.run(command, capture_output=True, env=env, check=True)
            return 0
        counted = instructions(command, env)
        lines = sum(1 for _ in out.open("rb"))
        if lines != n:
            raise RuntimeError(f"{kind} wrote {lines} output lines for {n} requests")
        return counted

    run(small, count=False)
    a, b = run(small), run(large)
    per_unit = (b - a) / (large - small)
    return {"per_unit": per_unit, "fixed": a, "at_batch_size": (a + per_unit * (BATCH_AT - small)) / BATCH_AT}


def measure(workloads: list[str], url: str) -> dict[str, dict[str, dict[str, float]]]:
    compile_tree()
    figures: dict[str, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        inputs: dict[int, Path] = {}
        if "batch" in workloads:
            from bench_batch import write_embeddings_input

            for n in UNITS["batch"]:
                inputs[n] = Path(tmp) / f"in{n}.jsonl"
                write_embeddings_input(inputs[n], n, 16)
        for workload in workloads:
            print(f"{workload} ...", file=sys.stderr, flush=True)
            if workload == "memory":
                from bench_memory import FLOOR_RUNG, HOLYCLIENT_RUNG, peak_rss_mib

                figures[workload] = {
                    kind: {"peak_rss_mib": min(peak_rss_mib(rung, url, MEMORY_REQUESTS) for _ in range(2))}
                    for kind, rung in (("holyclient", HOLYCLIENT_RUNG), ("raw-httpx2", FLOOR_RUNG))
                }
                continue
            figures[workload] = {
                kind: _batch_figure(kind, url, inputs, Path(tmp) / "out.jsonl")
                if workload == "batch"
                else _client_figure(workload, kind, url)
                for kind in KINDS[workload]
            }
    return figures


def _key(workload: str) -> str:
    return {"batch": "at_batch_size", "memory": "peak_rss_mib"}.get(workload, "per_unit")


def report(figures: dict[str, dict[str, dict[str, float]]]) -> list[str]:
    lines = [f"{'per unit':<18}{'holyclient':>14}{'floor':>14}  {'(which)':<13}{'ratio':>8}"]
    for workload, kinds in figures.items():
        key = _key(workload)
        ours = kinds["holyclient"][key]
        for kind, figure in kinds.items():
            if kind != "holyclient":
                lines.append(
                    f"{workload:<18}{ours:>14,.1f}{figure[key]:>14,.1f}  {kind:<13}{ours / figure[key]:>7.3f}x"
                )
    lines.append(
        f"per unit: instructions, (N={UNITS['sync'][1]} less N={UNITS['sync'][0]}) / difference, after {WARMUP} "
        f"warm-up requests; batch: {BATCH_AT:,} requests (fixed cost included), from runs of {UNITS['batch']}; "
        f"memory: peak RSS in MiB after {MEMORY_REQUESTS:,} requests, the lower of 2 runs"
    )
    return lines


def _commit() -> str:
    """The commit measured, marked ``+changes`` when the measured tree differs from it."""
    git = ["git", "-C", str(HERE.parent)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True)
    dirty = subprocess.run(
        [*git, "status", "--porcelain", "--", "src", "pyproject.toml"],
        capture_output=True,
        text=True,
        check=True,
    )
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def recorded_rows(figures: dict[str, dict[str, dict[str, float]]]) -> dict[str, dict[str, Any]]:
    """The rows ``recorded_figures.json`` keeps for this run: each workload against its floor."""
    from recorded_figures import row

    date = datetime.datetime.now(datetime.UTC).date().isoformat()
    commit = _commit()
    rows = {}
    for workload, kinds in figures.items():
        key = _key(workload)
        floor = next(figure for kind, figure in kinds.items() if kind != "holyclient")
        command = f"python benchmarks/instructions.py {workload}"
        rows[workload] = row(workload, kinds["holyclient"][key], floor[key], date, commit, command)
    return rows


def main(argv: list[str] | None = None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--worker":
        _worker(sys.argv[2], sys.argv[3], int(sys.argv[5]), sys.argv[4])
        return 0
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "workloads", nargs="*", metavar="WORKLOAD", help=f"{', '.join(WORKLOADS)} (default: all)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write every raw figure to PATH as JSON")
    parser.add_argument(
        "--no-record",
        action="store_true",
        help="print only: leave recorded_figures.json and the tables alone",
    )
    args = parser.parse_args(argv)
    unknown = [name for name in args.workloads if name not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload {unknown[0]!r} (choose from {', '.join(WORKLOADS)})")
    workloads = args.workloads or list(WORKLOADS)
    if shutil.which("valgrind") is None and workloads != ["memory"]:
        print("instructions.py needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(HERE))
    from bench_client import Server

    server = Server()
    try:
        figures = measure(workloads, server.url)
    finally:
        server.close()
    print("\n".join(report(figures)))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    if not args.no_record:
        from recorded_figures import RECORDED, ROOT, record, requote

        changed = [str(path.relative_to(ROOT)) for path in requote(record(recorded_rows(figures)))]
        print(f"recorded in {RECORDED.relative_to(ROOT)}; tables rewritten: {', '.join(changed) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
