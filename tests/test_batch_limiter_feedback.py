"""The batch runner tells its limiter the server's remaining budget from every answer, a 2xx's included
(issue 34): workers sharing one Redis limiter learn that the budget is shrinking -- someone else spends
from the same key -- before the 429s start, as the clients' own limiter step already did."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
import pytest

from batch_support import RecordingLimiter
from holyclient import AsyncClient
from holyclient.batch import BatchRequest, BatchResult, BatchRunner
from holyclient.ratelimit import Feedback
from support import KEY, completion

REMAINING = {"x-ratelimit-remaining-requests": "7", "x-ratelimit-remaining-tokens": "900"}


async def _no_wait(seconds: float) -> None:
    await anyio.lowlevel.checkpoint()


def _client(status: int, body: Any, headers: dict[str, str]) -> AsyncClient:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(status, json=body, headers=headers)

    return AsyncClient(api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))


def _requests(count: int) -> list[BatchRequest]:
    return [
        BatchRequest(f"r{i}", {"model": "gpt-4.1", "messages": [{"role": "user", "content": f"p{i}"}]})
        for i in range(count)
    ]


async def _feedbacks(client: AsyncClient, limiter: Any) -> list[Feedback]:
    runner = BatchRunner(client, concurrency=1, limiter=limiter, max_retries=0, sleep=_no_wait)
    results: list[BatchResult] = []
    await runner.run(_requests(2), results.append)
    return [feedback for _, feedback in limiter.observed]


@pytest.mark.parametrize("tpm", [100_000.0, None], ids=["requests-and-tokens", "requests-only"])
async def test_a_2xx_answers_remaining_budget_is_fed_back_to_the_limiter(tpm: float | None) -> None:
    feedbacks = await _feedbacks(_client(200, completion("ok"), REMAINING), RecordingLimiter(tpm=tpm))
    assert [(f.remaining_requests, f.remaining_tokens, f.pause) for f in feedbacks] == [(7, 900, None)] * 2
    assert [f.total_tokens for f in feedbacks] == ([6, 6] if tpm else [None, None])  # usage as before


async def test_an_unreadable_2xx_still_feeds_back_its_remaining_budget_but_no_usage() -> None:
    feedbacks = await _feedbacks(_client(200, ["not", "a", "completion"], REMAINING), RecordingLimiter())
    assert [(f.remaining_requests, f.remaining_tokens, f.total_tokens) for f in feedbacks] == [
        (7, 900, None)
    ] * 2


async def test_a_refusal_still_feeds_back_its_pause_and_remaining_budget() -> None:
    error = {"error": {"message": "slow down", "type": "rate_limit_error"}}
    feedbacks = await _feedbacks(_client(429, error, {**REMAINING, "retry-after": "2"}), RecordingLimiter())
    assert [(f.pause, f.remaining_requests, f.total_tokens) for f in feedbacks] == [(2.0, 7, None)] * 2


async def test_two_runners_sharing_a_redis_limiter_learn_from_each_others_2xx_answers() -> None:
    fakeredis = pytest.importorskip("fakeredis")
    pytest.importorskip("lupa")
    from holyclient.ratelimit import RedisLimiter

    server = fakeredis.FakeServer()

    def limiter() -> RedisLimiter:
        redis = fakeredis.FakeAsyncRedis(server=server)
        return RedisLimiter(
            "redis://127.0.0.1:1/0", rpm=100, api_key=KEY, burst_seconds=60.0, async_client=redis
        )

    # the server says 1 request is left: another application spends from the same key
    first = BatchRunner(
        _client(200, completion("ok"), {"x-ratelimit-remaining-requests": "1"}), limiter=limiter()
    )
    await first.run(_requests(1), lambda result: None)
    second = limiter()
    reply = await second._eval("gpt-4.1", second._args("acquire", 0, second._next_id()))
    assert int(reply[0]) == 1  # the one request left ...
    reply = await second._eval("gpt-4.1", second._args("acquire", 0, second._next_id()))
    assert int(reply[0]) == 0 and float(reply[1]) > 50  # ... and then the whole fleet waits for the window
