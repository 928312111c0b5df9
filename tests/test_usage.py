"""The usage tracker: totals per model, settling reservations, the budget guard, thread and task safety."""

from __future__ import annotations

import asyncio
import math
import threading

import httpx2
import pytest

from holyclient import BudgetExceededError
from holyclient.pricing import PriceTable, estimate_cost
from holyclient.pricing._tracker import UsageTracker
from holyclient.tokens import count_request
from support import completion

USAGE = {"prompt_tokens": 1_000, "completion_tokens": 500, "prompt_tokens_details": {"cached_tokens": 200}}


def _body(
    model: str = "gpt-4.1", max_tokens: int | None = 100, text: str = "Hello there"
) -> dict[str, object]:
    body: dict[str, object] = {"model": model, "messages": [{"role": "user", "content": text}]}
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    return body


@pytest.fixture
def prices() -> PriceTable:
    return PriceTable.builtin()


def test_record_sums_tokens_and_cost_per_model(prices):
    tracker = UsageTracker(prices=prices)
    tracker.record("gpt-4.1", USAGE)
    tracker.record("gpt-4.1-2025-04-14", USAGE)
    tracker.record("deepseek-chat", {"prompt_tokens": 10, "completion_tokens": 5})
    snap = tracker.snapshot()
    gpt = snap.models["gpt-4.1"]
    assert (gpt.requests, gpt.prompt_tokens, gpt.cached_tokens, gpt.completion_tokens) == (1, 1_000, 200, 500)
    one = (800 * 2.00 + 200 * 0.50 + 500 * 8.00) / 1e6
    assert gpt.cost_usd == pytest.approx(one)
    assert snap.models["gpt-4.1-2025-04-14"].cost_usd == pytest.approx(one)
    assert snap.total_cost_usd == pytest.approx(2 * one + (10 * 0.28 + 5 * 0.42) / 1e6)
    assert tracker.total_cost_usd == pytest.approx(snap.total_cost_usd)
    assert snap.remaining_usd is None
    assert tracker.totals()["models"]["deepseek-chat"]["requests"] == 1


def test_an_unknown_model_without_budget_is_tracked_without_cost(prices):
    tracker = UsageTracker(prices=prices)
    reservation = tracker.reserve(_body(model="house-llm"))
    assert (reservation.priced, reservation.worst_case_usd) == (False, 0.0)
    tracker.settle(reservation, USAGE)
    snap = tracker.snapshot()
    assert snap.models["house-llm"].cost_usd is None
    assert snap.models["house-llm"].prompt_tokens == 1_000
    assert snap.unpriced_models == ("house-llm",)
    assert snap.total_cost_usd == 0.0


def test_settle_replaces_the_reservation_with_the_real_cost(prices):
    tracker = UsageTracker(budget_usd=1.0, prices=prices)
    reservation = tracker.reserve(_body())
    prompt = count_request(_body()).tokens
    assert reservation.prompt_tokens == prompt
    assert reservation.worst_case_usd == pytest.approx((prompt * 2.00 + 100 * 8.00) / 1e6)
    assert tracker.remaining_usd == pytest.approx(1.0 - reservation.worst_case_usd)
    tracker.settle(reservation, USAGE)
    real = estimate_cost("gpt-4.1", 1_000, 500, cached_input_tokens=200, table=prices).cost_usd
    assert tracker.remaining_usd == pytest.approx(1.0 - real)
    tracker.settle(reservation, USAGE)  # a second settle is ignored
    assert tracker.snapshot().models["gpt-4.1"].requests == 1


def test_settle_without_usage_releases_the_reservation(prices):
    tracker = UsageTracker(budget_usd=1.0, prices=prices)
    tracker.settle(tracker.reserve(_body()), None)
    snap = tracker.snapshot()
    assert (snap.remaining_usd, snap.reserved_usd, snap.models) == (1.0, 0.0, {})


def test_the_budget_refuses_a_request_whose_worst_case_exceeds_what_is_left(prices):
    tracker = UsageTracker(budget_usd=0.001, prices=prices)
    with pytest.raises(BudgetExceededError) as info:
        tracker.reserve(_body(max_tokens=1_000))  # 1,000 output tokens of gpt-4.1 = $0.008
    assert info.value.requested_usd > 0.008
    assert info.value.remaining_usd == pytest.approx(0.001)
    assert "max_tokens" in str(info.value) and "budget" in str(info.value)
    tracker.reserve(_body(max_tokens=10))  # a small one still fits


