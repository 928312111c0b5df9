"""Python function calls per request: the deterministic cost guard of the request path.

CPU time on a shared 2-core machine is noise; the number of Python function calls the client makes
for one request is not. Every feature that adds a step, an allocation helper or a level of ``await``
to each request adds calls, so the count shows its cost on any machine, in CI, without a clock.

How a call is counted: ``sys.setprofile`` reports every Python function call, and every resumption of
a generator or coroutine (so the depth of an ``await`` chain is part of the figure), in the thread that
set it only. C functions (pydantic-core, ``json``'s scanner, socket I/O) are not counted. Each count
is broken down by package (``holyclient._send``, ``httpx2``, ``asyncio`` ...) to show where calls went.

What keeps the counts deterministic:

- the server (``holyclient.testing.LocalServer``, or ``holyclient serve`` when ``--base-url`` is given)
  runs in another thread or process: the hook never sees its calls;
- warm-up first: the first requests import lazy modules, open the connection and fill caches;
- the garbage collector is off while counting (a collection would run finalizers at random points);
- the event loop's own turn (``_run_once``, the selector's poll, the loop clock: ``LOOP_TURN``) is not
  counted: how many turns a wait takes depends on when the answer arrives; what each turn runs is;
- each figure is the fewest calls of ``SAMPLES`` tries: an answer that arrives in two reads instead of
  one only ever adds calls;
- per-chunk and per-batch-request figures are differences (a run of 2N less a run of N, over N), so
  what a stream or a batch pays once (opening, closing, the runner's set-up) cancels out.

The figures (``holyclient`` ones are gated by ``tests/test_call_budget.py`` against
``benchmarks/call_budget.json``; ``openai`` ones are a reference, not gated):

    sync_chat        one ``Client().chat.completions.create(...)``
    async_chat       one ``AsyncClient().chat.completions.create(...)`` (default aiohttp transport)
    stream_chunk     one chunk of a sync streamed chat completion
    batch_request    one embeddings request through ``BatchRunner`` (its fast path on the client's
                     aiohttp session), concurrency 1
    openai_sync_chat, openai_async_chat, openai_stream_chunk   the same through ``openai``

    python benchmarks/call_counts.py             # the table, checked against the budget (exit 1 if over)
    python benchmarks/call_counts.py --json      # one JSON document: every figure and its breakdown
    python benchmarks/call_counts.py --runs 5    # 5 runs in this process: the spread of every figure

``bench_client.py`` and ``bench_batch.py`` print these same counts through :func:`counts_table`.
"""

from __future__ import annotations

import argparse
import asyncio
import asyncio.base_events
import asyncio.events
import asyncio.selector_events
import gc
import json
import selectors
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

BUDGET_PATH = Path(__file__).with_name("call_budget.json")
KEY = "sk-call-count-0123456789abcdef"
MODEL = "gpt-4o-mini"
MESSAGES = [{"role": "user", "content": "Count the calls, please: one short answer."}]
SAMPLES = 5  # tries per figure; the fewest calls is kept
WARMUP = 3  # untimed requests before counting
STREAM_CHUNKS = 100  # N: streams of N and 2N chunks
BATCH_REQUESTS = 20  # N: batch runs of N and 2N requests

GATED = ("sync_chat", "async_chat", "stream_chunk", "batch_request")
REFERENCE = ("openai_sync_chat", "openai_async_chat", "openai_stream_chunk")
FIGURES = GATED + REFERENCE
CLIENT_FIGURES = ("sync_chat", "async_chat", "stream_chunk", *REFERENCE)  # bench_client.py's share

Figure = dict[str, Any]  # {"calls": number, "by_package": {package: calls}, "samples": [totals]}


# --- counting ------------------------------------------------------------------------------------


