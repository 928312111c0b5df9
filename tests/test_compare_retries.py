"""``holyclient compare`` counts retries: each side's attempts and retries are in the table, the JSON
and the HTML report, ``retry_rate`` and ``retries`` can be gated on, and latency is the whole call --
from its first attempt to its final answer, the waits between attempts included -- so an endpoint that
answers 14 of 32 attempts with 503 no longer passes as fast as one that answers every attempt."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from holyclient._cli import main
from holyclient.compare import evaluate, parse_gate
from holyclient.testing import Fault, LocalServer, RecordedRequest

KEY = "sk-compare-retries-789"
#: 18 requests; 7 of them answered 503 twice before a 200: 14 of the 32 attempts are refused.
REQUESTS, REFUSED, REFUSALS_EACH = 18, frozenset({1, 3, 5, 8, 11, 13, 16}), 2
#: Each 503 asks for this wait (``Retry-After``), which the runner honours exactly.
WAIT = 0.2


def _sample(path: Path) -> Path:
    lines = []
    for i in range(REQUESTS):
        body: dict[str, Any] = {
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": f"request number {i}: say something short"}],
            "max_tokens": 20,
        }
        if i == 5:
            body["stream"] = True  # a stream's time to first token includes its retries too
        lines.append(json.dumps({"custom_id": f"r{i}", "url": "/v1/chat/completions", "body": body}))
    path.write_text("\n".join(lines) + "\n")
    return path


class Refuser:
    """Answers 503 (``Retry-After: WAIT``) to the first two attempts of the requests in ``REFUSED``."""

    def __init__(self) -> None:
        self.seen: dict[int, int] = {}

    def __call__(self, request: RecordedRequest) -> Fault | None:
        body = request.body if isinstance(request.body, dict) else {}
        match = re.search(r"request number (\d+)", json.dumps(body.get("messages", "")))
        if match is None:
            return None
        number = int(match[1])
        self.seen[number] = self.seen.get(number, 0) + 1
        if number in REFUSED and self.seen[number] <= REFUSALS_EACH:
            return Fault.status(503, retry_after=WAIT)
        return None


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
    sample = _sample(tmp_path / "sample.jsonl")
    with LocalServer() as old, LocalServer(hook=Refuser()) as new:
        capsys.readouterr()
        code = main(["compare", str(sample), "--old", old.base_url, "--new", new.base_url, *extra])
        statuses = [r.status for r in new.requests if r.body]
    assert sorted(statuses).count(503) == len(REFUSED) * REFUSALS_EACH == 14 and len(statuses) == 32
    out = capsys.readouterr().out
    return code, json.loads(out) if extra and "--json" in extra else {"text": out}


def test_a_side_that_needed_14_retries_in_32_attempts_fails_a_retry_rate_gate(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    code, report = _run(
        tmp_path,
        capsys,
        "--json",
        "--gate",
        "retry_rate<=0.05",
        "--gate",
        "retries<=3",
        "--gate",
        "error_rate<=0",
    )
    metrics = report["metrics"]
    assert (metrics["old_attempts"], metrics["old_retries"], metrics["old_retry_rate"]) == (18, 0, 0.0)
    assert (metrics["new_attempts"], metrics["new_retries"]) == (32, 14)
    assert metrics["new_retry_rate"] == metrics["retry_rate"] == pytest.approx(14 / 32)
    assert metrics["retries"] == 14
    gates = {g["gate"]: g for g in report["gates"]}
    assert code == 1 and not report["passed"]
    assert gates["retry_rate<=0.05"]["passed"] is False and gates["retry_rate<=0.05"][
        "value"
    ] == pytest.approx(0.4375)
    assert gates["retries<=3"]["passed"] is False
    assert gates["error_rate<=0"]["passed"] is True  # every request succeeded in the end
    for row in report["requests"]:
        number = int(row["custom_id"][1:])
        retried = number in REFUSED
        assert (row["new"]["attempts"], row["new"]["retries"]) == ((3, 2) if retried else (1, 0))
        assert (row["old"]["attempts"], row["old"]["retries"]) == (1, 0)


def test_latency_is_the_whole_call_the_waits_between_attempts_included(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    code, report = _run(tmp_path, capsys, "--json")
    assert code == 0
    rows = {int(row["custom_id"][1:]): row for row in report["requests"]}
    for number in REFUSED:  # two waits of WAIT seconds, at least, before the answer
        assert rows[number]["new"]["latency_s"] >= REFUSALS_EACH * WAIT
    assert rows[5]["stream"] and rows[5]["new"]["ttft_s"] >= REFUSALS_EACH * WAIT
    # 7 of 18 requests took 0.4 s or more on the new side: its p95 (and so p95_ratio) is one of them.
    # The final attempts alone answered as fast as the old side's, and p95_ratio<=1.3 passed.
    assert report["metrics"]["new_p95"] >= REFUSALS_EACH * WAIT


def test_the_text_and_html_reports_show_attempts_and_retries(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    page = tmp_path / "report.html"
    code, report = _run(tmp_path, capsys, "-o", str(page))
    assert code == 0  # no gate given
    lines = {line.split("  ")[0].strip(): line for line in report["text"].splitlines()}
    assert re.fullmatch(r"attempts\s+18\s+32", lines["attempts"])
    assert re.fullmatch(r"retries\s+0 \(0\.0%\)\s+14 \(43\.8%\)", lines["retries"])
    html = page.read_text()
    assert "<tr><td>attempts</td><td class=num>18</td><td class=num>32</td>" in html
    assert (
        "<tr><td>retries (share of attempts)</td><td class=num>0 (0.0%)</td><td class=num>14 (43.8%)</td>"
        in html
    )


def test_retry_gates_parse_and_judge_the_new_sides_retries():
    metrics = {"retry_rate": 0.04, "retries": 3.0}
    assert evaluate(parse_gate("retry_rate<=0.05"), metrics).passed
    assert not evaluate(parse_gate("retries<=2"), metrics).passed
    assert evaluate(parse_gate("retries<=3"), metrics).reason == "retries = 3 meets <= 3"


def test_compare_help_names_the_retry_gates(capsys):
    assert main(["compare", "--help"]) == 0
    text = capsys.readouterr().out
    assert re.search(r"retry_rate\s+share of the new endpoint's attempts that were retries", text)
    assert re.search(r"retries\s+retries the new endpoint needed", text)
    assert "first attempt" in text  # latency is the whole call, said in --help


_FIRST_USE = """
import json, sys
from pathlib import Path
from holyclient._cli import main
from holyclient.testing import LocalServer

loaded = []  # for each request's arrival: was the stream assembler loaded already?


def hook(request):
    if request.body:
        loaded.append("holyclient._chat_stream" in sys.modules)
    return None


sample = Path(sys.argv[1])
with LocalServer(hook=hook) as old, LocalServer(hook=hook) as new:
    code = main(["compare", str(sample), "--old", old.base_url, "--new", new.base_url, "--json"])
print(json.dumps({"code": code, "loaded": loaded}), file=sys.stderr)
"""


@pytest.mark.slow
def test_a_comparison_loads_what_it_needs_before_timing_any_request(tmp_path, monkeypatch):
    """The first stream assembled used to import the stream helpers and build their models (~0.2 s)
    in the middle of the run, blocking the event loop: every request in flight then (on both sides)
    measured that time as its latency. In a fresh process, so nothing is loaded by another test."""
    import subprocess
    import sys

    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    sample = _sample(tmp_path / "sample.jsonl")
    result = subprocess.run(
        [sys.executable, "-c", _FIRST_USE, str(sample)], capture_output=True, text=True, timeout=120
    )
    report = json.loads(result.stderr.strip().splitlines()[-1])
    assert report["code"] == 0
    assert len(report["loaded"]) == 2 * REQUESTS and all(report["loaded"])
