"""The client's usage tracker and budget guard, through real calls to the local server."""

from __future__ import annotations

import asyncio
import threading

import pytest

from holyclient import AsyncClient, BadRequestError, BudgetExceededError, Client
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


def test_a_failed_request_releases_its_budget_hold_and_a_stream_left_early_keeps_it_as_a_lower_bound(
    holyclient_server: LocalServer,
):
    holyclient_server.enqueue(Fault.status(400))
    with Client(api_key="sk-t", base_url=holyclient_server.base_url, budget_usd=1.0, max_retries=0) as client:
        with pytest.raises(BadRequestError, match="400"):
            client.chat.completions.create(model="gpt-4.1", messages=USER, max_tokens=50)
        assert client.usage.remaining_usd == pytest.approx(1.0)
        with client.chat.completions.create(model="gpt-4.1", messages=USER, max_tokens=50, stream=True) as s:
            next(iter(s))  # left early, without a usage chunk: what was read, a lower bound
        snapshot = client.usage.snapshot()
        assert snapshot.reserved_usd == 0.0
        assert snapshot.models["gpt-4.1"].approximate_requests == 1
        assert snapshot.lower_bound_requests == 1
        worst = (
            UsageTracker().reserve({"model": "gpt-4.1", "messages": USER, "max_tokens": 50}).worst_case_usd
        )
        # what was read, and the rest of the hold as uncertain spend: the server may have generated it
        assert 0.0 < snapshot.uncertain_usd < worst
        assert snapshot.total_cost_usd == pytest.approx(worst)


# --- every billed endpoint holds against the budget, by its declaration --------------------------


def test_a_spent_budget_refuses_an_embeddings_call_before_sending(holyclient_server: LocalServer):
    """An embeddings call holds its input tokens: a $0.0001 budget ($0.02 per 1M tokens: 5,000
    tokens) refuses a 20,000-token input instead of being overrun."""
    before = len(holyclient_server.requests)
    with Client(api_key="sk-t", base_url=holyclient_server.base_url, budget_usd=0.0001) as client:
        with pytest.raises(BudgetExceededError) as info:
            client.embeddings.create(model="text-embedding-3-small", input="token " * 20_000)
        assert "0 output" in str(info.value) and "text-embedding-3-small" in str(info.value)
        client.embeddings.create(model="text-embedding-3-small", input="a few tokens")  # fits
        assert client.usage.snapshot().total_cost_usd <= 0.0001
    assert len(holyclient_server.requests) - before == 1


async def test_a_batch_of_embeddings_on_a_spent_budget_sends_nothing(holyclient_server: LocalServer):
    from holyclient.batch import BatchRequest, BatchRunner

    before = len(holyclient_server.requests)
    async with AsyncClient(api_key="sk-t", base_url=holyclient_server.base_url, budget_usd=0.0) as client:
        runner = BatchRunner(client, concurrency=2, max_retries=0)
        body = {"model": "text-embedding-3-small", "input": "hello"}
        results = []
        requests = [BatchRequest(f"r{i}", body, url="/v1/embeddings") for i in range(10)]
        await runner.run(requests, results.append)
    assert len(results) == 10 and all(r.error and r.error["code"] == "budget_exceeded" for r in results)
    assert len(holyclient_server.requests) == before


def test_a_stored_prompt_template_is_sent_with_a_budget_and_counted_without_its_template(
    holyclient_server: LocalServer,
):
    """``prompt`` in a Responses call is a stored template reference, not a completion's prompt: the
    counter reads the body as a Responses call (told the path) and the call goes out as openai's does."""
    with Client(api_key="sk-t", base_url=holyclient_server.base_url, budget_usd=1.0) as client:
        for model in ("gpt-4.1", "claude-sonnet-4.5"):
            client.responses.create(model=model, prompt={"id": "pmpt_123", "version": "2"}, input="hi")
        no_budget = client.with_options()
    with Client(api_key="sk-t", base_url=holyclient_server.base_url) as client:
        client.responses.create(model="claude-sonnet-4.5", prompt={"id": "pmpt_123"})
    assert no_budget.usage.snapshot().models["claude-sonnet-4.5"].requests == 1
    sent = [r for r in holyclient_server.requests if r.path == "/v1/responses"]
    assert sent[-1].body["prompt"] == {"id": "pmpt_123"}


def test_a_retrieved_stored_completion_is_not_charged_again(holyclient_server: LocalServer):
    with Client(api_key="sk-t", base_url=holyclient_server.base_url) as client:
        made = client.chat.completions.create(model="gpt-4.1", messages=USER, store=True)
        once = client.usage.snapshot()
        again = client.chat.completions.retrieve(made.id)
        assert again.usage is not None  # the answer repeats the usage billed when it was made
        assert client.usage.snapshot() == once
