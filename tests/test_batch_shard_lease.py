"""The shard lease with a real ``redis-server``: a worker that loses it stops at once; a restarted shard
takes over a dead worker's lease instead of exiting; unrelated batches never share a lease.

Times are scaled down through the lease's own knobs (renewal period, time to live), never slept out.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("redis")

from holyclient._cli import main
from holyclient.testing import LocalServer
from redis_server import RedisServer, redis_server_fixture  # noqa: F401

KEY = "sk-holy-shard-lease-key"

#: A worker whose lease lives 3 s and is renewed every 0.5 s (15 s and 5 s in production).
SHORT_LEASE_WORKER = """
import sys
from holyclient.ratelimit import _lease
_lease.LEASE_SECONDS, _lease.RENEW_EVERY = 3.0, 0.5
from holyclient._cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)


def _input(path: Path, n: int, prompt: str = "hi") -> Path:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": prompt}], "max_tokens": 5}
    lines = (
        json.dumps({"custom_id": f"r{i}", "method": "POST", "url": "/v1/chat/completions", "body": body})
        for i in range(n)
    )
    path.write_text("".join(line + "\n" for line in lines))
    return path


def _redis(server: RedisServer) -> Any:
    import redis

    return redis.Redis.from_url(server.url)


def _argv(
    source: Path, output: Path, server: LocalServer, redis_server: RedisServer, *extra: str
) -> list[str]:
    return [
        *("batch", str(source), "-o", str(output), "--base-url", server.base_url),
        *("--shard", "0/1", "--limiter", redis_server.url, "--progress-every", "0", *extra),
    ]


