"""BatchRunner against mock transports: results, retries outside the slot, failures, cancellation, laziness."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import httpx2
import pytest

from holyclient import AsyncClient, Client
from holyclient.batch import BatchRequest, BatchResult, BatchRunner, run_batch
from support import KEY, completion


def _prompt(request: httpx2.Request) -> str:
    return str(json.loads(request.content)["messages"][-1]["content"])


def _echo(request: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(
        200, json=completion(f"Echo: {_prompt(request)}"), headers={"x-request-id": "req_1"}
    )


def _client(handler: Callable[[httpx2.Request], Any]) -> AsyncClient:
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    return AsyncClient(api_key=KEY, http_client=http)


def _requests(n: int) -> list[BatchRequest]:
    return [
        BatchRequest(f"r{i}", {"model": "gpt-4.1", "messages": [{"role": "user", "content": f"p{i}"}]})
        for i in range(n)
    ]


async def _no_wait(seconds: float) -> None:
    await anyio.lowlevel.checkpoint()


async def _collect(runner: BatchRunner, requests: Any) -> list[BatchResult]:
    results: list[BatchResult] = []
    await runner.run(requests, results.append)
    return results


async def test_every_request_gets_one_result_in_batch_api_format() -> None:
    runner = BatchRunner(_client(_echo), concurrency=4)
    results = await _collect(runner, _requests(20))
    assert sorted(r.custom_id for r in results) == sorted(f"r{i}" for i in range(20))
    line = next(r for r in results if r.custom_id == "r3").output_line()
    assert line["id"].startswith("batch_req_")
    assert line["error"] is None
    assert line["response"]["status_code"] == 200
    assert line["response"]["request_id"] == "req_1"
    assert line["response"]["body"]["choices"][0]["message"]["content"] == "Echo: p3"
    assert runner.stats.succeeded == 20
    assert runner.stats.models["gpt-4.1"].prompt_tokens == 100


async def test_a_failing_request_is_recorded_and_never_aborts_the_batch() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        if _prompt(request) == "p2":
            return httpx2.Response(400, json={"error": {"message": "bad", "type": "invalid_request_error"}})
        return _echo(request)

    runner = BatchRunner(_client(handler), concurrency=2, sleep=_no_wait)
    results = {r.custom_id: r for r in await _collect(runner, _requests(6))}
    assert len(results) == 6
    failed = results["r2"]
    assert not failed.ok and failed.attempts == 1  # a 400 is not retried
    line = failed.output_line()
    assert line["response"]["status_code"] == 400
    assert line["response"]["body"]["error"]["message"] == "bad"
    assert line["error"] is None
    assert runner.stats.failed == 1 and runner.stats.succeeded == 5


async def test_transient_errors_are_retried_with_the_policy_delays() -> None:
    calls: dict[str, int] = {}
    delays: list[float] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        prompt = _prompt(request)
        calls[prompt] = calls.get(prompt, 0) + 1
        if calls[prompt] == 1:
            return httpx2.Response(429, json={"error": {"message": "slow"}}, headers={"retry-after": "3"})
        if calls[prompt] == 2:
            return httpx2.Response(200, content=b'{"id": "cut')  # malformed 200: retried
        return _echo(request)

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    runner = BatchRunner(_client(handler), concurrency=2, sleep=sleep)
    results = await _collect(runner, _requests(3))
    assert all(r.ok and r.attempts == 3 for r in results)
    assert delays.count(3.0) == 3  # Retry-After honoured
    assert runner.stats.retries == 6 and runner.stats.rate_limited == 3


async def test_exhausted_retries_leave_an_error_without_response() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    runner = BatchRunner(_client(handler), concurrency=2, max_retries=2, sleep=_no_wait)
    (result,) = await _collect(runner, _requests(1))
    assert result.attempts == 3
    line = result.output_line()
    assert line["response"] is None
    assert line["error"]["code"] == "connection_error"
    assert KEY not in json.dumps(line)


async def test_malformed_body_after_all_retries_is_an_error_with_its_response() -> None:
    runner = BatchRunner(
        _client(lambda r: httpx2.Response(200, content=b"<html>")), max_retries=1, sleep=_no_wait
    )
    (result,) = await _collect(runner, _requests(1))
    line = result.output_line()
    assert line["error"]["code"] == "invalid_response"
    assert line["response"]["status_code"] == 200
    assert not result.ok


async def test_a_request_waiting_to_retry_does_not_hold_its_slot() -> None:
    order: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        prompt = _prompt(request)
        order.append(prompt)
        if prompt == "p0" and order.count("p0") == 1:
            return httpx2.Response(503, json={"error": {"message": "busy"}}, headers={"retry-after": "0.2"})
        return _echo(request)

    runner = BatchRunner(_client(handler), concurrency=1)
    results = await _collect(runner, _requests(3))
    assert all(r.ok for r in results)
    # with one slot, p1 and p2 went out while p0 waited its 0.2 s
    assert order == ["p0", "p1", "p2", "p0"]


async def test_input_is_pulled_lazily_with_a_bounded_number_pending() -> None:
    pulled = 0
    release = anyio.Event()

    def source() -> Iterator[BatchRequest]:
        nonlocal pulled
        for request in _requests(1000):
            pulled += 1
            yield request

    async def handler(request: httpx2.Request) -> httpx2.Response:
        await release.wait()
        return _echo(request)

    runner = BatchRunner(_client(handler), concurrency=4, max_pending=8)
    results: list[BatchResult] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(runner.run, source(), results.append)
        with anyio.fail_after(
            5
        ):  # poll, not a fixed sleep: a loaded machine may take a while to fill the slots
            while runner._slots.in_use < 4:
                await anyio.sleep(0.01)
        await anyio.sleep(0.05)
        assert pulled <= 9  # max_pending plus the one waiting for room
        assert runner._slots.in_use == 4
        release.set()
    assert len(results) == 1000


async def test_cancelling_stops_sending_and_delivers_only_complete_results() -> None:
    sent = 0

    async def handler(request: httpx2.Request) -> httpx2.Response:
        nonlocal sent
        sent += 1
        await anyio.sleep(0.01 if int(_prompt(request)[1:]) < 5 else 10)
        return _echo(request)

    runner = BatchRunner(_client(handler), concurrency=8)
    results: list[BatchResult] = []
    with anyio.move_on_after(0.3):
        await runner.run(_requests(100), results.append)
    sent_at_cancel = sent
    await anyio.sleep(0.05)
    assert sent == sent_at_cancel <= 8 + 5 + 8
    assert results and all(r.ok for r in results)
    assert runner.stats.done == len(results)


async def test_results_can_be_iterated_as_they_complete() -> None:
    runner = BatchRunner(_client(_echo), concurrency=3)
    seen = []
    async with runner.results(_requests(10)) as results:
        async for result in results:
            seen.append(result.custom_id)
    assert sorted(seen) == sorted(f"r{i}" for i in range(10))


async def test_leaving_the_results_block_early_cancels_the_rest() -> None:
    runner = BatchRunner(_client(_echo), concurrency=2)
    async with runner.results(_requests(500)) as results:
        async for _ in results:
            break
    assert runner.stats.done < 500


def test_run_batch_from_sync_code_returns_results_in_input_order() -> None:
    client = _client(_echo)
    bodies = [{"model": "gpt-4.1", "messages": [{"role": "user", "content": f"q{i}"}]} for i in range(12)]
    results = run_batch(client, bodies, concurrency=4)
    assert [r.custom_id for r in results] == [str(i) for i in range(1, 13)]
    assert [r.body["choices"][0]["message"]["content"] for r in results] == [f"Echo: q{i}" for i in range(12)]


def test_run_batch_rejects_duplicate_custom_ids() -> None:
    requests = _requests(2) + _requests(1)
    with pytest.raises(ValueError, match="unique"):
        run_batch(_client(_echo), requests)


def test_run_batch_refuses_a_sync_clients_own_transport_rather_than_bypassing_it() -> None:
    client = Client(api_key=KEY, http_client=httpx2.Client(transport=httpx2.MockTransport(_echo)))
    with pytest.raises(TypeError, match="AsyncClient"):
        run_batch(client, _requests(1))


async def test_usage_lands_on_the_clients_tracker() -> None:
    client = _client(_echo)
    await _collect(BatchRunner(client, concurrency=3), _requests(7))
    usage = client.usage.snapshot().models["gpt-4.1"]
    assert (usage.requests, usage.prompt_tokens, usage.completion_tokens) == (7, 35, 7)


async def test_a_request_over_the_budget_is_refused_before_sending_and_recorded() -> None:
    sent: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        return _echo(request)

    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    client = AsyncClient(api_key=KEY, http_client=http, budget_usd=1e-9)
    results = await _collect(BatchRunner(client, concurrency=2), _requests(3))
    assert not sent
    assert [r.error["code"] for r in results if r.error] == ["budget_exceeded"] * 3
    assert all(r.output_line()["response"] is None for r in results)


async def test_isolated_failures_retry_soon_but_later_retries_wait_the_full_backoff() -> None:
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(500, json={"error": {"message": "boom"}})

    runner = BatchRunner(_client(handler), concurrency=2, max_retries=8, sleep=sleep)
    (result,) = await _collect(runner, _requests(1))
    assert result.attempts == 9 and not result.ok
    # the first failures look isolated: a fifth of the policy's 0.5 s and 1 s; as they keep coming the
    # share of failures rises and so does the wait
    assert delays[0] <= 0.1 and delays[1] <= 0.25 and delays[1] < delays[2] < 2.0
    assert delays[6] >= 0.75 * 8.0 and delays[7] >= 0.75 * 8.0  # the last ones: the policy's own backoff


async def test_a_request_unlucky_among_many_successes_keeps_retrying_soon() -> None:
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)
        await anyio.lowlevel.checkpoint()

    failures = {"p99": 4}

    def handler(request: httpx2.Request) -> httpx2.Response:
        prompt = _prompt(request)
        if failures.get(prompt, 0) > 0:
            failures[prompt] -= 1
            return httpx2.Response(502, json={"error": {"message": "bad gateway"}})
        return _echo(request)

    runner = BatchRunner(_client(handler), concurrency=64, sleep=sleep)
    results = await _collect(runner, _requests(100))
    assert all(r.ok for r in results)
    # four faults in a row on one request while the others succeed: each wait stays a fifth of the
    # policy's first backoff (0.5 s), instead of growing 0.1 -> 0.2 -> 0.4 -> 0.8 s
    assert len(delays) == 4 and all(d <= 0.1 for d in delays)


async def test_a_run_reuses_a_few_workers_instead_of_a_task_per_request() -> None:
    """A task per request cost the fast path more CPU than any other part of ours; a worker takes the
    next request when it is done with one, and one more starts only while all are busy."""
    import asyncio

    loop = asyncio.get_running_loop()
    created = 0
    previous = loop.get_task_factory()

    def counting(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        nonlocal created
        created += 1
        return asyncio.Task(coro, loop=loop, **kwargs)

    loop.set_task_factory(counting)
    try:
        runner = BatchRunner(_client(_echo), concurrency=4)
        results = await _collect(runner, _requests(200))
    finally:
        loop.set_task_factory(previous)
    assert sorted(int(r.custom_id[1:]) for r in results) == list(range(200))
    assert created <= 4 * 4 + 1  # at most max_pending workers, never one per request
