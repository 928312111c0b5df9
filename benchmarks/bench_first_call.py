"""The first call of a fresh process, with a budget and without (issue 41, item 11).

A budget holds each request's cost before sending it, which counts the prompt, which needs the
tokenizer: building it (reading the bundled ranks, tiktoken's own construction) took 0.3-0.65 s, paid by
the first budgeted call. Target: the first budgeted call costs at most 50 ms more than an unbudgeted
one.

Each sample is a fresh interpreter (a child process) that imports holyclient, makes a ``Client`` on the
local server (which runs in this, the parent, process), then times its first and second chat calls. The
budgeted and unbudgeted children alternate, so machine load touches both alike; the figures are the
medians. The first call includes what every first call pays (the HTTP client, its imports); what the
budget adds is the difference between the two medians.

Run:  .venv/bin/python benchmarks/bench_first_call.py [--runs 15] [--model gpt-4.1] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from holyclient.testing import LocalServer

CHILD = r"""
import json, sys, time
started = time.perf_counter()
import holyclient
imported = time.perf_counter()
budget = None if sys.argv[2] == "none" else float(sys.argv[2])
client = holyclient.Client(base_url=sys.argv[1], api_key="sk-bench", budget_usd=budget)
made = time.perf_counter()
messages = [{"role": "user", "content": "Say hello to the world, in one short sentence."}]
client.chat.completions.create(model=sys.argv[3], messages=messages, max_tokens=20)
first = time.perf_counter()
client.chat.completions.create(model=sys.argv[3], messages=messages, max_tokens=20)
second = time.perf_counter()
client.close()
print(json.dumps({"import": imported - started, "client": made - imported, "first": first - made,
                  "second": second - first}))
"""


def sample(base_url: str, budget: str, model: str) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOLYSHEEP_", "OPENAI_"))}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, base_url, budget, model],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    figures: dict[str, float] = json.loads(out.stdout)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="samples of each kind (default 15)")
    parser.add_argument("--model", default="gpt-4.1")
    parser.add_argument("--budget", default="5.0", help="the budgeted children's budget_usd")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    samples: dict[str, list[dict[str, float]]] = {"none": [], "budget": []}
    started = time.perf_counter()
    with LocalServer(log_requests=False) as server:
        for _ in range(args.runs):
            samples["none"].append(sample(server.base_url, "none", args.model))
            samples["budget"].append(sample(server.base_url, args.budget, args.model))
    medians = {
        kind: {
            key: statistics.median(s[key] for s in runs) for key in ("import", "client", "first", "second")
        }
        for kind, runs in samples.items()
    }
    added = {key: medians["budget"][key] - medians["none"][key] for key in ("client", "first", "second")}
    report = {
        "model": args.model,
        "runs": args.runs,
        "median_seconds": medians,
        "budget_adds_seconds": added,
        "target": "first call: budget adds <= 0.050 s",
        "met": added["first"] <= 0.050,
        "elapsed_seconds": time.perf_counter() - started,
        "load_average": os.getloadavg(),
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{args.runs} fresh processes of each kind, {args.model}, medians (load {os.getloadavg()[0]:.1f}):"
        )
        print(f"{'':16}{'no budget':>12}{'budget':>12}{'added':>12}")
        for key in ("client", "first", "second"):
            print(
                f"{key + ' call' if key != 'client' else 'Client()':16}"
                f"{medians['none'][key] * 1000:>10.1f}ms{medians['budget'][key] * 1000:>10.1f}ms"
                f"{added[key] * 1000:>+10.1f}ms"
            )
        print(f"target: the budget adds <= 50 ms to the first call: {'met' if report['met'] else 'NOT met'}")
    return 0 if report["met"] else 1


if __name__ == "__main__":
    sys.exit(main())