def package_of(module: str) -> str:
    """The breakdown key of a module: ``holyclient``'s subpackages apart, else the top-level package."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "holyclient" and len(parts) > 1 else parts[0]


#: The event loop's own turn: how many turns it takes to wait for an answer depends on when the answer
#: arrives (a loaded machine adds turns), not on the client. What a turn runs -- every callback, every
#: resumed coroutine -- is still counted.
LOOP_TURN = frozenset(
    {
        getattr(asyncio.base_events.BaseEventLoop, "_run_once").__code__,  # noqa: B009 (private: for mypy)
        asyncio.base_events.BaseEventLoop.time.__code__,
        getattr(asyncio.selector_events.BaseSelectorEventLoop, "_process_events").__code__,  # noqa: B009
        selectors.DefaultSelector.select.__code__,
        asyncio.events.TimerHandle.__lt__.__code__,
    }
)


@contextmanager
def counting() -> Iterator[Counter[str]]:
    """Count the Python calls this thread makes inside the block, by package (see the module docstring).

    Other threads (a server, a pool's workers) are not counted: ``sys.setprofile`` is per thread.
    """
    calls: Counter[str] = Counter()
    packages: dict[str, str] = {}  # module name -> breakdown key, so the hook stays cheap

    own = globals()  # this module's own frames (the counted lambdas, the block's exit) are not counted

    def hook(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_globals is not own and frame.f_code not in LOOP_TURN:
            module = frame.f_globals.get("__name__") or "?"
            key = packages.get(module)
            if key is None:
                key = packages[module] = package_of(module)
            calls[key] += 1

    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        yield calls
    finally:
        sys.setprofile(previous)
        if was_enabled:
            gc.enable()


def count_calls(call: Callable[[], object]) -> Counter[str]:
    """The calls one ``call()`` makes in this thread, by package."""
    with counting() as calls:
        call()
    return calls


async def acount_calls(call: Callable[[], Awaitable[object]]) -> Counter[str]:
    """The calls one ``await call()`` makes in this thread (event loop included), by package."""
    with counting() as calls:
        await call()
    return calls


def _figure(counts: list[Counter[str]]) -> Figure:
    """The fewest-calls sample of ``counts`` as a figure, with every sample's total."""
    totals = [sum(c.values()) for c in counts]
    fewest = counts[totals.index(min(totals))]
    return {"calls": min(totals), "by_package": dict(fewest.most_common()), "samples": totals}


def _per_unit(small: Figure, large: Figure, units: int) -> Figure:
    """(large - small) / units: what one more chunk or request costs, fixed costs cancelled."""
    keys = set(small["by_package"]) | set(large["by_package"])
    by_package = {
        k: round((large["by_package"].get(k, 0) - small["by_package"].get(k, 0)) / units, 1) for k in keys
    }
    return {
        "calls": round((large["calls"] - small["calls"]) / units, 1),
        "by_package": dict(sorted(((k, v) for k, v in by_package.items() if v), key=lambda kv: -kv[1])),
        "samples": [
            round((b - a) / units, 1) for a, b in zip(small["samples"], large["samples"], strict=True)
        ],
    }


def _sync_figure(call: Callable[[], object], samples: int) -> Figure:
    for _ in range(WARMUP):
        call()
    return _figure([count_calls(call) for _ in range(samples)])


async def _async_figure(call: Callable[[], Awaitable[object]], samples: int) -> Figure:
    for _ in range(WARMUP):
        await call()
    return _figure([await acount_calls(call) for _ in range(samples)])


# --- the workloads -------------------------------------------------------------------------------


def _stream_messages(words: int) -> list[dict[str, str]]:
    """The local server echoes the user text back, one streamed chunk per word."""
    return [{"role": "user", "content": " ".join(f"w{i % 100}" for i in range(words))}]


def _sync_client(kind: str, base_url: str) -> Any:
    if kind == "openai":
        import openai

        return openai.OpenAI(api_key=KEY, base_url=base_url)
    import holyclient

    return holyclient.Client(api_key=KEY, base_url=base_url)


def _async_client(kind: str, base_url: str) -> Any:
    if kind == "openai":
        import openai

        return openai.AsyncOpenAI(api_key=KEY, base_url=base_url)
    import holyclient

    return holyclient.AsyncClient(api_key=KEY, base_url=base_url)


def sync_chat(kind: str, base_url: str, samples: int) -> Figure:
    client = _sync_client(kind, base_url)
    try:
        return _sync_figure(lambda: client.chat.completions.create(model=MODEL, messages=MESSAGES), samples)
    finally:
        client.close()


def stream_chunk(kind: str, base_url: str, samples: int) -> Figure:
    client = _sync_client(kind, base_url)

    def stream(chunks: int) -> Callable[[], None]:
        messages = _stream_messages(chunks)

        def run() -> None:
            with client.chat.completions.create(model=MODEL, messages=messages, stream=True) as events:
                for _ in events:
                    pass

        return run

    try:
        small = _sync_figure(stream(STREAM_CHUNKS), samples)
        large = _sync_figure(stream(2 * STREAM_CHUNKS), samples)
    finally:
        client.close()
    return _per_unit(small, large, STREAM_CHUNKS)


def async_chat(kind: str, base_url: str, samples: int) -> Figure:
    async def main() -> Figure:
        client = _async_client(kind, base_url)
        try:
            return await _async_figure(
                lambda: client.chat.completions.create(model=MODEL, messages=MESSAGES), samples
            )
        finally:
            await client.close()

    return asyncio.run(main())


def batch_request(kind: str, base_url: str, samples: int) -> Figure:
    """Per request of a ``BatchRunner`` run at concurrency 1 (one request at a time: the order in which
    answers arrive cannot change the count), embeddings as in ``bench_batch.py fast``."""
    from holyclient.batch import BatchRequest, BatchRunner

    def requests(n: int) -> list[BatchRequest]:
        body = {"model": "text-embedding-3-small", "dimensions": 16}
        return [BatchRequest(f"r{i}", {**body, "input": f"prompt r{i}"}, "/v1/embeddings") for i in range(n)]

    async def main() -> Figure:
        client = _async_client(kind, base_url)

        def run(n: int) -> Callable[[], Awaitable[None]]:
            batch = requests(n)

            async def go() -> None:
                results: list[Any] = []
                await BatchRunner(client, concurrency=1).run(batch, results.append)
                if len(results) != n or not all(r.ok for r in results):
                    raise RuntimeError(f"the counted batch run failed: {results[:3]}")

            return go

        try:
            small = await _async_figure(run(BATCH_REQUESTS), samples)
            large = await _async_figure(run(2 * BATCH_REQUESTS), samples)
        finally:
            await client.close()
        return _per_unit(small, large, BATCH_REQUESTS)

    return asyncio.run(main())


WORKLOADS: dict[str, Callable[[str, str, int], Figure]] = {
    "sync_chat": sync_chat,
    "async_chat": async_chat,
    "stream_chunk": stream_chunk,
    "batch_request": batch_request,
}


def measure(base_url: str, figures: Iterable[str] = FIGURES, samples: int = SAMPLES) -> dict[str, Figure]:
    """Count every figure in ``figures`` against the server at ``base_url`` (in another thread or process)."""
    out = {}
    for name in figures:
        kind, workload = ("openai", name[7:]) if name.startswith("openai_") else ("holyclient", name)
        out[name] = WORKLOADS[workload](kind, base_url, samples)
    return out


def measure_locally(figures: Iterable[str] = FIGURES, samples: int = SAMPLES) -> dict[str, Figure]:
    """:func:`measure` against a ``LocalServer`` in a background thread of this process."""
    from holyclient.testing import LocalServer

    with LocalServer(log_requests=False) as server:
        return measure(server.base_url, figures, samples)


# --- the budget ----------------------------------------------------------------------------------


def load_budget(path: Path = BUDGET_PATH) -> dict[str, Any]:
    budget: dict[str, Any] = json.loads(path.read_text())
    return budget


def over_budget(
    figures: Mapping[str, Figure], budget: Mapping[str, Any], *, measured_only: bool = False
) -> list[str]:
    """One line per gated figure whose count is more than ``tolerance`` over its budget, saying which
    packages grew; empty when every figure is within budget. A figure not measured is a problem too,
    unless ``measured_only`` (a benchmark that counts only its own share)."""
    tolerance = float(budget["tolerance"])
    problems = []
    for name, entry in budget["figures"].items():
        if name not in figures:
            if not measured_only:
                problems.append(f"{name}: not measured")
            continue
        calls, allowed = figures[name]["calls"], entry["calls"]
        if calls > allowed * (1 + tolerance):
            grew = _growth(entry.get("by_package", {}), figures[name]["by_package"])
            problems.append(
                f"{name}: {calls} calls, budget {allowed} (+{calls / allowed - 1:.1%}, more than "
                f"{tolerance:.0%} over); grew: {grew}"
            )
    return problems


def _growth(before: Mapping[str, float], now: Mapping[str, float]) -> str:
    changes = sorted(
        ((k, now.get(k, 0) - before.get(k, 0)) for k in set(before) | set(now)), key=lambda kv: -kv[1]
    )
    return ", ".join(f"{k} {d:+g} ({before.get(k, 0):g} -> {now.get(k, 0):g})" for k, d in changes if d > 0)


def versions() -> str:
    """Python and the packages on the request path: the counts belong to these versions."""
    from importlib.metadata import PackageNotFoundError, version

    found = [f"python {sys.version.split()[0]}"]
    for name in ("httpx2", "aiohttp", "pydantic", "anyio", "openai", "httpx"):
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} -")
    return ", ".join(found)


