"""Hand-made mutants of the shared limiter's Lua script, which mutmut cannot mutate (a module string).

Each of the 27 mutants below replaces one fragment of ``ratelimit/_script.py``'s ``SCRIPT``; for each, a
scratch copy of ``src/`` gets the mutated script and the script tests run against it: on fakeredis with
its Lua (``test_ratelimit_script.py``, ``test_ratelimit_mutation_kills.py``,
``test_ratelimit_script_state.py``) and on a real local ``redis-server`` (the fast tests of
``test_ratelimit_redis.py`` and ``test_ratelimit_script_state.py``, skipped when none is installed). A
mutant is killed when any test fails or the run times out; the kill rate counts the rest as survivors.

    python benchmarks/lua_mutants.py            # all mutants
    python benchmarks/lua_mutants.py 3 7        # only these (1-based)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT_FILE = Path("src/holyclient/ratelimit/_script.py")
TESTS = [
    "tests/test_ratelimit_script.py",
    "tests/test_ratelimit_mutation_kills.py",
    "tests/test_ratelimit_redis.py",
    "tests/test_ratelimit_script_state.py",
    "tests/test_ratelimit_stale_answers.py",
]
TIMEOUT = 300

#: (what the bug would mean, fragment of the script, its replacement)
MUTANTS: list[tuple[str, str, str]] = [
    ("request bucket never drained", "tostring(rl - math.min(1, rc))", "tostring(rl)"),
    ("token bucket never drained", "tostring(tl - math.min(units, tc))", "tostring(tl)"),
    (
        "entries pruned as 1 unit",
        "gone = gone + tonumber(string.match(m, ':([^:]+)$'))",
        "gone = gone + 1",
    ),
    ("a shorter 429 shortens the pause", "if not current or current < untl then", "if true then"),
    (
        "TTL in ms read as s",
        "local ttl = math.ceil(window * 2 + 10) * 1000",
        "local ttl = math.ceil(window * 2 + 10)",
    ),
    ("the pause is ignored", "if paused and paused > now then", "if false then"),
    (
        "the window admits one unit too many",
        "if excess <= 1e-9 then return 0 end",
        "if excess <= 1 then return 0 end",
    ),
    (
        "the window admits one unit too few",
        "local excess = sum + math.min(need, limit) - limit",
        "local excess = sum + math.min(need, limit) - limit + 1",
    ),
    ("the window is shorter than the server's", "now - window * (1 + ", "now - window * (1 - "),
    (
        "the bucket refills twice as fast",
        "lvl + math.max(0, now - stamp) * rate",
        "lvl + math.max(0, now - stamp) * rate * 2",
    ),
    ("the bucket holds twice the burst", "math.max(1, rate * burst)", "math.max(1, rate * burst * 2)"),
    ("a correction is dropped", "if tpm > 0 and arg8 > horizon and units > 0 then", "if false then"),
    (
        "a correction is added only to the bucket",
        "    redis.call('ZADD', TOK, arg8, id .. ':c:' .. units)\n    add('tsum', 'tadd', units)\n",
        "    redis.call('ZADD', TOK, arg8, id .. ':c:' .. units)\n",
    ),
    ("the fallback's admissions are never charged", "if at > horizon then", "if at < horizon then"),
    (
        "the fallback's admissions are charged as of now",
        "local at = now - math.max(0, tonumber(ARGV[9]) or 0)",
        "local at = now",
    ),
    ("remaining requests 0 is ignored", "if rpm > 0 and units >= 0 then", "if rpm > 0 and units > 0 then"),
    ("remaining tokens are ignored", "if tpm > 0 and arg8 >= 0 then", "if tpm > 0 and arg8 < 0 then"),
    ("the pause key lives seconds, not ms", "math.ceil(units * 1000) + 1000", "math.ceil(units) + 1"),
    (
        "an admission's tokens are not counted",
        "tleft = exact(add('tsum', 'tadd', units) - tsum - units)",
        "tleft = exact(add('tsum', 'tadd', 0) - tsum)",
    ),
    (
        "a request needs no room in the window",
        "window_wait(REQ, rsum, rpm, 1)",
        "window_wait(REQ, rsum, rpm, 0)",
    ),
    # issue 34: three more, found by an independent audit
    (
        "the sums outlive the admissions they sum (an idle TTL blocks the window for good)",
        "  redis.call('PEXPIRE', TOK, ttl)\n  redis.call('PEXPIRE', STATE, ttl)\n",
        "  redis.call('PEXPIRE', TOK, ttl)\n",
    ),
    ("a correction does not drain the token bucket", "tostring(tl - units)", "tostring(tl)"),
    (
        "a correction is stamped at its answer, not its admission",
        "redis.call('ZADD', TOK, arg8, id .. ':c:' .. units)",
        "redis.call('ZADD', TOK, now, id .. ':c:' .. units)",
    ),
    # issue 43: an answer's remaining budget compared with the window as it stood at the admission
    (
        "a stale answer is compared with the window now (the fleet's own requests held again)",
        "return math.max(sum, (tonumber(redis.call('HGET', STATE, total)) or 0) - left)",
        "return sum",
    ),
    (
        "a window that lost its counts is not the floor of what was counted",
        "return math.max(sum, (tonumber(redis.call('HGET', STATE, total)) or 0) - left)",
        "return (tonumber(redis.call('HGET', STATE, total)) or 0) - left",
    ),
    (
        "an admission's own request is counted as having left the window",
        "rleft = exact(add('rsum', 'radd', 1) - rsum - 1)",
        "rleft = exact(add('rsum', 'radd', 1) - rsum)",
    ),
    (
        "the token window is compared with what left the request window",
        "counted(tsum, 'tadd', ARGV[10])",
        "counted(tsum, 'tadd', ARGV[9])",
    ),
]


def run(index: int, work: Path) -> bool:
    """Whether mutant ``index`` (0-based) is killed by the tests."""
    _, old, new = MUTANTS[index]
    original = (ROOT / SCRIPT_FILE).read_text()
    if original.count(old) != 1:
        raise SystemExit(f"mutant {index + 1}: fragment not found exactly once: {old!r}")
    (work / SCRIPT_FILE).write_text(original.replace(old, new))
    env = {**os.environ, "PYTHONPATH": f"{work / 'src'}{os.pathsep}{ROOT / 'tests'}"}
    command = [
        sys.executable,
        "-m",
        "pytest",
        *TESTS,
        "-q",
        "-x",
        "-m",
        "not slow",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
    ]
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return True
    finally:
        (work / SCRIPT_FILE).write_text(original)
    return done.returncode != 0


def main(argv: list[str]) -> int:
    chosen = [int(a) - 1 for a in argv] or list(range(len(MUTANTS)))
    with tempfile.TemporaryDirectory(prefix="holyclient-lua-") as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "src", work / "src", ignore=shutil.ignore_patterns("__pycache__"))
        killed = 0
        for index in chosen:
            dead = run(index, work)
            killed += dead
            print(f"{index + 1:2d} {'killed  ' if dead else 'SURVIVED'} {MUTANTS[index][0]}", flush=True)
    print(f"kill rate: {100.0 * killed / len(chosen):.1f}% ({killed} of {len(chosen)})")
    return 0 if killed == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
