"""The shard lease with a real ``redis-server``: a worker that loses it stops at once; a restarted shard
takes over a dead worker's lease instead of exiting; unrelated batches never share a lease.

Times are scaled down through the lease's own knobs (renewal period, time to live), never slept out.
"""

from __future__ import annotations

import json
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
