"""A cancelled call that was already sent may have been billed: its hold is kept as uncertain spend.

``asyncio.wait_for``, ``asyncio.timeout`` and ``task.cancel()`` cut a call the same way the client's own
``timeout=`` does, but by cancelling the task: the request had left, so the server may have done (and
billed) the work. A budget-capped client must not give the hold back, or it could spend without limit
while its snapshot reads $0. A cancellation before the request left (waiting for the limiter) releases it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest

from holyclient import AsyncClient
from holyclient.batch import BatchRequest, BatchRunner
from holyclient.pricing import UsageTracker
from holyclient.ratelimit import LocalLimiter
from support import KEY, completion

MESSAGES = [{"role": "user", "content": "hi"}]
BODY = {"model": "gpt-4.1", "messages": MESSAGES, "max_tokens": 100}
HOLD = UsageTracker().reserve(BODY).worst_case_usd


def _hanging(started: asyncio.Event) -> Callable[[httpx2.Request], Awaitable[httpx2.Response]]:
    async def handler(request: httpx2.Request) -> httpx2.Response:
        started.set()  # the request has reached the server
        await asyncio.sleep(30)
        return httpx2.Response(200, json=completion())

    return handler


def _client(handler: Any, **kwargs: Any) -> AsyncClient:
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    return AsyncClient(api_key=KEY, http_client=http, max_retries=0, **kwargs)


async def _create(client: AsyncClient) -> Any:
    return await client.chat.completions.create(model="gpt-4.1", messages=MESSAGES, max_tokens=100)


async def _wait_for(client: AsyncClient, started: asyncio.Event) -> None:
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(_create(client), timeout=0.2)


async def _timeout(client: AsyncClient, started: asyncio.Event) -> None:
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.2):
            await _create(client)


async def _task_cancel(client: AsyncClient, started: asyncio.Event) -> None:
    task = asyncio.ensure_future(_create(client))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


@pytest.mark.parametrize("cancel", [_wait_for, _timeout, _task_cancel], ids=["wait_for", "timeout", "cancel"])
async def test_a_call_cancelled_after_it_was_sent_keeps_its_hold_as_uncertain_spend(
    cancel: Callable[[AsyncClient, asyncio.Event], Awaitable[None]],
) -> None:
    started = asyncio.Event()
    client = _client(_hanging(started), budget_usd=1.0)
    await cancel(client, started)
    snapshot = client.usage.snapshot()
    assert started.is_set()
    assert snapshot.reserved_usd == 0.0
    assert snapshot.uncertain_usd == pytest.approx(HOLD)
    assert snapshot.remaining_usd == pytest.approx(1.0 - HOLD)
    assert snapshot.models["gpt-4.1"].uncertain_requests == 1
    await client.close()


async def test_a_client_without_a_budget_still_shows_a_cancelled_calls_possible_spend() -> None:
    started = asyncio.Event()
    client = _client(_hanging(started))
    await _wait_for(client, started)
    snapshot = client.usage.snapshot()
    assert snapshot.uncertain_usd == pytest.approx(HOLD) and snapshot.uncertain_requests == 1
    await client.close()


async def test_cancelled_calls_cannot_spend_past_the_budget() -> None:
    """The repro: a $0.01 budget, calls cut by ``wait_for`` in a loop. Each keeps its hold, so the
    budget runs out after as many calls as it can hold and the next one is refused before sending."""
    started = asyncio.Event()
    sent: list[int] = []

    async def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(1)
        return await _hanging(started)(request)

    client = _client(handler, budget_usd=10 * HOLD + HOLD / 2)
    refused = 0
    for _ in range(15):
        try:
            await asyncio.wait_for(_create(client), timeout=0.05)
        except TimeoutError:
            pass
        except Exception as exc:  # BudgetExceededError
            assert type(exc).__name__ == "BudgetExceededError"
            refused += 1
    assert len(sent) == 10 and refused == 5
    assert client.usage.snapshot().uncertain_usd == pytest.approx(10 * HOLD)
    await client.close()


async def test_a_call_cancelled_while_waiting_for_the_limiter_was_never_sent_and_releases_its_hold() -> None:
    sent: list[int] = []

    async def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(1)
        return httpx2.Response(200, json=completion())

    limiter = LocalLimiter(rpm=1)
    client = _client(handler, budget_usd=1.0, limiter=limiter)
    await _create(client)  # takes the minute's one request
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(_create(client), timeout=0.1)  # cancelled while the limiter makes it wait
    snapshot = client.usage.snapshot()
    assert len(sent) == 1
    assert snapshot.uncertain_usd == 0.0 and snapshot.reserved_usd == 0.0
    await client.close()


async def test_a_batch_run_cancelled_with_requests_in_flight_keeps_their_holds_as_uncertain() -> None:
    started = asyncio.Event()
    client = _client(_hanging(started), budget_usd=1.0)
    runner = BatchRunner(client, concurrency=3, max_retries=0)
    requests = [BatchRequest(f"r{i}", BODY) for i in range(3)]
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(runner.run(requests, lambda result: None), timeout=0.3)
    snapshot = client.usage.snapshot()
    assert snapshot.reserved_usd == 0.0
    assert snapshot.uncertain_requests == 3
    assert snapshot.uncertain_usd == pytest.approx(3 * HOLD)
    await client.close()
