"""A sync and an async client share one usage tracker, and so one budget: ``AsyncClient(usage=client.usage)``.

The LangChain and LlamaIndex recipes need both clients (the framework calls the sync one from ``invoke``
and the async one from ``ainvoke``). Built as ``Client(budget_usd=X)`` and ``AsyncClient(budget_usd=X)``,
one app had two budgets and spent 151% of X, and ``client.usage`` missed every async call. Sharing the
tracker gives the app one budget and one set of totals, the openai clients they hand out included.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

import pytest

from holyclient import AsyncClient, BudgetExceededError, Client, UsageTracker
from holyclient.testing import LocalServer

KEY = "sk-shared-usage-0123456789"
# answered by its echo, cut at max_tokens; the local server bills fewer prompt tokens than tiktoken counts
# for it (4 characters a token), so no answer costs more than its hold and the budget is never passed
MESSAGES = [{"role": "user", "content": "7 " * 300}]
CALL = {"model": "gpt-4.1", "messages": MESSAGES, "max_tokens": 100}  # about $0.0011 a call
BUDGET = 0.01


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer(api_key=KEY) as running:
        yield running


def _pair(server: LocalServer) -> tuple[Client, AsyncClient]:
    client = Client(api_key=KEY, base_url=server.base_url, budget_usd=BUDGET, max_retries=0)
    aclient = AsyncClient(api_key=KEY, base_url=server.base_url, usage=client.usage, max_retries=0)
    return client, aclient


def test_one_app_spends_at_most_its_budget_across_a_sync_and_an_async_client(server: LocalServer) -> None:
    client, aclient = _pair(server)
    served = {"sync": 0, "async": 0}
    refused = set()

    async def async_call() -> None:
        await aclient.chat.completions.create(**CALL)

    loop = asyncio.new_event_loop()
    try:
        for _ in range(40):  # the app alternates between its two clients until both are refused
            for side in ("sync", "async"):
                try:
                    client.chat.completions.create(**CALL) if side == "sync" else loop.run_until_complete(
                        async_call()
                    )
                    served[side] += 1
                except BudgetExceededError:
                    refused.add(side)
            if refused == {"sync", "async"}:
                break
        loop.run_until_complete(aclient.close())
    finally:
        loop.close()
        client.close()
    snapshot = client.usage.snapshot()
    assert refused == {"sync", "async"} and served["sync"] > 0 and served["async"] > 0
    assert snapshot.total_cost_usd <= BUDGET  # before: each client had its own BUDGET
    assert aclient.usage is client.usage
    assert snapshot.models["gpt-4.1"].requests == served["sync"] + served["async"]  # both seen


def test_concurrent_sync_threads_and_async_tasks_share_the_budget(server: LocalServer) -> None:
    client, aclient = _pair(server)

    def sync_worker() -> None:
        for _ in range(10):
            try:
                client.chat.completions.create(**CALL)
            except BudgetExceededError:
                return

    async def async_side() -> None:
        async def one() -> None:
            with contextlib.suppress(BudgetExceededError):
                await aclient.chat.completions.create(**CALL)

        await asyncio.gather(*(one() for _ in range(20)))
        await aclient.close()

    threads = [threading.Thread(target=sync_worker) for _ in range(3)]
    for thread in threads:
        thread.start()
    asyncio.run(async_side())
    for thread in threads:
        thread.join()
    client.close()
    snapshot = client.usage.snapshot()
    assert 0 < snapshot.total_cost_usd <= BUDGET and snapshot.reserved_usd == 0.0


def test_the_openai_clients_they_hand_out_charge_the_one_tracker(server: LocalServer) -> None:
    pytest.importorskip("openai")
    client, aclient = _pair(server)
    sync, asynchronous = client.as_openai(), aclient.as_openai()
    sync.chat.completions.create(**CALL)

    async def run() -> None:
        await asynchronous.chat.completions.create(**CALL)
        await aclient.close()

    asyncio.run(run())
    client.close()
    assert client.usage.snapshot().models["gpt-4.1"].requests == 2


def test_a_tracker_made_first_is_given_to_both_and_its_budget_applies(server: LocalServer) -> None:
    server.reset()
    tracker = UsageTracker(budget_usd=0.0)
    client = Client(api_key=KEY, base_url=server.base_url, usage=tracker)
    with client, pytest.raises(BudgetExceededError):
        client.chat.completions.create(**CALL)
    aclient = AsyncClient(api_key=KEY, base_url=server.base_url, usage=tracker)
    with pytest.raises(BudgetExceededError):
        asyncio.run(aclient.chat.completions.create(**CALL))
    assert server.stats["requests"] == 0


@pytest.mark.parametrize(
    "given", [{"budget_usd": 1.0}, {"budget_policy": "worst_case"}, {"calibration": "calibration.json"}]
)
def test_a_shared_tracker_refuses_budget_settings_of_its_own(given: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="usage= shares a tracker"):
        AsyncClient(api_key=KEY, usage=UsageTracker(budget_usd=1.0), **given)  # type: ignore[arg-type]


def test_usage_takes_a_tracker() -> None:
    with pytest.raises(TypeError, match="UsageTracker"):
        Client(api_key=KEY, usage=5.0)  # type: ignore[arg-type]
