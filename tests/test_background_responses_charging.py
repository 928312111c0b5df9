"""A background response stays held until its usage is known, and is charged then, once.

``responses.create(background=True)`` answers ``status: "queued"`` with ``usage: null``: the work happens
later. Before, that answer released the hold and retrieving the finished response was free, so
background work passed any budget and showed as $0. Now the hold is kept, under the response's id,
until an answer shows how the response ended: retrieving it (or replaying its stream) charges its
usage; cancelling or deleting it without usage keeps the hold as uncertain spend. The local server
answers ``background`` requests as queued and completes them as they are polled.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from holyclient import AsyncClient, BudgetExceededError, Client
from holyclient.pricing import cost_from_usage
from holyclient.testing import LocalServer

KEY = "sk-background-0123456789"
MODEL = "gpt-4.1"
PROMPT = "Write a long story about otters in space."


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer(api_key=KEY) as running:
        yield running


def _client(server: LocalServer, budget: float | None = None) -> Client:
    return Client(api_key=KEY, base_url=server.base_url, budget_usd=budget, max_retries=0)


def _poll(client: Client, response_id: str) -> Any:
    response = client.responses.retrieve(response_id)
    for _ in range(5):
        if response.status not in ("queued", "in_progress"):
            return response
        response = client.responses.retrieve(response_id)
    raise AssertionError(f"{response_id} never finished")


def test_the_local_server_answers_a_background_request_queued_and_completes_it_as_it_is_polled(
    server: LocalServer,
) -> None:
    with _client(server) as client:
        queued = client.responses.create(model=MODEL, input=PROMPT, background=True)
        statuses = [client.responses.retrieve(queued.id).status for _ in range(3)]
        done = client.responses.retrieve(queued.id)
    assert (queued.status, queued.usage, queued.output) == ("queued", None, [])
    assert statuses == ["in_progress", "completed", "completed"]
    assert done.usage is not None and done.usage.output_tokens > 0 and done.output_text


@pytest.mark.parametrize("budget", [None, 5.0], ids=["no budget", "budget"])
def test_a_background_response_is_held_until_retrieved_finished_then_charged_once(
    server: LocalServer, budget: float | None
) -> None:
    with _client(server, budget) as client:
        queued = client.responses.create(model=MODEL, input=PROMPT, background=True)
        while_running = client.usage.snapshot()
        done = _poll(client, queued.id)
        client.responses.retrieve(queued.id)  # retrieved again: charged once only
        after = client.usage.snapshot()
    assert done.usage is not None
    cost = cost_from_usage(MODEL, done.usage).cost_usd
    assert after.total_cost_usd == pytest.approx(cost) and cost > 0  # before: $0
    if budget is not None:  # its hold stays against the budget while it runs
        assert while_running.reserved_usd > 0
    assert while_running.pending_requests == 1 and while_running.total_cost_usd == 0.0
    assert (
        after.models[MODEL].requests == 1
        and after.models[MODEL].completion_tokens == done.usage.output_tokens
    )
    assert (after.pending_requests, after.reserved_usd, after.uncertain_requests) == (0, 0.0, 0)


def test_background_work_cannot_pass_the_budget(server: LocalServer) -> None:
    """Before, each queued answer released its hold: every request went through and cost $0."""
    budget = 0.05
    created = []
    with _client(server, budget) as client:
        with pytest.raises(BudgetExceededError):
            for _ in range(40):
                created.append(client.responses.create(model=MODEL, input=PROMPT, background=True).id)
        held = client.usage.snapshot()
        for response_id in created:
            _poll(client, response_id)
        after = client.usage.snapshot()
    assert 0 < len(created) < 40 and held.pending_requests == len(created)
    assert held.reserved_usd <= budget and after.pending_requests == 0
    assert 0 < after.total_cost_usd <= budget


def test_a_replayed_stream_of_a_background_response_charges_it_once(server: LocalServer) -> None:
    with _client(server, 5.0) as client:
        queued = client.responses.create(model=MODEL, input=PROMPT, background=True)
        with client.responses.retrieve(queued.id, stream=True) as stream:
            events = list(stream)
        client.responses.retrieve(queued.id)
        after = client.usage.snapshot()
    final = events[-1].response
    assert events[-1].type == "response.completed" and final.usage is not None
    assert after.total_cost_usd == pytest.approx(cost_from_usage(MODEL, final.usage).cost_usd)
    assert (after.models[MODEL].requests, after.pending_requests, after.reserved_usd) == (1, 0, 0.0)


@pytest.mark.parametrize("end", ["cancel", "delete"])
def test_a_background_response_stopped_without_usage_keeps_its_hold_as_uncertain_spend(
    server: LocalServer, end: str
) -> None:
    with _client(server, 5.0) as client:
        queued = client.responses.create(model=MODEL, input=PROMPT, background=True)
        held = client.usage.snapshot().reserved_usd
        if end == "cancel":
            assert client.responses.cancel(queued.id).status == "cancelled"
        else:
            client.responses.delete(queued.id)
        after = client.usage.snapshot()
    assert held > 0
    assert (after.uncertain_requests, after.pending_requests, after.reserved_usd) == (1, 0, 0.0)
    assert after.uncertain_usd == pytest.approx(held) and after.total_cost_usd == pytest.approx(held)


def test_a_background_stream_left_early_stays_held_until_the_response_is_retrieved(
    server: LocalServer,
) -> None:
    """The response runs on after the caller leaves its stream: what was read is not what it costs."""
    with _client(server, 5.0) as client:
        with client.responses.create(model=MODEL, input=PROMPT, background=True, stream=True) as stream:
            first = next(iter(stream))
        left = client.usage.snapshot()
        done = _poll(client, first.response.id)
        after = client.usage.snapshot()
    assert first.type == "response.created"
    assert left.reserved_usd > 0 and left.total_cost_usd == 0.0  # before: settled at what was read
    assert left.pending_requests == 1 and done.usage is not None
    assert after.total_cost_usd == pytest.approx(cost_from_usage(MODEL, done.usage).cost_usd)
    assert after.approximate is False and after.pending_requests == 0


def test_a_background_response_is_charged_when_retrieved_through_as_openai(server: LocalServer) -> None:
    pytest.importorskip("openai")
    with _client(server, 5.0) as client:
        openai_client = client.as_openai()
        queued = openai_client.responses.create(model=MODEL, input=PROMPT, background=True)
        held = client.usage.snapshot()
        done = openai_client.responses.retrieve(queued.id)
        while done.status in ("queued", "in_progress"):
            done = openai_client.responses.retrieve(queued.id)
        after = client.usage.snapshot()
    assert done.usage is not None
    assert after.total_cost_usd == pytest.approx(cost_from_usage(MODEL, done.usage.model_dump()).cost_usd)
    assert held.reserved_usd > 0 and held.pending_requests == 1
    assert after.pending_requests == 0 and after.reserved_usd == 0.0


async def test_an_async_client_holds_and_charges_a_background_response_alike(server: LocalServer) -> None:
    async with AsyncClient(api_key=KEY, base_url=server.base_url, budget_usd=5.0, max_retries=0) as client:
        queued = await client.responses.create(model=MODEL, input=PROMPT, background=True)
        held = client.usage.snapshot()
        done = await client.responses.retrieve(queued.id)
        while done.status in ("queued", "in_progress"):
            done = await client.responses.retrieve(queued.id)
        after = client.usage.snapshot()
    assert done.usage is not None
    assert after.total_cost_usd == pytest.approx(cost_from_usage(MODEL, done.usage).cost_usd)
    assert held.reserved_usd > 0 and held.pending_requests == 1
    assert (after.pending_requests, after.reserved_usd) == (0, 0.0)


def test_a_response_another_client_created_is_not_charged_when_retrieved(server: LocalServer) -> None:
    with _client(server) as maker, _client(server, 5.0) as reader:
        queued = maker.responses.create(model=MODEL, input=PROMPT, background=True)
        _poll(reader, queued.id)
        assert reader.usage.snapshot().total_cost_usd == 0.0  # charged where it was created
        assert maker.usage.snapshot().pending_requests == 1  # which has not seen it end yet


def test_a_router_collects_a_background_response_when_another_target_serves_the_retrieval() -> None:
    """The target that created the response holds it; the retrieval goes to the other target (the same
    server under another name), and the creating target is charged, once, in the router's total too."""
    from holyclient import Router, Target

    with LocalServer(api_key=KEY) as running:
        one = Target(running.base_url, api_key=KEY, name="one", max_retries=0)
        two = Target(running.base_url, api_key=KEY, name="two", weight=0.0, max_retries=0)
        with Router([one, two], budget_usd=5.0) as router:
            queued = router.responses.create(model=MODEL, input=PROMPT, background=True)
            held = router.usage.snapshot()
            router.set_weight("two", 1.0)
            router.set_weight("one", 0.0)
            done = router.responses.retrieve(queued.id)
            for _ in range(5):
                if done.status not in ("queued", "in_progress"):
                    break
                done = router.responses.retrieve(queued.id)
            after = router.usage.snapshot()
            charged = {name: router.target_usage(name).snapshot().total_cost_usd for name in ("one", "two")}
            served = {name: router.stats()[name].requests for name in ("one", "two")}
    assert done.usage is not None
    cost = cost_from_usage(MODEL, done.usage).cost_usd
    assert served["one"] == 1 and served["two"] >= 2  # created on one, retrieved on two
    assert held.reserved_usd > 0 and held.pending_requests == 1
    assert after.total_cost_usd == pytest.approx(cost) and charged == pytest.approx({"one": cost, "two": 0.0})
    assert (after.pending_requests, after.reserved_usd) == (0, 0.0)
