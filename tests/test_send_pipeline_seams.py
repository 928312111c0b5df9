"""Every request passes one send pipeline: the seams where a feature used to find its own way to the wire.

Each test is one defect of issue #19 (the batch runner, ``run_batch``, the Router and the recorder), proven
against the local server or a mock transport; each failed on the code before the pipeline.
"""

from __future__ import annotations

import errno
import functools
import gc
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from holyclient import AsyncClient, AsyncRouter, BudgetExceededError, Client, Router, Target
from holyclient.batch import BatchRequest, BatchResult, BatchRunner, run_batch
from holyclient.pricing import UsageTracker
from holyclient.ratelimit import LocalLimiter
from holyclient.testing import Fault, LocalServer

KEY = "sk-pipeline-seams-secret-key"
CHAT = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1000}


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer() as server:
        yield server


def _embeddings(n: int) -> list[BatchRequest]:
    return [
        BatchRequest(f"r{i}", {"model": "text-embedding-3-small", "input": f"text {i}"}, "/v1/embeddings")
        for i in range(n)
    ]


def _chats(n: int) -> list[BatchRequest]:
    return [BatchRequest(f"c{i}", dict(CHAT)) for i in range(n)]


def _headers(request: Any) -> dict[str, str]:
    return {name.lower(): value for name, value in request.headers.items()}


async def _run(client: AsyncClient, requests: list[BatchRequest], **options: Any) -> list[BatchResult]:
    results: list[BatchResult] = []
    await BatchRunner(client, **options).run(requests, results.append)
    return results


# 1 ------------------------------------------------------------------------------------------------


def test_the_batch_runner_sends_organization_project_and_default_query(server: LocalServer) -> None:
    server.reset()

    async def go() -> list[BatchResult]:
        async with AsyncClient(
            api_key=KEY,
            base_url=server.base_url,
            organization="org-seams",
            project="proj-seams",
            default_query={"api-version": "2024-10"},
        ) as client:
            return await _run(client, _embeddings(2) + _chats(1))  # the fast path and the chat path

    results = anyio.run(go)
    assert all(result.ok for result in results)
    assert len(server.requests) == 3
    for seen in server.requests:
        headers = _headers(seen)
        assert headers["openai-organization"] == "org-seams"
        assert headers["openai-project"] == "proj-seams"
        assert "api-version=2024-10" in seen.query


# 2 ------------------------------------------------------------------------------------------------


def test_run_batch_keeps_the_clients_limiter_identity_and_query(server: LocalServer) -> None:
    server.reset()
    now = [0.0]
    waits: list[float] = []

    async def sleep(seconds: float) -> None:  # the limiter's clock moves only when it waits
        waits.append(seconds)
        now[0] += seconds
        await anyio.lowlevel.checkpoint()

    limiter = LocalLimiter(rpm=2, window=3.0, clock=lambda: now[0], sleep=sleep)
    client = Client(
        api_key=KEY,
        base_url=server.base_url,
        organization="org-sync",
        project="proj-sync",
        default_query={"tenant": "t1"},
        limiter=limiter,
    )
    results = run_batch(client, _embeddings(4), concurrency=4)
    assert [result.ok for result in results] == [True] * 4
    # 4 requests at 2 per 3 s: the last two waited for the window to move on
    assert now[0] >= 3.0 and waits
    for seen in server.requests:
        headers = _headers(seen)
        assert (headers["openai-organization"], headers["openai-project"]) == ("org-sync", "proj-sync")
        assert "tenant=t1" in seen.query


# 3 ------------------------------------------------------------------------------------------------


def test_the_batch_runner_calls_the_key_provider_for_every_attempt() -> None:
    calls: list[str] = []

    async def provider() -> str:
        calls.append("called")
        return KEY

    async def go(base_url: str) -> list[BatchResult]:
        async with AsyncClient(api_key=provider, base_url=base_url) as client:
            return await _run(client, _embeddings(3) + _chats(1))

    with LocalServer(api_key=KEY) as only_this_key:  # any other bearer (an empty one) is a 401
        results = anyio.run(go, only_this_key.base_url)
    assert [result.status_code for result in results] == [200] * 4
    assert len(calls) == 4  # a rotated key is picked up by the next attempt, never cached for the run


