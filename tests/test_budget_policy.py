"""The budget policy: what a request without ``max_tokens`` holds against the budget.

Neither real app we migrated sets ``max_tokens``. Held at the model's whole output limit, a $0.10 budget
on gpt-4.1 refused its very first call (32,768 output tokens at $8 per 1M is $0.26). The default policy
holds the output this client's answers show for the model instead, and reports honestly what answers
cost beyond their hold; ``budget_policy="worst_case"`` keeps the strict hold.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import httpx2
import pytest

from holyclient import BudgetExceededError, Client
from holyclient.pricing import UsageTracker
from holyclient.pricing._hold import LEARN_FROM, PRIOR_OUTPUT_TOKENS, WINDOW, OutputEstimate
from holyclient.testing import LocalServer
from holyclient.tokens import count_request
from support import KEY, completion

MESSAGES = [{"role": "user", "content": "Write a haiku about sheep."}]
BODY = {"model": "gpt-4.1", "messages": MESSAGES}
PROMPT = count_request(BODY, endpoint="/chat/completions").tokens  # gpt-4.1 is counted exactly


def _answering(completion_tokens: int) -> httpx2.MockTransport:
    def handler(request: httpx2.Request) -> httpx2.Response:
        usage = {
            "prompt_tokens": PROMPT,
            "completion_tokens": completion_tokens,
            "total_tokens": PROMPT + completion_tokens,
        }
        return httpx2.Response(200, json=completion("a haiku", usage=usage))

    return httpx2.MockTransport(handler)


def test_an_uncapped_request_holds_the_prior_until_the_client_has_seen_answers() -> None:
    tracker = UsageTracker(budget_usd=1.0)
    held = tracker.reserve(BODY)
    prompt = held.prompt_tokens or 0
    assert held.worst_case_usd == pytest.approx((prompt * 2.0 + PRIOR_OUTPUT_TOKENS * 8.0) / 1e6)


def test_a_request_that_sets_max_tokens_holds_exactly_that_under_either_policy() -> None:
    for policy in ("expected", "worst_case"):
        tracker = UsageTracker(budget_usd=1.0, budget_policy=policy)
        held = tracker.reserve({**BODY, "max_tokens": 50, "n": 2})
        assert held.worst_case_usd == pytest.approx(((held.prompt_tokens or 0) * 2.0 + 100 * 8.0) / 1e6)


def test_the_hold_follows_the_95th_percentile_of_the_models_latest_answers() -> None:
    estimate = OutputEstimate()
    for tokens in range(1, LEARN_FROM):
        estimate.observe("gpt-4.1", tokens * 3000)
    assert estimate.tokens("gpt-4.1") == (LEARN_FROM - 1) * 3000  # the largest seen, above the prior
    estimate = OutputEstimate()
    for tokens in range(1, 101):  # answers of 1 .. 100 tokens
        estimate.observe("gpt-4.1", tokens)
    assert estimate.tokens("gpt-4.1") == 95
    assert estimate.tokens("claude-sonnet-4.5") == PRIOR_OUTPUT_TOKENS  # per model
    for _ in range(WINDOW):  # old answers age out
        estimate.observe("gpt-4.1", 10)
    assert estimate.tokens("gpt-4.1") == 10


def test_a_small_budget_on_gpt_4_1_serves_calls_without_max_tokens() -> None:
    with Client(api_key=KEY, http_client=httpx2.Client(transport=_answering(300)), budget_usd=0.10) as client:
        for _ in range(20):
            client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
        snapshot = client.usage.snapshot()
    assert snapshot.models["gpt-4.1"].requests == 20 and snapshot.overrun_usd == 0.0


def test_the_worst_case_policy_refuses_the_first_uncapped_call_of_a_small_budget_and_says_why() -> None:
    http = httpx2.Client(transport=_answering(300))
    client = Client(api_key=KEY, http_client=http, budget_usd=0.10, budget_policy="worst_case")
    with client, pytest.raises(BudgetExceededError) as info:
        client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
    message = str(info.value)
    assert "32768 output tokens" in message and "budget_policy='worst_case'" in message


def test_a_refusal_under_the_expected_policy_names_the_policy() -> None:
    http = httpx2.Client(transport=_answering(300))
    client = Client(api_key=KEY, http_client=http, budget_usd=0.001)
    with client, pytest.raises(BudgetExceededError) as info:
        client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
    assert "budget_policy='expected'" in str(info.value) and "max_tokens" in str(info.value)


def test_an_answer_longer_than_its_hold_is_charged_in_full_and_the_overrun_is_reported() -> None:
    long_answer = 4000  # beyond the 1,024-token prior
    http = httpx2.Client(transport=_answering(long_answer))
    with Client(api_key=KEY, http_client=http, budget_usd=1.0) as client:
        client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
        snapshot = client.usage.snapshot()
    cost = (PROMPT * 2.0 + long_answer * 8.0) / 1e6
    assert snapshot.total_cost_usd == pytest.approx(cost)
    assert snapshot.overrun_requests == 1
    assert 0 < snapshot.overrun_usd < cost
    assert snapshot.as_dict()["overrun_usd"] == pytest.approx(snapshot.overrun_usd)


def test_after_long_answers_the_hold_grows_so_the_budget_stops_before_it_is_overrun() -> None:
    """Every answer is 4,000 tokens: after the first few, the hold has learnt that, so the budget refuses
    a call it could not pay for instead of letting it through on the prior."""
    cost = (PROMPT * 2.0 + 4000 * 8.0) / 1e6
    budget = 30 * cost + cost / 2
    http = httpx2.Client(transport=_answering(4000))
    with Client(api_key=KEY, http_client=http, budget_usd=budget) as client:
        served = 0
        with pytest.raises(BudgetExceededError):
            for _ in range(100):
                client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
                served += 1
        snapshot = client.usage.snapshot()
    assert served == 30
    assert snapshot.total_cost_usd <= budget
    assert snapshot.overrun_requests == 1  # the first answer outgrew the prior; later holds knew better
    assert math.isclose(snapshot.remaining_usd or 0.0, budget - 30 * cost, rel_tol=1e-9)


def test_an_unknown_policy_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="budget_policy"):
        UsageTracker(budget_usd=1.0, budget_policy="optimistic")  # type: ignore[arg-type]


@pytest.mark.parametrize("budget", [None, 1.0], ids=["unbudgeted", "budgeted"])
def test_usage_is_kept_under_the_model_that_answered_with_or_without_a_budget(budget: float | None) -> None:
    """A relay may answer an alias with a dated snapshot (``gpt-4.1`` -> ``gpt-4.1-2025-04-14``): the
    totals are kept under the model that answered, whether or not the request held a budget first."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        answer = completion("hi", model="gpt-4.1-2025-04-14")
        answer["usage"] = {"prompt_tokens": PROMPT, "completion_tokens": 5, "total_tokens": PROMPT + 5}
        return httpx2.Response(200, json=answer)

    http = httpx2.Client(transport=httpx2.MockTransport(handler))
    with Client(api_key=KEY, http_client=http, budget_usd=budget) as client:
        client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
        models = client.usage.snapshot().models
    assert list(models) == ["gpt-4.1-2025-04-14"] and models["gpt-4.1-2025-04-14"].cost_usd