def test_without_max_tokens_the_worst_case_policy_holds_the_models_maximum_output(prices):
    tracker = UsageTracker(budget_usd=10.0, prices=prices, budget_policy="worst_case")
    reservation = tracker.reserve(_body(max_tokens=None))
    prompt = count_request(_body(max_tokens=None)).tokens
    assert reservation.worst_case_usd == pytest.approx((prompt * 2.00 + 32_768 * 8.00) / 1e6)


def test_requests_in_flight_count_against_the_budget(prices):
    tracker = UsageTracker(budget_usd=0.0025, prices=prices)
    first = tracker.reserve(_body(max_tokens=200))  # ~$0.0016 worst case
    with pytest.raises(BudgetExceededError):
        tracker.reserve(_body(max_tokens=200))
    tracker.settle(first, {"prompt_tokens": 10, "completion_tokens": 10})
    tracker.reserve(_body(max_tokens=200))


def test_spent_money_lowers_what_is_left_until_nothing_fits(prices):
    tracker = UsageTracker(budget_usd=0.01, prices=prices)
    tracker.record("gpt-4.1", {"prompt_tokens": 0, "completion_tokens": 1_250})  # exactly $0.01
    assert tracker.remaining_usd == pytest.approx(0.0)
    with pytest.raises(BudgetExceededError):
        tracker.reserve(_body(max_tokens=1))


def test_an_unknown_model_with_a_budget_is_refused_because_it_cannot_be_checked(prices):
    tracker = UsageTracker(budget_usd=5.0, prices=prices)
    with pytest.raises(BudgetExceededError, match="No price for model 'house-llm'") as info:
        tracker.reserve(_body(model="house-llm"))
    assert math.isinf(info.value.requested_usd)


def test_a_negative_budget_is_rejected():
    with pytest.raises(ValueError, match="budget_usd"):
        UsageTracker(budget_usd=-1.0)


def test_threads_sharing_a_tracker_lose_no_update(prices):
    tracker = UsageTracker(budget_usd=1_000.0, prices=prices)
    usage = {"prompt_tokens": 3, "completion_tokens": 2}

    def work() -> None:
        for _ in range(200):
            tracker.settle(tracker.reserve(_body(max_tokens=5)), usage)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    snap = tracker.snapshot()
    assert snap.models["gpt-4.1"].requests == 1_600
    assert snap.models["gpt-4.1"].prompt_tokens == 4_800
    assert snap.reserved_usd == 0.0
    assert snap.total_cost_usd == pytest.approx(1_600 * (3 * 2.00 + 2 * 8.00) / 1e6)


async def test_asyncio_tasks_sharing_a_tracker_lose_no_update(prices):
    """Every task holds its reservation across awaits while the others reserve and settle theirs."""
    tasks = 10
    worst = UsageTracker(prices=prices).reserve(_body()).worst_case_usd
    tracker = UsageTracker(budget_usd=worst * tasks * 1.5, prices=prices)
    all_reserved = asyncio.Barrier(tasks)
    held_at_peak: list[float] = []

    async def work(rounds: int) -> None:
        reservation = tracker.reserve(_body())
        await all_reserved.wait()  # every task is now between reserve and settle
        held_at_peak.append(tracker.snapshot().reserved_usd)
        for _ in range(rounds):
            await asyncio.sleep(0)
            tracker.settle(reservation, {"prompt_tokens": 1, "completion_tokens": 1})
            reservation = tracker.reserve(_body())
        await asyncio.sleep(0)
        tracker.settle(reservation, {"prompt_tokens": 1, "completion_tokens": 1})

    await asyncio.gather(*(work(rounds) for rounds in range(tasks)))
    assert held_at_peak[0] == pytest.approx(worst * tasks)  # all ten held at once, none lost
    snapshot = tracker.snapshot()
    assert snapshot.models["gpt-4.1"].requests == sum(rounds + 1 for rounds in range(tasks))
    assert snapshot.models["gpt-4.1"].prompt_tokens == snapshot.models["gpt-4.1"].requests
    assert snapshot.reserved_usd == 0.0


def test_a_client_budget_refuses_before_sending(make_client):
    sent: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        return httpx2.Response(200, json=completion())

    client = make_client(handler, budget_usd=0.0001)
    with pytest.raises(BudgetExceededError):
        client.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "user", "content": "hi"}], max_tokens=1_000
        )
    assert sent == []
    client.chat.completions.create(
        model="gpt-4.1", messages=[{"role": "user", "content": "hi"}], max_tokens=5
    )
    assert len(sent) == 1
    assert client.usage.snapshot().models["gpt-4.1"].prompt_tokens == 5
