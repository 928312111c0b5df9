"""Benchmark: `holyclient migrate --check` against a plain walk-read-scan of the same tree.

Generates 20,000 files (1% mention OpenAI) in a temporary directory, then times, best of N runs
with a warm page cache, both as fresh processes so interpreter start-up counts on both sides:

* baseline: ``os.walk`` + ``open().read()`` + ``b"openai" in data`` over every file;
* ``holyclient migrate --check DIR`` (exit status 1 expected: the tree has things to change).

Usage: python benchmarks/bench_migrate.py [--files 20000] [--ratio 0.01] [--runs 3] [--keep]
Target from issue 4: ratio <= 3.0.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

BASELINE = """
import os, sys
hits = 0
for d, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        with open(os.path.join(d, name), "rb") as f:
            if b"openai" in f.read():
                hits += 1
print(hits)
"""

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "request",
    "response",
    "token",
    "budget",
    "retry",
    "cache",
    "model",
    "client",
    "server",
    "value",
    "config",
    "deploy",
    "build",
    "test",
    "docs",
    "index",
    "queue",
    "worker",
]

OPENAI_FILES = {
    ".py": 'import os\nfrom openai import OpenAI\n\nclient = OpenAI(api_key=os.environ["OPENAI_API_KEY"])\n'
    'URL = "https://api.openai.com/v1/chat/completions"\n',
    ".env": "OPENAI_API_KEY=\nOPENAI_BASE_URL=https://api.openai.com/v1\n",
    ".md": "Call `curl https://api.openai.com/v1/models` with your key.\n",
    ".js": 'import OpenAI from "openai";\nconst client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY });\n',
    ".yaml": "services:\n  app:\n    environment:\n      - OPENAI_API_KEY=${OPENAI_API_KEY}\n",
}
PLAIN_SUFFIXES = (".py", ".md", ".txt", ".json", ".yaml", ".js", ".toml", ".cfg")


def generate(root: str, n_files: int, ratio: float, seed: int = 4) -> int:
    rng = random.Random(seed)
    mentions = set(rng.sample(range(n_files), int(n_files * ratio)))
    per_dir = 100
    for i in range(n_files):
        d = os.path.join(root, f"pkg{i // (per_dir * 10)}", f"mod{(i // per_dir) % 10}")
        if i % per_dir == 0:
            os.makedirs(d, exist_ok=True)
        body_lines = [" ".join(rng.choices(WORDS, k=12)) for _ in range(rng.randint(10, 120))]
        if i in mentions:
            suffix = rng.choice(sorted(OPENAI_FILES))
            content = OPENAI_FILES[suffix] + "# " + "\n# ".join(body_lines) + "\n"
        else:
            suffix = rng.choice(PLAIN_SUFFIXES)
            content = "# " + "\n# ".join(body_lines) + "\n"
        with open(os.path.join(d, f"f{i}{suffix}"), "w", encoding="utf-8") as f:
            f.write(content)
    return len(mentions)


def best(cmd: list[str], runs: int) -> tuple[float, int]:
    times, rc = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False).returncode
        times.append(time.perf_counter() - t0)
    return min(times), rc


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--ratio", type=float, default=0.01)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the generated tree")
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="holyclient-bench-")
    try:
        t0 = time.perf_counter()
        n = generate(root, args.files, args.ratio)
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
        print(
            f"tree: {args.files} files, {n} mention OpenAI, {size / 1e6:.1f} MB, "
            f"generated in {time.perf_counter() - t0:.1f} s ({root})"
        )
        best([sys.executable, "-c", BASELINE, root], 1)  # warm the page cache
        base, _ = best([sys.executable, "-c", BASELINE, root], args.runs)
        cli = [sys.executable, "-m", "holyclient", "migrate", "--check", root]
        mig, rc = best(cli, args.runs)
        print(f"baseline walk+read+scan: {base:.3f} s (best of {args.runs})")
        print(f"holyclient migrate --check: {mig:.3f} s (best of {args.runs}, exit {rc})")
        print(f"ratio: {mig / base:.2f}x (target <= 3x), cpus: {os.cpu_count()}")
        from holyclient.migrate import migrate  # in-process: the same work without interpreter start-up

        inproc = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            migrate([root], write=False)
            inproc.append(time.perf_counter() - t0)
        start = best([sys.executable, "-c", "import holyclient._cli"], args.runs)[0]
        print(
            f"in-process migrate(write=False): {min(inproc):.3f} s; `import holyclient._cli` start-up: {start:.3f} s"
        )
        return 0 if rc == 1 else 1
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
