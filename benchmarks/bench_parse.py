"""What does ``chat.completions.parse()`` cost beside openai's, on the same canned response?

Both SDKs call ``parse(response_format=MathResponse)`` (nested pydantic models) N times against one
``httpx2.MockTransport`` that answers with the same structured JSON completion, so no network and no
server is involved: the figure is the SDK's own CPU per call (request building incl. the strict
schema, sending through the transport, validating the response, parsing the content into the model).
Rounds alternate between the SDKs; the best round of each is kept. holyclient caches the strict
schema per class (openai rebuilds it per call), so a second row empties that cache before each call
to show the cost without it. A third row does the same for ``stream()`` over a canned SSE body
(events iterated, then ``get_final_completion()``).

    .venv/bin/python benchmarks/bench_parse.py            # ~20 s
    .venv/bin/python benchmarks/bench_parse.py --quick    # ~5 s

Exit code 0 when holyclient's ``parse()`` costs at most 1.5x openai's CPU per call, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import httpx2
import openai
from pydantic import BaseModel

import holyclient

TARGET = 1.5
KEY = "sk-bench-0123456789abcdef"
BASE = "https://api.holysheep.ai/v1"
MESSAGES = [{"role": "user", "content": "solve 8x + 31 = 2"}]


class Step(BaseModel):
    explanation: str
    output: str


class MathResponse(BaseModel):
    steps: list[Step]
    final_answer: str
    confidence: float | None = None


CONTENT = json.dumps(
    {
        "steps": [{"explanation": f"step {i}", "output": f"8x = {i}"} for i in range(6)],
        "final_answer": "x = -29/8",
        "confidence": 0.9,
    }
)
COMPLETION = json.dumps(
    {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": CONTENT, "refusal": None},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 60, "total_tokens": 80},
    }
).encode()


def _sse() -> bytes:
    pieces = [CONTENT[i : i + 8] for i in range(0, len(CONTENT), 8)]
    deltas = [{"role": "assistant", "content": ""}] + [{"content": p} for p in pieces]
    events = [
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4o",
            "choices": [{"index": 0, "delta": d, "finish_reason": None}],
        }
        for d in deltas
    ]
    events[-1]["choices"][0]["finish_reason"] = "stop"
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"


SSE = _sse()


def _handler(request: httpx2.Request) -> httpx2.Response:
    if b'"stream":true' in request.content.replace(b" ", b""):
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=SSE)
    return httpx2.Response(200, headers={"content-type": "application/json"}, content=COMPLETION)


def _clients() -> dict[str, Any]:
    def http() -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(_handler))

    return {
        "openai": openai.OpenAI(api_key=KEY, base_url=BASE, http_client=http(), max_retries=0),
        "holyclient": holyclient.Client(api_key=KEY, base_url=BASE, http_client=http(), max_retries=0),
    }


def _parse_once(client: Any) -> None:
    result = client.chat.completions.parse(model="gpt-4o", messages=MESSAGES, response_format=MathResponse)
    assert isinstance(result.choices[0].message.parsed, MathResponse)


def _parse_uncached(client: Any) -> None:
    """``parse()`` with holyclient's per-class schema cache emptied first (openai keeps none)."""
    if isinstance(client, holyclient.Client):
        from holyclient._parsing import _completions

        _completions._FORMAT_CACHE.clear()
    _parse_once(client)


def _stream_once(client: Any) -> None:
    with client.chat.completions.stream(model="gpt-4o", messages=MESSAGES, response_format=MathResponse) as s:
        for _event in s:
            pass
        assert isinstance(s.get_final_completion().choices[0].message.parsed, MathResponse)


def _cpu_per_call(fn: Any, client: Any, n: int) -> float:
    start = time.process_time()
    for _ in range(n):
        fn(client)
    return (time.process_time() - start) / n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls per round")
    args = parser.parse_args(argv)
    n, rounds = (200, 3) if args.quick else (1000, 5)
    clients = _clients()
    rows = {}
    cases = (
        ("parse()", _parse_once, n),
        ("parse() no schema cache", _parse_uncached, n),
        ("stream()", _stream_once, n // 5),
    )
    for label, fn, calls in cases:
        best = {name: float("inf") for name in clients}
        for client in clients.values():  # warm up: imports, schema caches, connection setup
            fn(client)
        for _ in range(rounds):
            for name, client in clients.items():
                best[name] = min(best[name], _cpu_per_call(fn, client, calls))
        rows[label] = best
    print(f"CPU per call, best of {rounds} rounds ({n} parse() / {n // 5} stream() calls per round):")
    print(f"{'':24} {'openai':>12} {'holyclient':>12} {'ratio':>7}")
    for label, best in rows.items():
        ratio = best["holyclient"] / best["openai"]
        print(f"{label:24} {best['openai'] * 1e6:10.0f}us {best['holyclient'] * 1e6:10.0f}us {ratio:6.2f}x")
    ratio = rows["parse()"]["holyclient"] / rows["parse()"]["openai"]
    ok = ratio <= TARGET
    print(f"parse() target <= {TARGET}x openai: {'met' if ok else 'MISSED'} ({ratio:.2f}x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