async def test_a_batch_request_is_kept_under_the_model_that_answered_with_a_budget() -> None:
    from holyclient import AsyncClient
    from holyclient.batch import BatchRequest, BatchRunner

    def handler(request: httpx2.Request) -> httpx2.Response:
        answer = completion("hi", model="gpt-4.1-2025-04-14")
        answer["usage"] = {"prompt_tokens": PROMPT, "completion_tokens": 5, "total_tokens": PROMPT + 5}
        return httpx2.Response(200, json=answer)

    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    async with AsyncClient(api_key=KEY, http_client=http, budget_usd=1.0) as client:
        await BatchRunner(client, max_retries=0).run([BatchRequest("r0", BODY)], lambda result: None)
        assert list(client.usage.snapshot().models) == ["gpt-4.1-2025-04-14"]


# --- what teaches the expected answer length, and what a refusal says of it (through the local server) ---


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer(api_key=KEY) as running:
        yield running


def test_answers_cut_by_their_own_max_tokens_do_not_teach_the_uncapped_hold(server: LocalServer) -> None:
    """Ten ``max_tokens=1`` answers (each stopped for length) used to become the 95th percentile: uncapped
    requests then held 1 output token. They still hold the default, so this budget refuses one."""
    with Client(api_key=KEY, base_url=server.base_url, budget_usd=0.005, max_retries=0) as client:
        for _ in range(LEARN_FROM):
            cut = client.chat.completions.create(model="gpt-4.1", messages=MESSAGES, max_tokens=1)
            assert cut.choices[0].finish_reason == "length"
        with pytest.raises(BudgetExceededError) as refused:
            client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
        assert client.usage.snapshot().models["gpt-4.1"].requests == LEARN_FROM
    assert f"{PRIOR_OUTPUT_TOKENS} output tokens" in str(refused.value)


async def test_eight_concurrent_uncapped_requests_after_capped_ones_stay_within_the_budget(
    server: LocalServer,
) -> None:
    """The issue's repro: after ten ``max_tokens=1`` calls, eight concurrent uncapped requests spent 2.5x
    a $0.02 budget. Each uncapped request now holds the default, so the budget admits only what it covers."""
    import asyncio

    from holyclient import AsyncClient

    long_prompt = [{"role": "user", "content": "tell me about sheep " * 100}]  # answered by its echo
    budget = 0.02
    async with AsyncClient(api_key=KEY, base_url=server.base_url, budget_usd=budget, max_retries=0) as client:
        for _ in range(LEARN_FROM):
            await client.chat.completions.create(model="gpt-4.1", messages=long_prompt, max_tokens=1)
        results = await asyncio.gather(
            *(client.chat.completions.create(model="gpt-4.1", messages=long_prompt) for _ in range(8)),
            return_exceptions=True,
        )
        snapshot = client.usage.snapshot()
    assert any(isinstance(r, BudgetExceededError) for r in results)
    assert snapshot.total_cost_usd <= budget  # before: $0.050, 2.5x the budget


def test_a_refusal_says_the_hold_is_the_default_until_the_client_has_learnt_it(server: LocalServer) -> None:
    client = Client(api_key=KEY, base_url=server.base_url, budget_usd=0.000_05, max_retries=0)
    with client, pytest.raises(BudgetExceededError) as refused:
        client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
    message = str(refused.value)
    assert f"the {PRIOR_OUTPUT_TOKENS:,}-token default, not yet learnt from this client's answers" in message
    assert f"it has seen 0 of the {LEARN_FROM}" in message and "budget_policy='expected'" in message
    assert "the expected answer length learnt from" not in message  # the old wording claimed it was learnt


def test_a_refusal_says_the_hold_was_learnt_once_it_was(server: LocalServer) -> None:
    with Client(api_key=KEY, base_url=server.base_url, budget_usd=1.0, max_retries=0) as client:
        for _ in range(LEARN_FROM):
            client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
        client.usage.budget_usd = client.usage.total_cost_usd + 0.000_001  # nearly spent
        with pytest.raises(BudgetExceededError) as refused:
            client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
    message = str(refused.value)
    assert f"the 95th percentile of the last {LEARN_FROM} uncapped answers of gpt-4.1" in message
    assert "default" not in message
