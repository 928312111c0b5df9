"""``holyclient batch`` end to end against the local server: faults, resume, kill -9, Ctrl-C, rate limits.

Scaled-down versions of the issue's reliability targets (the full-size runs are in
``benchmarks/bench_batch.py``): a few hundred requests, 10-20 ms latency, short hangs and timeouts.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from batch_support import read_lines, write_chat_input
from holyclient import AsyncClient, Client
from holyclient._cli import main
from holyclient.batch import BatchRequest, BatchResult, BatchRunner, run_batch
from holyclient.testing import Fault, FaultMix, LocalServer, RateLimits, RecordedRequest

KEY = "sk-holy-batch-test-key"


# the key from the environment, and a little latency so that requests overlap as real ones do
pytestmark = [pytest.mark.usefixtures("api_key_env"), pytest.mark.local_server(latency=0.01)]


def _body(custom_id: str, max_tokens: int = 20) -> dict[str, Any]:
    return {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": f"prompt {custom_id}"}],
        "max_tokens": max_tokens,
    }


def _input(path: Path, n: int) -> Path:
    return write_chat_input(path, n, body=lambda i: _body(f"r{i}"))


def _assert_exactly_once_and_right(path: Path, n: int) -> None:
    lines = read_lines(path)
    ids = [line["custom_id"] for line in lines]
    assert len(ids) == n and set(ids) == {f"r{i}" for i in range(n)}
    for line in lines:
        assert line["error"] is None, line
        content = line["response"]["body"]["choices"][0]["message"]["content"]
        assert content == f"Echo: prompt {line['custom_id']}"


def _sent_ids(requests: list[RecordedRequest]) -> list[str]:
    return [r.body["messages"][0]["content"].removeprefix("prompt ") for r in requests if r.body]


def test_invalid_input_is_reported_by_line_and_nothing_is_sent(
    local_server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _input(tmp_path / "in.jsonl", 3)
    with source.open("a") as file:
        file.write("{broken\n")
        file.write(json.dumps({"custom_id": "r1", "body": _body("x")}) + "\n")
        file.write(json.dumps({"custom_id": "e", "url": "/v1/embedding", "body": _body("e")}) + "\n")
    out = tmp_path / "out.jsonl"
    code = main(["batch", str(source), "-o", str(out), "--base-url", local_server.base_url])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{source}:4: not valid JSON" in err
    assert f"{source}:5: duplicate custom_id 'r1' (first on line 2)" in err
    assert f"{source}:6: field 'url': unsupported url '/v1/embedding'" in err
    assert local_server.stats["requests"] == 0
    assert not out.exists()


def test_dry_run_prints_the_estimate_and_sends_nothing(
    local_server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _input(tmp_path / "in.jsonl", 10)
    code = main(["batch", str(source), "--dry-run", "--base-url", local_server.base_url])
    out = capsys.readouterr().out
    assert code == 0
    assert "10 valid requests" in out and "gpt-4o-mini" in out and "$" in out
    assert local_server.stats["requests"] == 0


def test_every_request_once_with_the_right_answer_despite_faults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mix = FaultMix(rate=0.2, seed=3, retry_after=0.1, hang_seconds=2.0)
    source = _input(tmp_path / "in.jsonl", 300)
    out = tmp_path / "out.jsonl"
    with LocalServer(latency=0.01, faults=mix) as local_server:
        code = main(
            [
                "batch",
                str(source),
                "-o",
                str(out),
                "--base-url",
                local_server.base_url,
                "--concurrency",
                "32",
                "--timeout",
                "0.3",
            ]
        )
        stats = local_server.stats
    err = capsys.readouterr().err
    assert code == 0, err
    _assert_exactly_once_and_right(out, 300)
    assert {"429", "500", "drop", "malformed", "hang"} <= set(stats["by_fault"])
    assert "300 succeeded, 0 failed" in err and "gpt-4o-mini" in err
    assert KEY not in err and KEY not in out.read_text()


def test_resume_skips_written_results_and_repairs_a_torn_last_line(
    local_server: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _input(tmp_path / "in.jsonl", 60)
    out = tmp_path / "out.jsonl"
    assert main(["batch", str(source), "-o", str(out), "--base-url", local_server.base_url]) == 0
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:30]) + lines[30][:25])  # a crash in the middle of line 31
    kept = {json.loads(line)["custom_id"] for line in lines[:30]}
    local_server.reset()
    capsys.readouterr()
    assert main(["batch", str(source), "-o", str(out), "--base-url", local_server.base_url]) == 0
    assert "torn last line" in capsys.readouterr().err
    _assert_exactly_once_and_right(out, 60)
    sent = _sent_ids(local_server.requests)
    assert len(sent) == 30 and not kept & set(sent)


def test_retry_failed_sends_only_the_failures_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doomed = {"r3", "r7"}
    failing = True

    def hook(request: RecordedRequest) -> Fault | None:
        prompt = request.body["messages"][0]["content"] if request.body else ""
        return Fault.status(400) if failing and prompt.removeprefix("prompt ") in doomed else None

    source = _input(tmp_path / "in.jsonl", 20)
    out = tmp_path / "out.jsonl"
    with LocalServer(latency=0.005, hook=hook) as local_server:
        args = ["batch", str(source), "-o", str(out), "--base-url", local_server.base_url]
        assert main(args) == 1
        failed = {line["custom_id"] for line in read_lines(out) if line["response"]["status_code"] != 200}
        assert failed == doomed
        local_server.reset()
        assert main(args) == 1  # resuming without --retry-failed sends nothing and still reports them
        assert local_server.stats["requests"] == 0
        failing = False
        assert main([*args, "--retry-failed"]) == 0
        assert set(_sent_ids(local_server.requests)) == doomed
    _assert_exactly_once_and_right(out, 20)
    assert "2 failed results removed" in capsys.readouterr().err


def _start_cli(source: Path, out: Path, base_url: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HOLYSHEEP_API_KEY": KEY}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "holyclient",
            "batch",
            str(source),
            "-o",
            str(out),
            "--base-url",
            base_url,
            "--concurrency",
            "8",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _wait_for_lines(out: Path, count: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= count:
            return
        time.sleep(0.01)
    raise AssertionError(f"the batch did not write {count} lines in time")


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["kill-9", "ctrl-c"])
def test_killed_or_interrupted_run_resumes_without_resending_finished_requests(
    sig: signal.Signals, tmp_path: Path
) -> None:
    source = _input(tmp_path / "in.jsonl", 400)
    out = tmp_path / "out.jsonl"
    with LocalServer(latency=0.03) as local_server:
        process = _start_cli(source, out, local_server.base_url)
        _wait_for_lines(out, 60, process)
        process.send_signal(sig)
        _, err = process.communicate(timeout=20)
        if sig == signal.SIGINT:
            assert process.returncode == 130, err
            assert b"run the same command again" in err
        else:
            assert process.returncode == -signal.SIGKILL
        written = {line["custom_id"] for line in read_lines(out)}  # every line complete
        assert 60 <= len(written) < 400
        local_server.reset()
        assert main(["batch", str(source), "-o", str(out), "--base-url", local_server.base_url]) == 0
        sent = _sent_ids(local_server.requests)
    _assert_exactly_once_and_right(out, 400)
    assert not written & set(sent)
    assert len(sent) == 400 - len(written)


def test_matching_rpm_and_tpm_limits_give_no_failures_and_few_429s() -> None:
    limits = RateLimits(rpm=50, tpm=1200, window=1.0)
    requests = [BatchRequest(f"r{i}", _body(f"r{i}")) for i in range(100)]
    results: list[BatchResult] = []

    async def go(base_url: str) -> BatchRunner:
        async with AsyncClient(base_url=base_url) as client:
            runner = BatchRunner(client, concurrency=16, rpm=50, tpm=1200, window=1.0)
            await runner.run(requests, results.append)
        return runner

    with LocalServer(latency=0.01, rate_limits=limits) as local_server:
        runner = anyio.run(go, local_server.base_url)
        rate_limited = local_server.stats["rate_limited"]
    assert len(results) == 100 and all(r.ok for r in results)
    assert rate_limited < 0.05 * runner.stats.attempts
    assert runner.stats.elapsed > 1.0  # it did have to wait for the window


def test_sync_run_batch_with_a_plain_client_records_its_usage_on_that_client(
    local_server: LocalServer,
) -> None:
    with Client(base_url=local_server.base_url) as client:
        results = run_batch(client, [_body(f"s{i}") for i in range(5)], concurrency=2)
        assert [r.body["choices"][0]["message"]["content"] for r in results] == [
            f"Echo: prompt s{i}" for i in range(5)
        ]
        snapshot = client.usage.snapshot()
        recorded = snapshot.models["gpt-4o-mini"]
        assert recorded.requests == 5
        assert recorded.prompt_tokens == sum(int(r.usage["prompt_tokens"]) for r in results if r.usage) > 0
        assert snapshot.total_cost_usd > 0


def test_help_documents_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", "--help"]) == 0
    text = capsys.readouterr().out
    assert "--retry-failed" in text and "--dry-run" in text
    assert "0 every request succeeded 1 some requests failed" in " ".join(text.split())


def test_progress_line_and_summary_show_counts_tokens_cost_rate_and_eta() -> None:
    from holyclient.batch import BatchStats
    from holyclient.batch._report import CostTally, progress_line, summary

    stats, costs = BatchStats(concurrency=8), CostTally()
    for i in range(4):
        result = BatchResult(
            f"r{i}",
            200,
            "req",
            {},
            model="gpt-4o-mini",
            usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        )
        stats.record(result)
        costs.add(result)
    stats.record(BatchResult("bad", error={"code": "timeout", "message": "t"}, model="gpt-4o-mini"))
    stats.elapsed = 2.0
    line = progress_line(stats, costs, total=10, elapsed=2.0)
    assert line.startswith("5/10 done | 1 failed") and "60 tokens" in line and "2.5 req/s" in line
    assert "ETA 2s" in line and "$0.0000" in line
    text = summary(stats, costs, skipped=3)
    assert "5 requests in 2.0s" in text and "4 succeeded, 1 failed" in text
    assert "3 already in the output were skipped" in text
    assert "gpt-4o-mini" in text.splitlines()[-1]


def test_an_unwritable_output_stops_the_batch_with_a_message(
    local_server: LocalServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from holyclient.batch import OutputWriter

    written = 0
    real_write = OutputWriter.write

    def failing_write(self: OutputWriter, result: Any) -> None:
        nonlocal written
        if written >= 5:
            raise OSError(28, "No space left on device")
        written += 1
        real_write(self, result)

    monkeypatch.setattr(OutputWriter, "write", failing_write)
    source = _input(tmp_path / "in.jsonl", 200)
    out = tmp_path / "out.jsonl"
    code = main(
        ["batch", str(source), "-o", str(out), "--base-url", local_server.base_url, "--concurrency", "4"]
    )
    assert code == 2
    assert "No space left on device" in capsys.readouterr().err
    assert len(read_lines(out)) == 5
    assert local_server.stats["requests"] < 50  # it stopped sending


def test_without_matching_limits_the_runner_slows_down_on_sustained_429s_and_loses_nothing() -> None:
    requests = [BatchRequest(f"r{i}", _body(f"r{i}")) for i in range(60)]
    results: list[BatchResult] = []

    async def go(base_url: str) -> BatchRunner:
        async with AsyncClient(base_url=base_url) as client:
            runner = BatchRunner(client, concurrency=32)
            await runner.run(requests, results.append)
        return runner

    with LocalServer(latency=0.01, rate_limits=RateLimits(rpm=30, window=0.5)) as local_server:
        runner = anyio.run(go, local_server.base_url)
        assert local_server.stats["rate_limited"] > 0
    assert len(results) == 60 and all(r.ok for r in results)
    assert runner.adaptive is not None and runner.adaptive.decreases > 0