# 4 ------------------------------------------------------------------------------------------------


def test_a_batch_attempt_that_timed_out_after_sending_stays_as_uncertain_spend() -> None:
    async def go(base_url: str) -> tuple[list[BatchResult], Any]:
        async with AsyncClient(api_key=KEY, base_url=base_url, budget_usd=1.0) as client:
            results = await _run(client, _chats(1), max_retries=0, timeout=0.3)
            return results, client.usage.snapshot()

    with LocalServer(faults=[Fault.hang(5.0)], max_hang=5.0) as hanging:
        results, usage = anyio.run(go, hanging.base_url)
    assert results[0].error is not None and results[0].error["code"] == "timeout"
    assert usage.reserved_usd == 0
    assert usage.uncertain_requests == 1 and usage.uncertain_usd > 0  # kept as spent, never released


# 5 ------------------------------------------------------------------------------------------------


def _worst_case(body: dict[str, Any]) -> float:
    tracker = UsageTracker(budget_usd=100.0)
    tracker.reserve(body)
    return tracker.snapshot().reserved_usd


def test_a_batch_over_an_async_router_honours_a_targets_own_budget(server: LocalServer) -> None:
    server.reset()
    target = Target(server.base_url, api_key=KEY, budget_usd=_worst_case(CHAT) / 2)

    async def go() -> list[BatchResult]:
        router = AsyncRouter([target])
        try:
            return await _run(router, _chats(5), concurrency=1)
        finally:
            await router.close()

    results = anyio.run(go)
    assert [r.error["code"] if r.error else None for r in results] == ["budget_exceeded"] * 5
    assert server.requests == []  # nothing sent past the target's budget


def test_a_batch_over_an_async_router_charges_each_targets_usage(server: LocalServer) -> None:
    target = Target(server.base_url, api_key=KEY, budget_usd=10.0)

    async def go() -> tuple[list[BatchResult], Any, Any]:
        router = AsyncRouter([target])
        try:
            results = await _run(router, _chats(5), concurrency=2)
            return results, router.target_usage(target.name).snapshot(), router.stats()[target.name]
        finally:
            await router.close()

    results, usage, stats = anyio.run(go)
    assert all(result.ok for result in results)
    assert usage.models["gpt-4o-mini"].requests == 5 and usage.total_cost_usd > 0
    assert stats.cost_usd == usage.total_cost_usd and usage.reserved_usd == 0


# 6 ------------------------------------------------------------------------------------------------


def test_a_router_budget_settles_a_stream_dropped_unclosed(server: LocalServer) -> None:
    body = {**CHAT, "stream": True}
    with Router([Target(server.base_url, api_key=KEY)], budget_usd=_worst_case(CHAT) * 2.5) as router:
        stream = router.chat.completions.create(**body)
        next(iter(stream))
        del stream  # dropped without close(): its settlement is queued by a finaliser
        gc.collect()
        # settled, no longer held: what was read as a lower bound, the rest of its hold uncertain
        settled = router.usage.snapshot()
        answer = router.chat.completions.create(**CHAT)  # fits once the dropped stream is settled
    assert answer.choices[0].message.content
    assert (settled.reserved_usd, settled.lower_bound_requests) == (0.0, 1)
    assert settled.total_cost_usd == pytest.approx(_worst_case(body))


# 7 ------------------------------------------------------------------------------------------------


