"""A stream left before its end is settled at what was read, as a lower bound (issue 41, item 9).

The server bills what it generated until it noticed the caller had gone, which may be the whole answer:
what was read is charged (counted locally, approximate) and counted in ``lower_bound_requests``, and the
rest of what the request held -- without a budget, what it would have held -- is uncertain spend. A
stream read to its end without a usage chunk is a local count too, but not a lower bound.
"""

from __future__ import annotations

import gc

import pytest

from holyclient import AsyncClient, Client
from holyclient.pricing import UsageTracker, charging_for, estimate_cost
from holyclient.testing import LocalServer

USER = [{"role": "user", "content": "Tell me a long story about a lighthouse keeper and the sea."}]
BODY = {"model": "gpt-4.1", "messages": USER, "max_tokens": 400}
#: what BODY holds: its prompt plus its 400 output tokens on gpt-4.1
HELD = UsageTracker(budget_usd=1.0).reserve(BODY).worst_case_usd


def _read(model) -> float:
    """What the read part costs on gpt-4.1 (the local count the snapshot recorded)."""
    return estimate_cost("gpt-4.1", model.prompt_tokens, model.completion_tokens).cost_usd


def _check_lower_bound(snapshot, held: float) -> None:
    model = snapshot.models["gpt-4.1"]
    assert (model.requests, model.lower_bound_requests, model.approximate_requests) == (1, 1, 1)
    assert model.completion_tokens < 400
    assert snapshot.uncertain_usd == pytest.approx(held - _read(model))
    assert snapshot.total_cost_usd == pytest.approx(held)  # what was read, and the rest held as uncertain
    assert snapshot.reserved_usd == 0.0
    assert snapshot.lower_bound_requests == 1
    assert snapshot.as_dict()["models"]["gpt-4.1"]["lower_bound_requests"] == 1


@pytest.mark.parametrize("budget", [1.0, None])
def test_a_stream_closed_after_its_first_chunk_is_a_lower_bound_with_the_rest_of_its_hold_uncertain(budget):
    with LocalServer() as server, Client(api_key="k", base_url=server.base_url, budget_usd=budget) as client:
        with client.chat.completions.create(**BODY, stream=True) as stream:
            for _ in stream:
                break
        snapshot = client.usage.snapshot()
    _check_lower_bound(snapshot, HELD)


def test_a_stream_dropped_unclosed_is_a_lower_bound_too() -> None:
    with LocalServer() as server, Client(api_key="k", base_url=server.base_url, budget_usd=1.0) as client:
        stream = client.chat.completions.create(**BODY, stream=True)
        next(iter(stream))
        del stream
        gc.collect()
        snapshot = client.usage.snapshot()
    _check_lower_bound(snapshot, HELD)


async def test_an_async_stream_left_early_is_a_lower_bound_with_the_rest_of_its_hold_uncertain() -> None:
    with LocalServer() as server:
        async with AsyncClient(api_key="k", base_url=server.base_url) as client:
            async with await client.chat.completions.create(**BODY, stream=True) as stream:
                async for _ in stream:
                    break
            snapshot = client.usage.snapshot()
    _check_lower_bound(snapshot, HELD)


def test_a_responses_stream_left_early_is_a_lower_bound() -> None:
    body = {"model": "gpt-4.1", "input": "Tell me a long story about a lighthouse.", "max_output_tokens": 300}
    held = UsageTracker(budget_usd=1.0).reserve(body, charging_for("POST", "/responses")).worst_case_usd
    with LocalServer() as server, Client(api_key="k", base_url=server.base_url, budget_usd=1.0) as client:
        with client.responses.create(**body, stream=True) as stream:
            for event in stream:
                if event.type == "response.output_text.delta":
                    break
        snapshot = client.usage.snapshot()
    model = snapshot.models["gpt-4.1"]
    assert model.lower_bound_requests == 1
    assert snapshot.uncertain_usd == pytest.approx(held - _read(model))


def test_a_stream_read_to_its_end_without_usage_is_a_local_count_but_no_lower_bound() -> None:
    with (
        LocalServer(disabled_features=["include_usage"]) as server,
        Client(api_key="k", base_url=server.base_url, budget_usd=1.0) as client,
    ):
        list(client.chat.completions.create(**BODY, stream=True))
        snapshot = client.usage.snapshot()
    model = snapshot.models["gpt-4.1"]
    assert (model.approximate_requests, model.lower_bound_requests) == (1, 0)
    assert snapshot.uncertain_usd == 0.0
    assert snapshot.total_cost_usd == pytest.approx(_read(model))


def test_a_stream_left_early_whose_usage_had_arrived_is_charged_that_usage() -> None:
    with LocalServer() as server, Client(api_key="k", base_url=server.base_url, budget_usd=1.0) as client:
        stream = client.chat.completions.create(**BODY, stream=True, stream_options={"include_usage": True})
        chunks = list(stream)  # the usage chunk is the last: read through, then closed
        stream.close()
        snapshot = client.usage.snapshot()
    assert chunks[-1].usage is not None
    assert (snapshot.lower_bound_requests, snapshot.uncertain_usd, snapshot.approximate) == (0, 0.0, False)