def counts_table(figures: Mapping[str, Figure], budget: Mapping[str, Any] | None = None) -> list[str]:
    """Lines for a benchmark's output: each holyclient figure, its budget, and openai's figure."""
    budget = load_budget() if budget is None else budget
    limit = 1 + float(budget["tolerance"])
    lines = [
        f"{'Python calls per':<18}{'holyclient':>11}{'budget':>9}{'ratio':>8}  {'':<6}{'openai':>9}"
        "  (sys.setprofile, fewest of samples)"
    ]
    for name in GATED:
        if name not in figures:
            continue
        calls = figures[name]["calls"]
        allowed = budget["figures"][name]["calls"]
        reference = figures.get(f"openai_{name}", {}).get("calls")
        status = "ok" if calls <= allowed * limit else "OVER"
        lines.append(
            f"{name:<18}{calls:>11g}{allowed:>9g}{calls / allowed:>7.2f}x  {status:<6}"
            f"{'-' if reference is None else format(reference, 'g'):>9}"
        )
    lines.append(f"budget: {BUDGET_PATH.name}, fails above {limit:.2f}x; measured with {versions()}")
    return lines


# --- command line --------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    parser.add_argument("--base-url", help="count against this server instead of a LocalServer thread")
    parser.add_argument("--figures", nargs="+", choices=FIGURES, default=list(FIGURES))
    parser.add_argument("--samples", type=int, default=SAMPLES, help="tries per figure; the fewest is kept")
    parser.add_argument(
        "--runs", type=int, default=1, help="measure this many times; show each figure's spread"
    )
    args = parser.parse_args(argv)

    runs = []
    for _ in range(args.runs):
        if args.base_url:
            runs.append(measure(args.base_url, args.figures, args.samples))
        else:
            runs.append(measure_locally(args.figures, args.samples))
    figures = runs[0]
    problems = over_budget(figures, load_budget()) if set(GATED) <= set(figures) else []
    if args.json:
        print(
            json.dumps(
                {
                    "figures": figures,
                    "runs": [{k: v["calls"] for k, v in r.items()} for r in runs],
                    "versions": versions(),
                    "over_budget": problems,
                }
            )
        )
        return 1 if problems else 0
    print("\n".join(counts_table(figures)))
    if args.runs > 1:
        for name in args.figures:
            values = [r[name]["calls"] for r in runs]
            print(
                f"  {name:<20} {args.runs} runs: {', '.join(f'{v:g}' for v in values)}; "
                f"spread {max(values) - min(values):g}"
            )
    for problem in problems:
        print(f"OVER BUDGET {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
