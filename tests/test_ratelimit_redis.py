"""The shared limiter with a real ``redis-server`` (started by the fixture) and real worker processes.

Scaled down from the issue's proof (the 20,000-request, 4 x 64 run beside 4 independent local limiters
is ``benchmarks/bench_scaleout.py``): 4 ``holyclient batch --shard K/4`` processes share one limit that
the local server enforces; one of them runs with its clock 2 s ahead; the shards merge exactly once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("redis")

from holyclient import AsyncClient, Client, RateLimitError
from holyclient._cli import main
from holyclient.batch import BatchRequest, BatchResult, BatchRunner
from holyclient.ratelimit import RedisLimiter
from holyclient.ratelimit._redis import key_hash
from holyclient.testing import Fault, LocalServer, RateLimits
from redis_server import RedisServer, redis_server_fixture  # noqa: F401

KEY = "sk-holy-shared-limiter-key"

#: A worker whose wall clock runs 2 s ahead of the others (and of Redis): the limiter must not care.
SKEWED_WORKER = """
import sys, time
_real_time = time.time
time.time = lambda: _real_time() + 2.0
from holyclient._cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)


def _body(i: int) -> dict[str, Any]:
    return {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": f"prompt {i}"}], "max_tokens": 8}


def _input(path: Path, n: int) -> Path:
    lines = (
        json.dumps({"custom_id": f"r{i}", "method": "POST", "url": "/v1/chat/completions", "body": _body(i)})
        for i in range(n)
    )
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.mark.slow
def test_four_worker_processes_share_one_limit_and_their_shards_merge_exactly_once(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    n, rpm, window = 2000, 600, 2.0
    source = _input(tmp_path / "in.jsonl", n)
    with LocalServer(
        latency=0.01, rate_limits=RateLimits(rpm=rpm, window=window), log_requests=False
    ) as server:
        env = {**os.environ, "HOLYSHEEP_API_KEY": KEY, "HOLYSHEEP_BASE_URL": server.base_url}
        common = [
            "batch",
            str(source),
            "-o",
            str(tmp_path / "out.jsonl"),
            "--rpm",
            str(rpm),
            "--window",
            str(window),
        ]
        common += [
            "--limiter",
            redis_server.url,
            "--workers",
            "4",
            "--concurrency",
            "16",
            "--progress-every",
            "0",
        ]
        workers = [
            subprocess.Popen(
                ([sys.executable, "-c", SKEWED_WORKER] if k == 0 else [sys.executable, "-m", "holyclient"])
                + [*common, "--shard", f"{k}/4"],
                env=env,
                stderr=subprocess.PIPE,
                text=True,
            )
            for k in range(4)
        ]
        errors = [worker.communicate(timeout=300)[1] for worker in workers]
        stats = server.stats
    assert [worker.returncode for worker in workers] == [0, 0, 0, 0], errors
    shards = sorted(str(path) for path in tmp_path.glob("out.jsonl.shard-*"))
    assert len(shards) == 4
    assert main(["batch", "merge", str(source), *shards, "-o", str(tmp_path / "out.jsonl")]) == 0
    lines = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [line["custom_id"] for line in lines] == [f"r{i}" for i in range(n)]  # 0 lost, 0 duplicated
    assert all(line["response"]["status_code"] == 200 for line in lines)
    assert stats["rate_limited"] < 0.02 * stats["requests"], stats  # one budget: the server refused < 2%
    assert not any("unreachable" in text for text in errors)


def _requests(n: int) -> list[BatchRequest]:
    return [BatchRequest(f"r{i}", _body(i)) for i in range(n)]


@pytest.mark.slow
async def test_redis_restarted_mid_run_falls_back_says_so_and_returns_to_the_shared_budget(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from holyclient.ratelimit import _redis as redis_module

    monkeypatch.setattr(redis_module, "PROBE_INTERVAL", 0.1)
    events: list[str] = []
    results: list[BatchResult] = []
    with LocalServer(
        latency=0.005, rate_limits=RateLimits(rpm=400, window=1.0), log_requests=False
    ) as server:
        limiter = RedisLimiter(
            redis_server.url, rpm=400, window=1.0, api_key=KEY, workers=2, on_event=events.append
        )
        async with AsyncClient(base_url=server.base_url, max_retries=0) as client:
            runner = BatchRunner(client, concurrency=16, limiter=limiter)

            def on_result(result: BatchResult) -> None:
                results.append(result)
                if len(results) == 100:
                    redis_server.stop()
                elif len(results) == 300:
                    redis_server.start()

            await runner.run(_requests(600), on_result)
            await limiter.aclose()
    assert sorted(r.custom_id for r in results) == sorted(f"r{i}" for i in range(600))
    assert all(r.ok for r in results)
    assert any("unreachable" in e and "200 requests per 1 s" in e and "/ 2 workers" in e for e in events), (
        events
    )
    assert "back to the shared limit" in events[-1]
    assert limiter.shared


def test_batch_with_redis_unreachable_runs_on_the_local_fallback_and_says_so_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _input(tmp_path / "in.jsonl", 20)
    with LocalServer(latency=0.001) as server:
        code = main(
            [
                *("batch", str(source), "-o", str(tmp_path / "out.jsonl"), "--base-url", server.base_url),
                *(
                    "--rpm",
                    "6000",
                    "--limiter",
                    "redis://127.0.0.1:1/0",
                    "--workers",
                    "3",
                    "--progress-every",
                    "0",
                ),
            ]
        )
    assert code == 0
    err = capsys.readouterr().err
    assert "shared limiter at redis://127.0.0.1:1/0 unreachable" in err and "2000 requests per 60 s" in err
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 20


def _lease_name(source: Path, output: str, shard: int, count: int) -> str:
    """The shard file's name and the digest of the shard's requests (custom_id and body fingerprint)."""
    from holyclient.batch._input import IdSet, digest, iter_requests, version_key
    from holyclient.batch._shard import shard_of
    from holyclient.batch._types import request_fingerprint

    versions = IdSet(
        digest(version_key(request.custom_id, request_fingerprint(request.body)))
        for request in iter_requests(source)
        if shard_of(request.custom_id, count) == shard
    )
    return f"{output}.shard-{shard}-of-{count}:{versions.digest()}"


def test_a_second_worker_on_a_leased_shard_exits_2_and_writes_nothing(
    tmp_path: Path, redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    import redis

    source = _input(tmp_path / "in.jsonl", 10)
    holder = redis.Redis.from_url(redis_server.url)
    holder.set(
        f"holyclient:{{{key_hash(KEY)}}}:lease:{_lease_name(source, 'out.jsonl', 1, 2)}", "other", px=60_000
    )
    with LocalServer() as server:
        code = main(
            [
                *("batch", str(source), "-o", str(tmp_path / "out.jsonl"), "--base-url", server.base_url),
                *("--shard", "1/2", "--limiter", redis_server.url, "--progress-every", "0"),
            ]
        )
        assert server.stats["requests"] == 0
    assert code == 2
    assert "another worker is running this shard" in capsys.readouterr().err
    assert not list(tmp_path.glob("out.jsonl*"))
    holder.close()


def test_a_finished_shard_releases_its_lease(tmp_path: Path, redis_server: RedisServer) -> None:
    import redis

    source = _input(tmp_path / "in.jsonl", 10)
    with LocalServer() as server:
        argv = ["batch", str(source), "-o", str(tmp_path / "out.jsonl"), "--base-url", server.base_url]
        argv += ["--shard", "0/2", "--limiter", redis_server.url, "--progress-every", "0"]
        assert main(argv) == 0
    client = redis.Redis.from_url(redis_server.url)
    assert not client.keys("*lease*")
    client.close()


def test_app_traffic_through_client_limiter_draws_from_the_shared_budget_and_shares_pauses(
    redis_server: RedisServer,
) -> None:
    limiter = RedisLimiter(redis_server.url, rpm=3, window=60, api_key=KEY, burst_seconds=60)
    with LocalServer() as server:
        first = Client(base_url=server.base_url, limiter=limiter)
        second = Client(base_url=server.base_url, limiter=limiter, max_retries=0)
        for client in (first, second, first):
            client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
        admitted, wait = (
            float(v) for v in limiter._eval_sync("gpt-4o-mini", limiter._args("acquire", 0, "probe"))
        )
        assert admitted == 0 and wait > 50  # the three calls used the budget
        server.enqueue(Fault.status(429, retry_after=30))
        other = RedisLimiter(redis_server.url, rpm=1000, window=60, api_key=KEY)
        app = Client(base_url=server.base_url, limiter=other, max_retries=0)
        with pytest.raises(RateLimitError):
            app.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
        admitted, wait = (float(v) for v in other._eval_sync("gpt-4o", other._args("acquire", 0, "probe")))
        assert admitted == 0 and 25 < wait <= 30  # every worker now waits out the 429's Retry-After
        for client in (first, second, app):
            client.close()