def test_a_worker_that_loses_its_shard_lease_stops_sending_at_once_and_exits_2(
    tmp_path: Path,
    redis_server: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("holyclient.ratelimit._lease.RENEW_EVERY", 0.05)
    source = _input(tmp_path / "in.jsonl", 300)
    thief = _redis(redis_server)
    stolen_at: list[int] = []
    with LocalServer(latency=0.01, log_requests=False) as server:

        def steal() -> None:  # another worker takes the lease (ours lapsed while we were paused)
            deadline = time.monotonic() + 20
            while server.stats["requests"] < 10 and time.monotonic() < deadline:
                time.sleep(0.005)
            (name,) = thief.keys("*:lease:*")
            thief.set(name, "another-worker", px=60_000)
            stolen_at.append(server.stats["requests"])

        stealer = threading.Thread(target=steal)
        stealer.start()
        code = main(_argv(source, tmp_path / "out.jsonl", server, redis_server, "--concurrency", "2"))
        stealer.join()
        sent = server.stats["requests"]
    thief.close()
    err = capsys.readouterr().err
    assert code == 2, err
    assert "lease was lost" in err and "stopped sending" in err
    # One renewal period (0.05 s) at 2 x 10 ms requests: a handful more at most, never the rest of the shard.
    assert sent - stolen_at[0] <= 20, (stolen_at, sent)
    written = (tmp_path / "out.jsonl.shard-0-of-1").read_text().splitlines()
    assert len(written) <= sent < 300


def _run_in_thread(argv: list[str]) -> tuple[threading.Thread, list[int]]:
    codes: list[int] = []
    thread = threading.Thread(target=lambda: codes.append(main(argv)))
    thread.start()
    return thread, codes


def _wait_for_lease(client: Any) -> None:
    deadline = time.monotonic() + 10
    while not client.keys("*:lease:*"):
        assert time.monotonic() < deadline, "the first worker never took its lease"
        time.sleep(0.01)


@pytest.mark.parametrize(
    ("same_input", "code"), [(False, 0), (True, 2)], ids=["unrelated-batches", "the-same-batch"]
)
def test_the_shard_lease_names_the_batch_not_only_the_output_file_name(
    tmp_path: Path,
    redis_server: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    same_input: bool,
    code: int,
) -> None:
    """Two batches with the same ``-o`` name in two directories (two hosts) share a lease only when they
    are the same batch: an unrelated one must not be blocked, the same one (a second worker) must be."""
    monkeypatch.setattr("holyclient.ratelimit._lease.RENEW_EVERY", 0.05)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = _input(tmp_path / "a" / "in.jsonl", 60)
    second = (
        _input(tmp_path / "b" / "in.jsonl", 60)
        if same_input
        else _input(tmp_path / "b" / "in.jsonl", 5, "yo")
    )
    watcher = _redis(redis_server)
    with LocalServer(latency=0.05, log_requests=False) as server:
        argv = _argv(first, tmp_path / "a" / "results.jsonl", server, redis_server, "--concurrency", "1")
        thread, codes = _run_in_thread(argv)
        _wait_for_lease(watcher)
        result = main(_argv(second, tmp_path / "b" / "results.jsonl", server, redis_server))
        thread.join()
    watcher.close()
    assert codes == [0]
    assert result == code, capsys.readouterr().err


def test_a_shard_restarted_after_its_worker_was_killed_waits_out_the_dead_lease_and_finishes(
    tmp_path: Path,
    redis_server: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A Kubernetes Job restarts a pod at once after it died: the new worker must take the shard over once
    the dead worker's lease lapses (bounded by its time to live), not exit 2 and burn a pod retry."""
    monkeypatch.setattr("holyclient.ratelimit._lease.LEASE_SECONDS", 3.0)
    monkeypatch.setattr("holyclient.ratelimit._lease.RENEW_EVERY", 0.5)
    source = _input(tmp_path / "in.jsonl", 40)
    output = tmp_path / "out.jsonl"
    shard = tmp_path / "out.jsonl.shard-0-of-1"
    with LocalServer(latency=0.05, log_requests=False) as server:
        argv = _argv(source, output, server, redis_server, "--concurrency", "1")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        worker = subprocess.Popen(
            [sys.executable, "-c", SHORT_LEASE_WORKER, *argv], env=env, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 30
        while not (shard.exists() and len(shard.read_bytes().splitlines()) >= 5):
            assert worker.poll() is None and time.monotonic() < deadline, (
                worker.stderr.read() if worker.stderr else ""
            )
            time.sleep(0.01)
        worker.kill()  # kill -9: no release, the lease stays until it lapses
        worker.communicate()
        watcher = _redis(redis_server)
        (name,) = watcher.keys("*:lease:*")
        assert watcher.pttl(name) > 0  # still held by the dead worker
        watcher.close()
        started = time.monotonic()
        code = main(argv)
        elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 0, err
    assert re.search(r"waiting up to [1-3] s for it to lapse", err) and "took over the shard" in err
    # The lease's 3 s at most, then the remaining 35 requests (generous: the machine may be busy;
    # the bound itself is proven with an injected sleep below).
    assert elapsed < 15
    ids = [json.loads(line)["custom_id"] for line in shard.read_text().splitlines()]
    assert sorted(ids) == sorted(f"r{i}" for i in range(40))  # each exactly once


def test_a_second_worker_exits_2_when_the_lease_holder_keeps_renewing_it(
    tmp_path: Path,
    redis_server: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("holyclient.ratelimit._lease.LEASE_SECONDS", 3.0)
    monkeypatch.setattr("holyclient.ratelimit._lease.RENEW_EVERY", 0.2)
    source = _input(tmp_path / "in.jsonl", 60)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    watcher = _redis(redis_server)
    with LocalServer(latency=0.05, log_requests=False) as server:
        thread, codes = _run_in_thread(
            _argv(source, tmp_path / "a" / "out.jsonl", server, redis_server, "--concurrency", "1")
        )
        _wait_for_lease(watcher)
        sent_before = server.stats["requests"]
        started = time.monotonic()
        code = main(_argv(source, tmp_path / "b" / "out.jsonl", server, redis_server, "--concurrency", "1"))
        waited = time.monotonic() - started
        thread.join()
        sent = server.stats["requests"]
    watcher.close()
    err = capsys.readouterr().err
    assert codes == [0] and code == 2, err
    assert "renewed" in err and "another worker is running this shard" in err
    assert waited < 2.5  # found alive at its next renewal (0.2 s), not after waiting out its 3 s lease
    assert sent == 60 and sent_before <= 60  # the second worker sent nothing
    assert not list((tmp_path / "b").iterdir())


def test_taking_a_dead_workers_lease_waits_no_longer_than_the_time_it_had_left(
    redis_server: RedisServer,
) -> None:
    import anyio
    import redis.asyncio

    from holyclient.ratelimit._lease import ShardLease

    told: list[float] = []
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        await anyio.sleep(seconds)

    async def main_() -> bool:
        client = redis.asyncio.Redis.from_url(redis_server.url)
        try:
            lease = ShardLease(client, KEY, "out.jsonl.shard-0-of-1:x", seconds=1.0)
            await client.set(lease.key, "a-worker-that-died", px=400)
            taken = await lease.take(on_wait=told.append, sleep=sleep)
            assert await client.get(lease.key) == lease.token.encode()
            return taken
        finally:
            await client.aclose()

    assert anyio.run(main_) is True
    assert len(told) == 1 and 0.3 < told[0] <= 0.4
    assert sum(slept) <= told[0] + 0.1  # polled until it lapsed, not a whole lease longer
