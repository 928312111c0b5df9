"""Where a chat client's peak memory goes: a ladder from a raw httpx2 loop up to ``holyclient.Client``.

Each rung runs N sync chat completions against ``holyclient serve --no-log`` in a fresh child process and
reports its peak RSS (``ru_maxrss``). Each rung of the ladder adds one thing to the one above it, so the
differences say what costs the memory; the last rung is a reference beside the ladder:

    httpx2-json              httpx2 posting JSON and ``json.loads``-ing the answer (the floor, as
                             bench_client.py's and instructions.py's memory row)
    httpx2-small-pydantic    the same, parsing each answer into a two-class pydantic model (the least a
                             typed client can do)
    httpx2-holyclient-types  the same, parsing into ``holyclient.types.chat.ChatCompletion`` (holyclient's
                             copy of openai's classes, field for field: what a drop-in must return;
                             openai is not imported)
    holyclient-client        ``holyclient.Client(...).chat.completions.create``
    httpx2-openai-types      reference: the httpx2 loop parsing into openai's own ``ChatCompletion``, openai
                             imported (what the same answer costs with the official package's types)

Memory does not depend on the machine's load, so one run is enough.

    python benchmarks/bench_memory.py                # 2,000 requests per rung
    python benchmarks/bench_memory.py --requests 500
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
KEY = "sk-bench-memory-0123456789abcdef"
MODEL = "gpt-4o-mini"
MESSAGES = [{"role": "user", "content": "Benchmark the client, please: one short answer."}]
FLOOR_RUNG = "httpx2-json"
HOLYCLIENT_RUNG = "holyclient-client"
LADDER = (FLOOR_RUNG, "httpx2-small-pydantic", "httpx2-holyclient-types", HOLYCLIENT_RUNG)
REFERENCE = ("httpx2-openai-types",)
RUNGS = (*LADDER, *REFERENCE)


def _caller(rung: str, url: str) -> Callable[[], Any]:
    """One chat completion as ``rung`` makes it (imports happen here, inside the measured child)."""
    if rung == HOLYCLIENT_RUNG:
        import holyclient

        client = holyclient.Client(api_key=KEY, base_url=url)
        return lambda: client.chat.completions.create(model=MODEL, messages=MESSAGES)  # type: ignore[arg-type]
    import httpx2

    http = httpx2.Client(timeout=60)
    headers = {"Authorization": f"Bearer {KEY}"}
    body = {"model": MODEL, "messages": MESSAGES}

    def post() -> bytes:
        return http.post(url + "/chat/completions", json=body, headers=headers).content

    if rung == FLOOR_RUNG:
        return lambda: json.loads(post())
    if rung == "httpx2-holyclient-types":
        from holyclient.types.chat import ChatCompletion

        return lambda: ChatCompletion.model_validate_json(post())
    if rung == "httpx2-openai-types":
        from openai.types.chat import ChatCompletion as OpenAIChatCompletion

        return lambda: OpenAIChatCompletion.model_validate_json(post())
    import pydantic

    class Choice(pydantic.BaseModel):
        index: int
        message: dict[str, Any]
        finish_reason: str | None = None

    class Completion(pydantic.BaseModel):
        id: str
        object: str
        created: int
        model: str
        choices: list[Choice]
        usage: dict[str, Any] | None = None

    return lambda: Completion.model_validate_json(post())


def _child(rung: str, url: str, requests: int) -> None:
    call = _caller(rung, url)
    for _ in range(requests):
        call()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # KiB on Linux


def peak_rss_mib(rung: str, url: str, requests: int) -> float:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", rung, url, str(requests)],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout.split()[-1]) / 1024


def main(argv: list[str] | None = None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return 0
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=2000, help="chat completions per rung")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    from bench_client import Server

    server = Server()
    try:
        figures = {rung: peak_rss_mib(rung, server.url, args.requests) for rung in RUNGS}
    finally:
        server.close()
    floor = figures[FLOOR_RUNG]
    below = 0.0
    print(
        f"{'peak RSS after ' + format(args.requests, ',') + ' requests':<34}{'MiB':>8}{'vs floor':>9}{'added':>9}"
    )
    for rung, mib in figures.items():
        added = f"{mib - below:+8.1f}" if below and rung in LADDER else ""
        print(f"{rung:<34}{mib:>8.1f}{mib / floor:>8.2f}x {added}")
        below = mib
    print("command: python benchmarks/bench_memory.py " + " ".join(sys.argv[1:] if argv is None else argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