def test_router_stream_failover_sees_an_error_event_after_an_sse_comment(server: LocalServer) -> None:
    def overloaded(request: httpx2.Request) -> httpx2.Response:
        chunks = [
            b": PROCESSING\n\n",  # a keep-alive comment first, in its own network chunk
            b'data: {"error": {"message": "overloaded", "type": "server_error"}}\n\n',
        ]
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=_Chunks(chunks))

    busy = Target(
        "https://busy.test/v1",
        api_key=KEY,
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(overloaded)),
        fallbacks=[healthy := Target(server.base_url, api_key=KEY, weight=0)],
    )
    with Router([busy, healthy]) as router:
        stream = router.chat.completions.create(**{**CHAT, "stream": True})
        text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    assert stream._target == healthy.name  # type: ignore[attr-defined]
    assert text


class _Chunks(httpx2.SyncByteStream):
    """A body delivered in the given network chunks."""

    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks


# 8 ------------------------------------------------------------------------------------------------


def test_a_recorder_that_cannot_write_warns_once_and_never_fails_a_call(
    server: LocalServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    missing = tmp_path / "no-such-dir" / "sample.jsonl"
    with (
        caplog.at_level(logging.WARNING, logger="holyclient"),
        Client(api_key=KEY, base_url=server.base_url, record_to=missing) as client,
    ):
        for _ in range(3):
            assert client.chat.completions.create(**CHAT).choices
        warnings = client.usage.snapshot().warnings
    assert not missing.exists()
    assert [r.getMessage() for r in caplog.records if "recording" in r.getMessage()] == [
        f"holyclient: recording to {missing} stopped: No such file or directory"
    ]
    assert len(warnings) == 1 and "stopped" in warnings[0]
    assert KEY not in caplog.text


# 9 ------------------------------------------------------------------------------------------------


def test_a_recorder_write_that_fails_part_way_leaves_no_torn_line(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "sample.jsonl"
    real_write = os.write

    def disk_full_on_the_sample(fd: int, data: Any) -> int:
        if os.path.realpath(f"/proc/self/fd/{fd}") != str(path.resolve()):
            return real_write(fd, data)
        if len(data) > 20:
            return real_write(fd, bytes(data[:20]))  # a short write...
        raise OSError(errno.ENOSPC, "No space left on device")  # ...then the disk is full

    with Client(api_key=KEY, base_url=server.base_url, record_to=path) as client:
        client.chat.completions.create(**CHAT)  # one full line
        monkeypatch.setattr(os, "write", disk_full_on_the_sample)
        assert client.chat.completions.create(**CHAT).choices  # the call still succeeds
        monkeypatch.setattr(os, "write", real_write)
    with Client(api_key=KEY, base_url=server.base_url, record_to=path) as later:  # appends to the file
        later.chat.completions.create(**CHAT)
    lines = path.read_text().splitlines()
    assert len(lines) == 2
    assert all(json.loads(line)["url"] == "/v1/chat/completions" for line in lines)


def test_budget_refusals_are_reported_before_sending(server: LocalServer) -> None:
    """A budget a request cannot fit is refused with nothing sent (the pipeline's reserve step)."""
    server.reset()
    client = Client(api_key=KEY, base_url=server.base_url, budget_usd=_worst_case(CHAT) / 2)
    with client, pytest.raises(BudgetExceededError):
        client.chat.completions.create(**CHAT)
    assert server.requests == []


async def test_send_step_chains_are_kept_bounded_when_callers_make_new_tuples() -> None:
    """A pipeline keeps the chains it built per tuple of steps (a batch sends thousands through one);
    a caller that makes a new tuple per call must not grow that cache without bound."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json={"object": "list", "data": []})

    async def passing(prepared: Any, send: Any) -> Any:
        return await send(prepared)

    from holyclient._core import RequestOptions

    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    async with AsyncClient(api_key=KEY, http_client=http) as client:
        pipeline = client._pipeline
        for _ in range(50):
            steps = (functools.partial(passing),)  # a new tuple (and step) per call
            exchange = await pipeline.asend(RequestOptions("GET", "/models"), steps=steps)
            assert exchange.response.status_code == 200
            assert len(pipeline._chains) <= 8
        kept = (passing,)
        first = pipeline._chain(kept)
        assert pipeline._chain(kept) is first  # a tuple used again finds its chain
    await http.aclose()
