"""How much of a budget an app that never sets ``max_tokens`` can use, by budget policy.

The app: chat calls with a ~400-token prompt and no ``max_tokens``, answered with a seeded spread of
lengths (log-normal, median 300 tokens, 1 in 20 above ~1,000, capped at 4,000), billed as the server
reports. Each run calls until the budget first refuses, and prints the share of the budget spent by
then, the calls served, and what answers cost beyond their holds (``overrun_usd``).

``worst_case`` is how every client held before the policy existed (the model's whole output limit);
``expected`` is the default now. No network: the answers come from an in-process mock transport.

    python benchmarks/bench_budget.py [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import math
import random
from typing import Any

import httpx2

from holyclient import BudgetExceededError, Client
from holyclient.tokens import count_request

PROMPT = [
    {"role": "system", "content": "You are a helpful assistant for a shop. " * 8},
    {"role": "user", "content": "Summarise this order history and suggest what to offer next. " * 20},
]
CASES = [("gpt-4.1", 0.10), ("gpt-4.1", 1.0), ("claude-sonnet-4.5", 1.0)]


def _answers(seed: int) -> httpx2.MockTransport:
    rng = random.Random(seed)

    def handler(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        prompt = count_request(body, endpoint="/chat/completions").tokens
        completion = min(4000, max(1, round(math.exp(rng.gauss(math.log(300), 0.75)))))
        answer = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }
        return httpx2.Response(200, json=answer)

    return httpx2.MockTransport(handler)


def run(model: str, budget: float, policy: Any, seed: int) -> dict[str, Any]:
    http = httpx2.Client(transport=_answers(seed))
    with Client(api_key="sk-bench", http_client=http, budget_usd=budget, budget_policy=policy) as client:
        calls = 0
        try:
            while True:
                client.chat.completions.create(model=model, messages=PROMPT)  # type: ignore[arg-type]
                calls += 1
        except BudgetExceededError:
            pass
        snapshot = client.usage.snapshot()
    return {
        "model": model,
        "budget_usd": budget,
        "policy": policy,
        "calls": calls,
        "spent_usd": round(snapshot.total_cost_usd, 6),
        "used": round(snapshot.total_cost_usd / budget, 4),
        "overrun_usd": round(snapshot.overrun_usd, 6),
        "overrun_requests": snapshot.overrun_requests,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    args = parser.parse_args()
    rows = [run(m, b, p, args.seed) for m, b in CASES for p in ("worst_case", "expected")]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        f"{'model':<18} {'budget':>7} {'policy':<11} {'calls':>6} {'used':>7} {'overrun $':>10} {'over':>5}"
    )
    for r in rows:
        print(
            f"{r['model']:<18} {r['budget_usd']:>7.2f} {r['policy']:<11} {r['calls']:>6} "
            f"{r['used']:>7.1%} {r['overrun_usd']:>10.6f} {r['overrun_requests']:>5}"
        )


if __name__ == "__main__":
    main()
