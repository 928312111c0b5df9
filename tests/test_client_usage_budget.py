"""The client's usage tracker and budget guard, through real calls to the local server."""

from __future__ import annotations

import asyncio
import threading

import pytest

from holyclient import AsyncClient, BudgetExceededError, Client
from holyclient.pricing._tracker import UsageTracker
from holyclient.testing import Fault, LocalServer

pytest_plugins = ["holyclient.testing.pytest_plugin"]

USER = [{"role": "user", "content": "count my tokens please"}]


def test_usage_is_summed_per_model_with_cost(holyclient_server: LocalServer):
    with Client(api_key="sk-t", base_url=holyclient_server.base_url) as client:
        for _ in range(3):
            client.chat.completions.create(model="gpt-4.1", messages=USER)
        with client.chat.completions.create(
            model="deepseek-v3.2", messages=USER, stream=True, stream_options={"include_usage": True}
        ) as stream:
            list(stream)
        snap = client.usage.snapshot()
    assert snap.models["gpt-4.1"].requests == 3
    assert snap.models["deepseek-v3.2"].requests == 1
    # every usage the server reported was recorded, nothing twice
    assert sum(m.prompt_tokens for m in snap.models.values()) == holyclient_server.stats["prompt_tokens"]
    assert snap.total_cost_usd > 0


def test_usage_tracker_is_shared_and_thread_safe(holyclient_server: LocalServer):
    with Client(api_key="sk-t", base_url=holyclient_server.base_url) as client:
        copy = client.with_options(timeout=10)

        def work(c: Client) -> None:
            for _ in range(10):
                c.chat.completions.create(model="gpt-4.1-mini", messages=USER)

        threads = [threading.Thread(target=work, args=(c,)) for c in (client, copy, client, copy)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert client.usage.snapshot().models["gpt-4.1-mini"].requests == 40


async def test_async_usage_is_tracked_across_tasks(holyclient_server: LocalServer):
    async with AsyncClient(api_key="sk-t", base_url=holyclient_server.base_url) as client:
        await asyncio.gather(
            *(client.chat.completions.create(model="gpt-4o", messages=USER) for _ in range(20))
        )
        assert client.usage.snapshot().models["gpt-4o"].requests == 20


def test_budget_refuses_before_sending_and_names_the_numbers(holyclient_server: LocalServer):
    with Client(api_key="sk-t", base_url=holyclient_server.base_url, budget_usd=0.001) as client:
        client.chat.completions.create(model="gpt-4.1", messages=USER, max_tokens=10)
        with pytest.raises(BudgetExceededError) as info:
            client.chat.completions.create(model="gpt-4.1", messages=USER, max_tokens=100_000)
        assert info.value.requested_usd > info.value.remaining_usd
        assert "budget" in str(info.value)
    assert len(holyclient_server.requests) == 1  # the refused request never left


def test_a_failed_request_releases_its_budget_hold_and_a_stream_left_early_is_charged_what_it_used(
    holyclient_server: LocalServer,
):
    holyclient_server.enqueue(Fault.status(400))
    with Client(api_key="sk-t", base_url=holyclient_server.base_url, budget_usd=1.0, max_retries=0) as client:
        with pytest.raises(Exception, match="400"):
            client.chat.completions.create(model="gpt-4.1", messages=USER, max_tokens=50)
        assert client.usage.remaining_usd == pytest.approx(1.0)
        with client.chat.completions.create(model="gpt-4.1", messages=USER, max_tokens=50, stream=True) as s:
            next(iter(s))  # left early, without a usage chunk: charged what was counted locally
        snapshot = client.usage.snapshot()
        assert snapshot.reserved_usd == 0.0
        assert snapshot.models["gpt-4.1"].approximate_requests == 1
        worst = (
            UsageTracker().reserve({"model": "gpt-4.1", "messages": USER, "max_tokens": 50}).worst_case_usd
        )
        assert 0.0 < snapshot.total_cost_usd < worst
