"""Token counting speed: holyclient.tokens against tiktoken called directly.

Two figures, each measured side by side in the same process:

1. Throughput on a large generated JSONL of chat requests: ``count_request(body)`` for every body,
   against a loop calling tiktoken's ``encode_ordinary`` on the same message texts (the floor: no
   per-message rules at all). Target: >= 0.8x the direct loop.
2. Per-call overhead on a short conversation: ``count_messages`` against the cookbook's
   ``num_tokens_from_messages`` loop (encoding looked up once, outside the timing). Target: <= 1.5x.

Run:  .venv/bin/python benchmarks/bench_tokens.py [--requests 5000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from holyclient.tokens import count_messages, count_request, encoding_for_model

MODEL = "gpt-4.1"
WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "lazy",
    "dog",
    "token",
    "price",
    "budget",
    "request",
    "model",
    "answer",
    "question",
    "context",
    "window",
    "cache",
    "latency",
    "throughput",
    "relay",
    "你好",
    "世界",
    "数据",
    "模型",
    "naïve",
    "café",
    "résumé",
    "123",
    "4567",
    "2026-12-02",
    "def",
    "return",
    "import",
    "class",
    "{}",
    "[]",
    "()",
    "=>",
    ";",
    ":",
    ",",
    ".",
    "!",
    "?",
]


def generate(path: Path, requests: int, seed: int = 1) -> None:
    rnd = random.Random(seed)

    def text(n: int) -> str:
        return " ".join(rnd.choice(WORDS) for _ in range(n))

    with path.open("w", encoding="utf-8") as f:
        for i in range(requests):
            messages: list[dict[str, Any]] = [{"role": "system", "content": text(rnd.randint(10, 40))}]
            for _ in range(rnd.randint(1, 4)):
                messages.append({"role": "user", "content": text(rnd.randint(5, 300))})
                messages.append({"role": "assistant", "content": text(rnd.randint(5, 200))})
            messages.append({"role": "user", "name": f"user{i % 7}", "content": text(rnd.randint(5, 120))})
            f.write(json.dumps({"model": MODEL, "messages": messages, "max_tokens": 256}) + "\n")


def best_of(repeat: int, *fns: Callable[[], Any]) -> list[float]:
    """Best time of each function; runs are interleaved so that machine noise hits all of them alike."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    enc = encoding_for_model(MODEL)  # load outside every timing
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "requests.jsonl"
        generate(path, args.requests)
        size_mb = path.stat().st_size / 1e6
        bodies = [json.loads(line) for line in path.open(encoding="utf-8")]
    texts = [m["content"] for b in bodies for m in b["messages"]]
    total_tokens = sum(len(enc.encode_ordinary(t)) for t in texts)

    def direct() -> int:
        n = 0
        for t in texts:
            n += len(enc.encode_ordinary(t))
        return n

    def ours() -> int:
        n = 0
        for b in bodies:
            n += count_request(b).tokens
        return n

    direct_s, ours_s = best_of(args.repeat, direct, ours)
    print(
        f"workload: {len(bodies):,} requests, {len(texts):,} messages, {total_tokens:,} tokens, {size_mb:.1f} MB JSONL"
    )
    print(
        f"  tiktoken encode_ordinary loop : {direct_s:.3f} s  ({total_tokens / direct_s / 1e6:.2f} M tokens/s)"
    )
    print(f"  holyclient count_request      : {ours_s:.3f} s  ({total_tokens / ours_s / 1e6:.2f} M tokens/s)")
    print(f"  throughput ratio (target >= 0.8x): {direct_s / ours_s:.2f}x")

    conversation = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "name": "alice", "content": "What is the capital of France?"},
        {"role": "assistant", "content": "Paris."},
        {"role": "user", "content": "And of Italy?"},
    ]

    def cookbook() -> int:  # num_tokens_from_messages from the OpenAI cookbook, encoding fetched once
        num_tokens = 0
        for message in conversation:
            num_tokens += 3
            for key, value in message.items():
                num_tokens += len(enc.encode(value))
                if key == "name":
                    num_tokens += 1
        num_tokens += 3
        return num_tokens

    def cookbook_ordinary() -> int:  # the same loop with the cheaper encode_ordinary: the strictest floor
        num_tokens = 0
        for message in conversation:
            num_tokens += 3
            for key, value in message.items():
                num_tokens += len(enc.encode_ordinary(value))
                if key == "name":
                    num_tokens += 1
        num_tokens += 3
        return num_tokens

    assert cookbook() == cookbook_ordinary() == count_messages(conversation, MODEL).tokens
    calls = 20_000

    def loop(fn: Callable[[], Any]) -> Callable[[], None]:
        def run() -> None:
            for _ in range(calls):
                fn()

        return run

    raw, floor, mine = (
        t / calls
        for t in best_of(
            args.repeat,
            loop(cookbook),
            loop(cookbook_ordinary),
            loop(lambda: count_messages(conversation, MODEL)),
        )
    )
    print(f"short conversation ({len(conversation)} messages), {calls:,} calls:")
    print(f"  cookbook loop (encode)           : {raw * 1e6:.1f} µs/call")
    print(f"  cookbook loop (encode_ordinary)  : {floor * 1e6:.1f} µs/call")
    print(f"  count_messages                   : {mine * 1e6:.1f} µs/call")
    print(
        f"  overhead ratio vs cookbook (target <= 1.5x): {mine / raw:.2f}x; vs encode_ordinary loop: {mine / floor:.2f}x"
    )


if __name__ == "__main__":
    main()
