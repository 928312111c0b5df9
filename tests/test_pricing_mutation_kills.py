"""What the pricing package promises, pinned where the feature tests left a behaviour unchecked.

Each test here was written against a mutant that survived ``benchmarks/mutation.sh pricing`` (see
CONTRIBUTING, "Mutation testing"): the usage tracker's snapshot, export and repr; what a hold, a
refusal, an uncertain outcome and an overrun record; which failures an endpoint's ledger counts as
"maybe billed"; the cost and price-table helpers; how a stream is charged from its chunks; and how
the tracker learns a stand-in tokenizer's correction. Each was checked by applying its mutant and
seeing the test fail.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import httpx2
import pytest

from holyclient import APIConnectionError, APIResponseValidationError, APITimeoutError, BudgetExceededError
from holyclient.pricing import (
    CHAT,
    ENDPOINTS,
    UNDECLARED,
    BilledTokens,
    Charging,
    Ledger,
    PriceTable,
    StreamMeter,
    UsageTracker,
    billed_tokens,
    charging_for,
    cost_from_usage,
    counts_tokens,
    default_table,
    estimate_cost,
    estimate_request,
    failure_kind,
    routes,
    usage_export,
)
from holyclient.tokens import Calibration, ModelFit, count_request, count_tokens

MESSAGES = [{"role": "user", "content": "Say hello to the world"}]
GPT = {"model": "gpt-4.1", "messages": MESSAGES, "max_tokens": 50}
CLAUDE = {"model": "claude-sonnet-4.5", "messages": MESSAGES, "max_tokens": 50}
USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
EMBEDDING = charging_for("POST", "/embeddings")
RESPONSES = charging_for("POST", "/responses")
TRANSCRIPTION = charging_for("POST", "/audio/transcriptions")
IMAGES = charging_for("POST", "/images/generations")


def _custom_table() -> PriceTable:
    """The built-in table plus a model only this table prices (``house-model``, $1 / $2 per 1M, counted
    exactly with o200k_base), and ``my-gpt``, a user's alias of gpt-4.1."""
    table = PriceTable.builtin()
    table.merge(
        {
            "models": {
                "house-model": {"input": 1.0, "output": 2.0, "approximate": False},
                "gpt-4.1": {"aliases": ["my-gpt"]},
            }
        }
    )
    return table


def _response_error(status: int) -> APIResponseValidationError:
    request = httpx2.Request("POST", "https://api.example.test/v1/chat/completions")
    return APIResponseValidationError(
        "unreadable", response=httpx2.Response(status, request=request), request=request
    )


# --- the snapshot, the export, the reprs ----------------------------------------------------------


def test_the_totals_are_every_snapshot_field_as_plain_data() -> None:
    tracker = UsageTracker(budget_usd=1.0)
    tracker.record("gpt-4.1", {**USAGE, "prompt_tokens_details": {"cached_tokens": 3}})
    cost = cost_from_usage("gpt-4.1", {**USAGE, "prompt_tokens_details": {"cached_tokens": 3}}).cost_usd
    assert tracker.totals() == {
        "models": {
            "gpt-4.1": {
                "requests": 1,
                "prompt_tokens": 11,
                "cached_tokens": 3,
                "completion_tokens": 7,
                "cost_usd": cost,
                "approximate_requests": 0,
                "uncertain_requests": 0,
                "cache_write_tokens": 0,
                "cache_write_long_tokens": 0,
                "reported_cost_usd": None,
                "cost_mismatches": 0,
                "unreconciled_requests": 0,
                "lower_bound_requests": 0,
                "priced_as": None,
            }
        },
        "total_cost_usd": cost,
        "reserved_usd": 0.0,
        "budget_usd": 1.0,
        "remaining_usd": 1.0 - cost,
        "unpriced_models": [],
        "uncertain_usd": 0.0,
        "approximate": False,
        "warnings": [],
        "overrun_usd": 0.0,
        "overrun_requests": 0,
        "unreconciled_requests": 0,
        "cost_mismatches": 0,
        "lower_bound_requests": 0,
        "pending_requests": 0,
    }


def test_the_usage_export_is_one_usage_api_page_of_at_least_one_second() -> None:
    tracker = UsageTracker()
    tracker.record("gpt-4.1", {**USAGE, "prompt_tokens_details": {"cached_tokens": 3}})
    page = usage_export(tracker.snapshot().models, start_time=100, end_time=100)
    assert page == {
        "object": "page",
        "data": [
            {
                "object": "bucket",
                "start_time": 100,
                "end_time": 101,
                "results": [
                    {
                        "object": "organization.usage.completions.result",
                        "input_tokens": 11,
                        "input_cached_tokens": 3,
                        "input_cache_write_tokens": 0,
                        "input_cache_write_long_tokens": 0,
                        "output_tokens": 7,
                        "num_model_requests": 1,
                        "model": "gpt-4.1",
                    }
                ],
            }
        ],
        "has_more": False,
        "next_page": None,
    }
    assert usage_export({}, start_time=100, end_time=250)["data"][0]["end_time"] == 250


def test_a_tracker_and_an_estimate_print_their_money_without_float_noise() -> None:
    assert repr(UsageTracker()) == "UsageTracker(total_cost_usd=0.000000)"
    assert repr(UsageTracker(budget_usd=2.5)) == "UsageTracker(total_cost_usd=0.000000, budget_usd=2.5)"
    estimate = estimate_cost("gpt-4.1", 3, 1)
    assert repr(estimate) == (
        "CostEstimate(model='gpt-4.1', requested_model='gpt-4.1', input_tokens=3, cached_input_tokens=0, "
        "output_tokens=1, output_assumed=False, approximate=False, input_usd=6e-06, output_usd=8e-06, "
        "cost_usd=1.4e-05, cache_write_input_tokens=0, reported_cost_usd=None, problems=(), cost_cny=1.4e-05)"
    )


def test_an_estimate_as_data_names_every_field_and_the_cny_cost_when_asked() -> None:
    estimate = estimate_cost("gpt-4.1-2025-04-14", 3, 1, cached_input_tokens=1, output_assumed=True)
    data = estimate.as_dict(cny_rate=2.0)
    assert (data.pop("reported_cost_usd"), data.pop("problems")) == (None, [])
    assert data == pytest.approx(
        {
            "model": "gpt-4.1",
            "requested_model": "gpt-4.1-2025-04-14",
            "input_tokens": 3,
            "cached_input_tokens": 1,
            "output_tokens": 1,
            "output_assumed": True,
            "approximate": False,
            "input_usd": (2 * 2.0 + 1 * 0.5) / 1e6,
            "output_usd": 8.0 / 1e6,
            "cost_usd": 12.5 / 1e6,
            "cache_write_input_tokens": 0,
            "cost_cny": 25.0 / 1e6,
        }
    )
    assert "cost_cny" not in estimate.as_dict()


def test_routes_lists_every_declared_endpoint() -> None:
    assert routes() == list(ENDPOINTS)


@pytest.mark.parametrize(
    ("method", "path", "route"),
    [
        ("post", "/v1/chat/completions/", "POST /chat/completions"),
        ("POST", "/chat/completions?api-version=1", "POST /chat/completions"),
        ("POST", "/chat/completions?q=a?b", "POST /chat/completions"),
        ("GET", "/models/X", "GET /models/{model}"),
        ("GET", "/v1/responses/resp_1/input_items/", "GET /responses/{response_id}/input_items"),
    ],
)
def test_a_path_finds_its_declaration_whatever_its_prefix_query_or_trailing_slash(
    method: str, path: str, route: str
) -> None:
    assert charging_for(method, path) is ENDPOINTS[route]


# --- holding against a budget ---------------------------------------------------------------------


def test_a_hold_keeps_its_prompt_count_price_and_stand_in() -> None:
    tracker = UsageTracker(budget_usd=10.0)
    exact = tracker.reserve(GPT)
    assert exact.prompt_tokens == count_request(GPT).tokens
    assert exact.priced is True and exact.stand_in is None
    stand_in = tracker.reserve(CLAUDE)
    assert stand_in.priced is True and stand_in.stand_in is not None
    assert stand_in.stand_in[0] == "claude-sonnet-4.5"


def test_a_trackers_holds_are_numbered_from_one_in_the_order_they_are_made() -> None:
    tracker = UsageTracker()
    assert [tracker.reserve(GPT).id for _ in range(3)] == [1, 2, 3]


def test_a_hold_without_a_budget_is_priced_too() -> None:
    reservation = UsageTracker().reserve(GPT)
    assert reservation.priced is True and reservation.worst_case_usd > 0


def test_a_hold_counts_the_body_as_its_endpoint_reads_it_with_the_tables_model_name() -> None:
    responses = {"model": "gpt-4.1", "input": "Say hello to the world"}
    held = UsageTracker(budget_usd=1.0).reserve(responses, RESPONSES)
    assert held.prompt_tokens == count_request(responses, endpoint="/responses").input_tokens_range[1]
    assert held.prompt_tokens != count_request(responses).tokens  # read as an embedding it would differ
    alias = UsageTracker(budget_usd=1.0, prices=_custom_table()).reserve({**GPT, "model": "my-gpt"})
    assert (alias.prompt_tokens, alias.stand_in) == (count_request(GPT).tokens, None)  # counted as gpt-4.1
    # a direct hold for an endpoint that names no counter reads the body as a chat
    free = UsageTracker(budget_usd=1.0).reserve(GPT, charging_for("POST", "/moderations"))
    assert free.prompt_tokens == count_request(GPT).tokens


def test_the_worst_case_output_is_what_the_context_window_leaves() -> None:
    body = {"model": "gpt-4", "messages": MESSAGES}  # 8,192 tokens of context, 8,192 of output
    tracker = UsageTracker(budget_policy="worst_case")
    prompt = count_request(body).tokens
    assert tracker.reserve(body).worst_case_usd == pytest.approx(
        estimate_cost("gpt-4", prompt, 8192 - prompt).cost_usd
    )
    too_long = {"model": "gpt-4", "messages": [{"role": "user", "content": "hello " * 9000}]}
    prompt = count_request(too_long).tokens
    assert tracker.reserve(too_long).worst_case_usd == estimate_cost("gpt-4", prompt, 0).cost_usd


def test_a_refusal_message_says_what_is_held_and_left() -> None:
    tracker = UsageTracker(budget_usd=0.0001)
    body = {**GPT, "max_tokens": 100}
    prompt = count_request(body).tokens
    worst = estimate_cost("gpt-4.1", prompt, 100).cost_usd
    with pytest.raises(BudgetExceededError) as refused:
        tracker.reserve(body)
    assert str(refused.value) == (
        f"Request refused before sending: it holds ${worst:.6f} ({prompt} prompt + 100 output tokens on "
        "gpt-4.1, the output being its max_tokens), more than the $0.000100 left of the $0.000100 budget. "
        "Set max_tokens lower or raise the budget."
    )
    embedding = {"model": "text-embedding-3-small", "input": "hello " * 20000}
    with pytest.raises(
        BudgetExceededError,
        match=r"output tokens on text-embedding-3-small, the output being none \(nothing is generated\)\)",
    ):
        UsageTracker(budget_usd=0.0001).reserve(embedding, EMBEDDING)


def test_a_hold_of_exactly_what_is_left_is_accepted() -> None:
    worst = UsageTracker().reserve(GPT).worst_case_usd
    tracker = UsageTracker(budget_usd=worst)
    assert tracker.reserve(GPT).worst_case_usd == worst
    with pytest.raises(BudgetExceededError):
        tracker.reserve(GPT)


def test_a_refusal_says_what_was_left_of_the_budget() -> None:
    tracker = UsageTracker(budget_usd=0.5)
    tracker.record("gpt-4.1", USAGE)
    left = tracker.remaining_usd
    with pytest.raises(BudgetExceededError) as refused:
        tracker.reserve({"model": "no-such-model", "messages": MESSAGES})
    assert refused.value.remaining_usd == left and refused.value.requested_usd == math.inf
    with pytest.raises(BudgetExceededError, match=r"No price for model ''"):
        tracker.reserve({"messages": MESSAGES})


def test_an_unpriced_endpoint_is_refused_under_a_budget_whatever_its_model() -> None:
    tracker = UsageTracker(budget_usd=10.0)
    for model in ("gpt-4.1", "gpt-image-1"):
        with pytest.raises(BudgetExceededError) as refused:
            tracker.reserve({"model": model, "prompt": "a sheep"}, IMAGES)
        assert str(refused.value) == (
            "Cannot check the budget: holyclient has no price for a image generation "
            "(priced per image, second or character)"
        )
    unheld = UsageTracker().reserve({"model": "gpt-4.1", "prompt": "a sheep"}, IMAGES)
    assert (unheld.priced, unheld.worst_case_usd, unheld.prompt_tokens, unheld.model) == (
        False,
        0.0,
        None,
        "gpt-4.1",
    )


def test_a_hold_is_priced_with_the_trackers_own_table() -> None:
    tracker = UsageTracker(budget_usd=1.0, prices=_custom_table())
    body = {"model": "house-model", "messages": MESSAGES, "max_tokens": 10}
    reservation = tracker.reserve(body)
    expected = estimate_cost("house-model", reservation.prompt_tokens or 0, 10, table=_custom_table())
    assert reservation.worst_case_usd == expected.cost_usd


@pytest.mark.parametrize(
    ("body", "policy", "why"),
    [
        ({**GPT, "max_tokens": 10**9}, "expected", "the output being its max_tokens)"),
        (
            {"model": "gpt-4.1", "messages": MESSAGES},
            "worst_case",
            "the output being the model's whole output limit (budget_policy='worst_case'))",
        ),
        (
            {"model": "gpt-4.1", "messages": MESSAGES},
            "expected",
            "the output being the 1,024-token default, not yet learnt from this client's answers "
            "(it has seen 0 of the 10 it learns from; budget_policy='expected'))",
        ),
    ],
)
def test_a_refusal_names_where_its_output_allowance_came_from(body: Any, policy: Any, why: str) -> None:
    tracker = UsageTracker(budget_usd=0.000001, budget_policy=policy)
    with pytest.raises(BudgetExceededError) as refused:
        tracker.reserve(body)
    assert why in str(refused.value)


def test_n_choices_multiply_the_expected_output_and_n_0_counts_as_one() -> None:
    tracker = UsageTracker()
    body = {"model": "gpt-4.1", "messages": MESSAGES}
    one = tracker.reserve(body).worst_case_usd
    two = tracker.reserve({**body, "n": 2}).worst_case_usd
    zero = tracker.reserve({**body, "n": 0}).worst_case_usd
    prompt = count_request(body).tokens
    assert two - one == pytest.approx(estimate_cost("gpt-4.1", prompt, 1024).output_usd)
    assert zero == one


def test_the_learnt_hold_switches_from_the_prior_at_the_tenth_answer() -> None:
    tracker = UsageTracker()
    body = {"model": "gpt-4.1", "messages": MESSAGES}
    for _ in range(10):
        reservation = tracker.reserve(body)
        tracker.settle(reservation, {"prompt_tokens": 5, "completion_tokens": 100})
    prompt = count_request(body).tokens
    assert tracker.reserve(body).worst_case_usd == pytest.approx(
        estimate_cost("gpt-4.1", prompt, 100).cost_usd
    )


# --- settling -------------------------------------------------------------------------------------


def test_a_settlement_or_record_is_exact_unless_said_approximate() -> None:
    tracker = UsageTracker()
    tracker.settle(tracker.reserve(GPT), USAGE)
    tracker.record("gpt-4.1", USAGE)
    assert tracker.snapshot().models["gpt-4.1"].approximate_requests == 0
    tracker.record("gpt-4.1", USAGE, approximate=True)
    assert tracker.snapshot().models["gpt-4.1"].approximate_requests == 1


def test_every_overrun_adds_to_the_reported_overrun() -> None:
    tracker = UsageTracker(budget_usd=10.0)
    long = {"prompt_tokens": 10, "completion_tokens": 5000}
    overruns = []
    for _ in range(2):
        reservation = tracker.reserve({**GPT, "max_tokens": 10})
        overruns.append(cost_from_usage("gpt-4.1", long).cost_usd - reservation.worst_case_usd)
        tracker.settle(reservation, long)
    snapshot = tracker.snapshot()
    assert snapshot.overrun_requests == 2
    assert snapshot.overrun_usd == pytest.approx(sum(overruns))


def test_an_excess_within_float_noise_is_not_an_overrun() -> None:
    table = PriceTable.builtin()
    table.merge(
        {"models": {"pico": {"input": 0.0, "output": 0.000001, "approximate": False}}}
    )  # 1e-12 USD a token
    tracker = UsageTracker(budget_usd=1.0, prices=table)
    reservation = tracker.reserve({"model": "pico", "messages": MESSAGES, "max_tokens": 0})
    tracker.settle(reservation, {"prompt_tokens": 5, "completion_tokens": 1})
    assert tracker.snapshot().overrun_requests == 0


def test_an_uncertain_hold_records_its_prompt_and_is_settled_once() -> None:
    tracker = UsageTracker(budget_usd=10.0)
    reservation = tracker.reserve(GPT)
    tracker.settle_uncertain(reservation)
    tracker.settle_uncertain(reservation)
    model = tracker.snapshot().models["gpt-4.1"]
    assert (model.requests, model.uncertain_requests, model.prompt_tokens) == (
        1,
        1,
        reservation.prompt_tokens,
    )
    assert tracker.snapshot().uncertain_usd == reservation.worst_case_usd


def test_a_direct_charge_is_exact_by_default_and_learns_only_from_an_exact_bill_with_a_body() -> None:
    tracker = UsageTracker()
    tracker.charge("claude-sonnet-4.5", USAGE)
    tracker.charge("claude-sonnet-4.5", USAGE, CHAT, CLAUDE, approximate=True)
    assert tracker.snapshot().models["claude-sonnet-4.5"].approximate_requests == 1
    assert tracker.calibration().models == {}
    tracker.charge("claude-sonnet-4.5", USAGE, CHAT, CLAUDE)
    assert tracker.calibration().models["claude-sonnet-4.5"].samples == 1


# --- what an answer reports -----------------------------------------------------------------------


def test_an_answer_is_charged_under_the_model_it_names(make_client: Any) -> None:
    from support import completion

    client = make_client(lambda _: httpx2.Response(200, json=completion(model="gpt-4.1-2025-04-14")))
    client.chat.completions.create(model="gpt-4.1", messages=MESSAGES)
    assert list(client.usage.snapshot().models) == ["gpt-4.1-2025-04-14"]


def test_a_raw_json_answer_is_charged_its_usage_under_its_model_when_it_names_one(make_client: Any) -> None:
    from support import completion

    answers = iter(
        [
            completion(model="gpt-4.1-2025-04-14"),
            completion(model=5),
            {**completion(), "usage": 5},
        ]
    )
    client = make_client(lambda _: httpx2.Response(200, json=next(answers)))
    for _ in range(3):
        client.post("/chat/completions", body=GPT, cast_to=object)
    models = client.usage.snapshot().models
    assert set(models) == {"gpt-4.1-2025-04-14", "gpt-4.1"}
    assert models["gpt-4.1-2025-04-14"].prompt_tokens == models["gpt-4.1"].prompt_tokens == 5
    assert models["gpt-4.1"].requests == 1  # the answer whose usage is not an object is not charged


def test_an_unknown_budget_policy_is_named_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"^budget_policy must be one of 'expected', 'worst_case', got 'x'$"):
        UsageTracker(budget_policy="x")  # type: ignore[arg-type]


def test_a_bill_whose_body_cannot_be_counted_teaches_nothing() -> None:
    tracker = UsageTracker()
    tracker.charge("claude-sonnet-4.5", USAGE, CHAT, {"model": "claude-sonnet-4.5", "messages": 5})
    assert tracker.snapshot().models["claude-sonnet-4.5"].requests == 1
    assert tracker.calibration().models == {}


def test_only_exact_answers_with_output_teach_the_expected_answer_length() -> None:
    tracker = UsageTracker()
    body = {"model": "gpt-4.1", "messages": MESSAGES}
    first = tracker.reserve(body).worst_case_usd
    for _ in range(10):
        tracker.record("gpt-4.1", {"prompt_tokens": 5, "completion_tokens": 2000}, approximate=True)
        tracker.record("gpt-4.1", {"prompt_tokens": 5, "completion_tokens": 0})
    assert tracker.reserve(body).worst_case_usd == first  # still the prior


def test_costs_and_what_is_left_add_up_across_records_and_holds() -> None:
    tracker = UsageTracker(budget_usd=1.0)
    tracker.record("gpt-4.1", USAGE)
    tracker.record("gpt-4.1", USAGE)
    held = tracker.reserve(GPT).worst_case_usd
    cost = cost_from_usage("gpt-4.1", USAGE).cost_usd
    snapshot = tracker.snapshot()
    assert snapshot.models["gpt-4.1"].cost_usd == pytest.approx(2 * cost)
    assert snapshot.remaining_usd == pytest.approx(1.0 - 2 * cost - held)
    assert snapshot.budget_usd == 1.0


# --- uncertain spend without a budget -------------------------------------------------------------


def test_unheld_uncertain_requests_add_up_per_model() -> None:
    tracker = UsageTracker(prices=_custom_table())
    body = {"model": "house-model", "messages": MESSAGES, "max_tokens": 10}
    for _ in range(2):
        tracker.charge_uncertain(CHAT, body)
    prompt = UsageTracker(prices=_custom_table()).reserve(body).prompt_tokens or 0  # what a hold counts
    expected = estimate_cost("house-model", prompt, 10, table=_custom_table()).cost_usd
    model = tracker.snapshot().models["house-model"]
    assert (model.requests, model.uncertain_requests, model.prompt_tokens) == (2, 2, 2 * prompt)
    assert model.cost_usd == pytest.approx(2 * expected)
    assert tracker.snapshot().uncertain_usd == pytest.approx(2 * expected)


def test_an_unpriced_or_uncountable_uncertain_request_is_counted_without_a_cost() -> None:
    tracker = UsageTracker()
    tracker.charge_uncertain(IMAGES, {"model": "gpt-4.1", "prompt": "a sheep"})
    tracker.charge_uncertain(CHAT, {"model": "gpt-4o", "messages": 5})
    tracker.charge_uncertain(CHAT, {"messages": MESSAGES}, "<named>")
    tracker.charge_uncertain(CHAT, {"messages": MESSAGES})
    snapshot = tracker.snapshot()
    for name in ("gpt-4.1", "gpt-4o", "<named>", ""):
        model = snapshot.models[name]
        assert (model.requests, model.uncertain_requests, model.prompt_tokens, model.cost_usd) == (
            1,
            1,
            0,
            None,
        )
    assert snapshot.total_cost_usd == 0.0 and set(snapshot.unpriced_models) == {
        "gpt-4.1",
        "gpt-4o",
        "<named>",
        "",
    }


# --- the ledger: what a failure after sending means -----------------------------------------------


def test_failure_kinds_tell_a_timeout_from_a_drop_and_read_2xx_statuses_only() -> None:
    assert failure_kind(APITimeoutError(), True) == "timeout"
    assert failure_kind(APIConnectionError(), True) == "dropped"
    assert failure_kind(APIConnectionError(), False) is None
    for status, kind in ((199, None), (200, "unreadable"), (299, "unreadable"), (300, None)):
        assert failure_kind(_response_error(status), True) == kind
    assert failure_kind(APIResponseValidationError("no response"), True) is None


def test_a_ledger_keeps_as_uncertain_only_the_failures_its_endpoint_declares() -> None:
    only_timeouts = Charging(
        "test", "/chat/completions", "prompt+output", settles=True, maybe_billed=frozenset({"timeout"})
    )
    tracker = UsageTracker()
    dropped = Ledger(tracker, only_timeouts, GPT)
    dropped.sending = True
    dropped.failed(APIConnectionError())
    assert tracker.snapshot().models == {}
    timed_out = Ledger(tracker, only_timeouts, GPT)
    timed_out.sending = True
    timed_out.failed(APITimeoutError())
    assert tracker.snapshot().models["gpt-4.1"].uncertain_requests == 1


def test_an_unheld_uncertain_attempt_is_recorded_once_under_its_model_or_endpoint() -> None:
    tracker = UsageTracker()
    ledger = Ledger(tracker, CHAT, None)
    ledger.uncertain()
    ledger.uncertain()
    upload = Ledger(tracker, TRANSCRIPTION, {"file": "a.wav"})
    upload.uncertain()
    snapshot = tracker.snapshot()
    assert snapshot.models["<chat completion>"].uncertain_requests == 1
    assert snapshot.models["<transcription>"].uncertain_requests == 1
    assert Ledger(tracker, CHAT, {"model": 5}).model() == "<chat completion>"


def test_a_ledger_counts_its_prompt_as_its_endpoint_reads_it() -> None:
    tracker = UsageTracker()
    body = {"model": "gpt-4.1", "input": "Say hello to the world"}
    assert (
        Ledger(tracker, RESPONSES, body).prompt_tokens() == count_request(body, endpoint="/responses").tokens
    )
    assert Ledger(tracker, UNDECLARED, body).prompt_tokens() is None
    held = UsageTracker(budget_usd=10.0).reserve(CLAUDE)
    assert Ledger(tracker, CHAT, CLAUDE, held).prompt_tokens() == held.prompt_tokens
    assert held.prompt_tokens != count_request(CLAUDE).tokens  # the hold counts the high end


def test_an_attempt_counts_tokens_to_hold_them_or_to_learn_a_stand_in_correction() -> None:
    assert counts_tokens(CHAT, GPT, budgeted=True)
    assert not counts_tokens(CHAT, GPT, budgeted=False)
    assert counts_tokens(CHAT, CLAUDE, budgeted=False)
    assert not counts_tokens(CHAT, None, budgeted=True)
    assert not counts_tokens(UNDECLARED, CLAUDE, budgeted=True)
    assert not counts_tokens(charging_for("POST", "/moderations"), CLAUDE, budgeted=True)


def test_a_ledger_settles_once_whatever_settles_it_first() -> None:
    tracker = UsageTracker()
    settled = Ledger(tracker, CHAT, GPT)
    settled.settle("gpt-4.1", USAGE)
    settled.settle("gpt-4.1", USAGE)
    settled.uncertain()
    released = Ledger(tracker, CHAT, GPT)
    released.release()
    released.settle("gpt-4.1", USAGE)
    released.uncertain()
    model = tracker.snapshot().models["gpt-4.1"]
    assert (model.requests, model.uncertain_requests) == (1, 0)


def test_a_ledger_of_an_endpoint_that_does_not_settle_charges_nothing_and_gives_its_hold_back() -> None:
    stored = charging_for("GET", "/chat/completions/cmpl-1")
    tracker = UsageTracker(budget_usd=1.0)
    Ledger(tracker, stored, None).settle("gpt-4.1", USAGE)
    Ledger(tracker, stored, GPT, tracker.reserve(GPT)).settle("gpt-4.1", USAGE)
    snapshot = tracker.snapshot()
    assert (snapshot.models, snapshot.reserved_usd) == ({}, 0.0)


# --- costs and the price table --------------------------------------------------------------------


def test_estimate_request_needs_a_model_name() -> None:
    for body in ({"messages": MESSAGES}, {"model": 5, "messages": MESSAGES}):
        with pytest.raises(ValueError, match=r"^no model: the body has no 'model' and none was given$"):
            estimate_request(body)


def test_estimate_request_counts_the_body_as_its_endpoint_reads_it() -> None:
    responses = {"model": "gpt-4.1", "input": "Say hello to the world"}
    estimate = estimate_request(responses, endpoint="/v1/responses")
    assert estimate.input_tokens == count_request(responses, endpoint="/responses").tokens
    assert (estimate.output_tokens, estimate.output_assumed) == (512, True)
    embedding = estimate_request(
        {"model": "text-embedding-3-small", "input": "hi"}, endpoint="/v1/embeddings"
    )
    assert (embedding.output_tokens, embedding.output_assumed) == (0, False)
    assert estimate_request({"model": "text-embedding-3-small", "input": "hi"}).output_assumed is False
    assert estimate_request({**GPT, "max_tokens": None, "n": 0}).output_tokens == 512


def test_estimate_request_uses_the_given_table_image_size_and_counting_name() -> None:
    table = _custom_table()
    body = {"model": "house-model", "messages": MESSAGES, "max_tokens": 10}
    assert estimate_request(body, table=table).model == "house-model"
    # a user's alias of an exactly counted model is counted exactly, under the table's name
    alias = estimate_request({**GPT, "model": "my-gpt"}, table=table)
    assert (alias.model, alias.approximate, alias.input_tokens) == (
        "gpt-4.1",
        False,
        count_request(GPT).tokens,
    )
    image = {
        "model": "gpt-4.1",
        "messages": [
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]}
        ],
        "max_tokens": 1,
    }
    small, large = (
        estimate_request(image, image_size=(64, 64)),
        estimate_request(image, image_size=(2048, 2048)),
    )
    assert small.input_tokens < large.input_tokens


def test_an_estimate_is_approximate_when_its_count_or_its_model_is() -> None:
    responses = {"model": "gpt-4.1", "input": "Say hello to the world"}
    assert estimate_request(responses, endpoint="/v1/responses").approximate is True  # a Responses count
    assert estimate_request(GPT).approximate is False
    assert estimate_request(CLAUDE).approximate is True  # a stand-in tokenizer


def test_a_model_the_tokenizer_knows_is_counted_with_its_own_tokenizer_whatever_entry_prices_it() -> None:
    table = PriceTable.builtin()
    table.merge({"models": {"gpt-4.1": {"aliases": ["gpt-4-0314"]}}})  # a cl100k model priced as gpt-4.1
    body = {"model": "gpt-4-0314", "messages": [{"role": "user", "content": "Привет мир, как дела сегодня?"}]}
    estimate = estimate_request(body, table=table)
    assert estimate.model == "gpt-4.1"
    assert (
        estimate.input_tokens
        == count_request(body).tokens
        != count_request({**body, "model": "gpt-4.1"}).tokens
    )


def test_estimate_cost_refuses_each_negative_count_and_more_cached_than_input() -> None:
    for args in ((-1, 0, 0), (0, -1, 0), (0, 0, -1)):
        with pytest.raises(ValueError, match=r"^token counts must not be negative$"):
            estimate_cost("gpt-4.1", args[0], args[1], cached_input_tokens=args[2])
    with pytest.raises(ValueError, match="exceeds"):
        estimate_cost("gpt-4.1", 2, 0, cached_input_tokens=3)
    assert estimate_cost("gpt-4.1", 0, 0).cost_usd == 0.0
    assert estimate_cost("gpt-4.1", 2, 0, cached_input_tokens=2).input_usd == pytest.approx(2 * 0.5 / 1e6)


def test_estimate_cost_marks_approximate_as_told_else_as_the_model_is() -> None:
    assert estimate_cost("gpt-4.1", 1, 1).approximate is False
    assert estimate_cost("gpt-4.1", 1, 1, approximate=True).approximate is True
    assert estimate_cost("claude-sonnet-4.5", 1, 1).approximate is True
    assert estimate_cost("claude-sonnet-4.5", 1, 1, approximate=False).approximate is False
    assert estimate_cost("gpt-4.1", 1, 1).output_assumed is False


def test_a_billed_cost_is_exact_and_names_what_was_asked() -> None:
    usage = {"prompt_tokens": 11, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 3}}
    estimate = cost_from_usage("gpt-4.1-2025-04-14", usage)
    assert (estimate.model, estimate.requested_model) == ("gpt-4.1", "gpt-4.1-2025-04-14")
    assert (estimate.input_tokens, estimate.cached_input_tokens, estimate.output_tokens) == (11, 3, 7)
    assert (estimate.output_assumed, estimate.approximate) == (False, False)


def test_the_output_cap_is_read_from_every_api_and_zero_is_a_cap() -> None:
    tracker = UsageTracker()
    responses = {"model": "gpt-4.1", "input": "Say hello", "max_output_tokens": 10}
    held = tracker.reserve(responses, RESPONSES)
    assert held.worst_case_usd == pytest.approx(
        estimate_cost("gpt-4.1", held.prompt_tokens or 0, 10).cost_usd
    )
    capped = tracker.reserve({**GPT, "max_tokens": 0})
    assert capped.worst_case_usd == estimate_cost("gpt-4.1", capped.prompt_tokens or 0, 0).cost_usd


def test_billed_tokens_read_details_only_when_given_and_flag_details_larger_than_their_prompt() -> None:
    assert billed_tokens({"prompt_tokens": 5, "completion_tokens": 3}) == BilledTokens(5, 0, 0, 3, 0, 0)
    usage = {
        "prompt_tokens": 6,
        "completion_tokens": 3,
        "prompt_tokens_details": {"cached_tokens": 4, "audio_tokens": 5},
        "completion_tokens_details": {"reasoning_tokens": 1, "audio_tokens": 2},
    }
    # 4 cached + 5 audio cannot fit a 6-token prompt: read the dearer way (the prompt holds its parts)
    billed = billed_tokens(usage)
    assert (billed.prompt, billed.cached, billed.audio_input) == (9, 4, 5)
    assert (billed.completion, billed.reasoning, billed.audio_output) == (3, 1, 2)
    assert billed.problems == ("cached, written and audio prompt tokens (9) exceed the prompt (6)",)


def test_cost_from_usage_prices_with_the_given_table() -> None:
    assert cost_from_usage("house-model", USAGE, table=_custom_table()).cost_usd == pytest.approx(
        (11 * 1.0 + 7 * 2.0) / 1e6
    )


def test_an_unknown_model_error_names_the_model_and_up_to_five_close_matches() -> None:
    table = default_table()
    error = table.unknown("gpt-4.2")
    assert error.model == "gpt-4.2"
    assert len(error.suggestions) == 5
    assert str(error).startswith(
        "No price for model 'gpt-4.2'. Did you mean: " + ", ".join(error.suggestions) + "?"
    )
    assert str(error).endswith(
        "(USD per 1M tokens) and pass it with --prices FILE or the HOLYSHEEP_PRICES environment variable."
    )
    nothing = table.unknown("zzzzzzzzzzzz")
    assert nothing.suggestions == ()
    assert str(nothing).startswith("No price for model 'zzzzzzzzzzzz'. To add one, write a JSON file like")


def test_a_price_file_that_cannot_be_read_says_why_in_words(tmp_path: Any) -> None:
    from holyclient.pricing import PriceFileError

    missing = tmp_path / "nope.json"
    with pytest.raises(PriceFileError) as failed:
        PriceTable.builtin().merge_file(missing)
    assert str(failed.value) == f"{missing}: cannot read price file: No such file or directory"


# --- a stream's meter ------------------------------------------------------------------------------


class Watch:
    """A stream watch (the call's span, when traced) that records what it is told."""

    def __init__(self) -> None:
        self.chunks: list[Any] = []
        self.ends: list[tuple[Any, ...]] = []

    def chunk(self, item: Any) -> None:
        self.chunks.append(item)

    def ended(self, outcome: str, usage: Any, approximate: bool, error: BaseException | None) -> None:
        self.ends.append((outcome, usage, approximate, error))


class Item:
    """A parsed chunk: only the attributes the meter reads."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)


def test_the_watch_sees_every_chunk_and_one_ending_with_the_servers_usage() -> None:
    watch = Watch()
    meter = StreamMeter(Ledger(UsageTracker(), CHAT, GPT), hide_usage_chunk=True, watch=watch)
    first, last = Item(usage=None, choices=[]), Item(usage=USAGE, choices=[], model="gpt-4.1")
    meter.observe(first)
    assert meter.observe(last) is False  # the usage-only chunk the caller did not ask for
    error = RuntimeError("cut")
    meter.finish("complete", error)
    meter.finish("early")
    assert watch.chunks == [first, last]
    assert watch.ends == [("complete", USAGE, False, error)]


def test_a_stream_counted_locally_tells_its_watch_the_approximate_usage() -> None:
    watch = Watch()
    tracker = UsageTracker()
    meter = StreamMeter(Ledger(tracker, CHAT, GPT), hide_usage_chunk=False, watch=watch)
    meter.observe(
        Item(usage=None, choices=[Item(delta=Item(content="Hello", refusal=None, tool_calls=None))])
    )
    meter.finish("early")
    prompt, completion = count_request(GPT).tokens, count_tokens("Hello", "gpt-4.1").tokens
    usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    assert watch.ends == [("early", usage, True, None)]


def test_a_stream_dropped_unclosed_is_settled_early_at_the_next_reading() -> None:
    watch = Watch()
    tracker = UsageTracker()
    meter = StreamMeter(Ledger(tracker, CHAT, GPT), hide_usage_chunk=False, watch=watch)
    meter.abandon()
    meter.abandon()
    assert watch.ends == []
    assert tracker.snapshot().models["gpt-4.1"].approximate_requests == 1
    assert [end[:3] for end in watch.ends] == [
        (
            "early",
            {
                "prompt_tokens": count_request(GPT).tokens,
                "completion_tokens": 0,
                "total_tokens": count_request(GPT).tokens,
            },
            True,
        )
    ]


def test_a_stream_whose_prompt_cannot_be_counted_is_charged_its_text_and_says_so(caplog: Any) -> None:
    tracker = UsageTracker()
    meter = StreamMeter(Ledger(tracker, CHAT, {"model": "gpt-4", "messages": 5}), hide_usage_chunk=False)
    meter.observe(
        Item(
            usage=None,
            choices=[
                Item(delta=Item(content="Привет мир, как дела сегодня?", refusal=None, tool_calls=None))
            ],
        )
    )
    with caplog.at_level(logging.DEBUG, logger="holyclient"):
        meter.finish("early")
    assert "Could not count the prompt of a stream that reported no usage" in caplog.messages
    model = tracker.snapshot().models["gpt-4"]
    # counted with gpt-4's own tokenizer (cl100k_base: 14 tokens, o200k_base: 8)
    assert (model.prompt_tokens, model.completion_tokens) == (
        0,
        count_tokens("Привет мир, как дела сегодня?", "gpt-4").tokens,
    )


def test_a_stream_whose_body_names_no_model_is_counted_as_an_unpriced_uncertain_request() -> None:
    # nothing can be counted or priced, but the request was sent and may have been billed: reported
    tracker = UsageTracker()
    meter = StreamMeter(Ledger(tracker, CHAT, {"model": 5, "messages": MESSAGES}), hide_usage_chunk=False)
    meter.finish("early")
    snapshot = tracker.snapshot()
    model = snapshot.models["<chat completion>"]
    assert (model.requests, model.uncertain_requests, model.prompt_tokens, model.cost_usd) == (1, 1, 0, None)
    assert snapshot.unpriced_models == ("<chat completion>",)


# --- learning a stand-in tokenizer's correction ------------------------------------------------------


def _learn(tracker: UsageTracker, body: dict[str, Any], times: int, ratio: float) -> None:
    """Settle ``times`` holds of ``body`` with a bill of ``ratio`` times its stand-in count."""
    for _ in range(times):
        reservation = tracker.reserve(body)
        assert reservation.stand_in is not None
        billed = round(reservation.stand_in[1] * ratio)
        tracker.settle(reservation, {"prompt_tokens": billed, "completion_tokens": 1})


def _high(tracker: UsageTracker, body: dict[str, Any]) -> int:
    return tracker.reserve(body).prompt_tokens or 0


def test_the_online_correction_is_used_from_the_twentieth_bill_and_refitted_every_twenty() -> None:
    tracker = UsageTracker()
    uncalibrated = _high(tracker, CLAUDE)
    _learn(tracker, CLAUDE, 19, 3.0)
    assert _high(tracker, CLAUDE) == uncalibrated
    _learn(tracker, CLAUDE, 1, 3.0)
    fitted = _high(tracker, CLAUDE)
    assert fitted > uncalibrated
    assert _high(tracker, CLAUDE) == fitted  # kept between refits
    _learn(tracker, CLAUDE, 1, 1.0)  # the 21st bill does not refit yet
    assert _high(tracker, CLAUDE) == fitted


def test_a_given_correction_stays_in_use_and_in_the_calibration_when_another_model_is_learnt() -> None:
    gemini = {**CLAUDE, "model": "gemini-2.5-flash"}
    given = Calibration({"claude-sonnet-4.5": ModelFit(3.0, 0.01, 5)})
    tracker = UsageTracker(calibration=given)
    calibrated = _high(tracker, CLAUDE)
    assert calibrated > _high(UsageTracker(), CLAUDE)
    _learn(tracker, gemini, 20, 2.0)
    assert _high(tracker, CLAUDE) == calibrated
    assert set(tracker.calibration().models) == {"claude-sonnet-4.5", "gemini-2.5-flash"}


def test_only_an_exact_bill_with_prompt_tokens_teaches_the_correction() -> None:
    tracker = UsageTracker()
    reservation = tracker.reserve(CLAUDE)
    tracker.settle(reservation, {"prompt_tokens": 0, "completion_tokens": 3})
    reservation = tracker.reserve(CLAUDE)
    tracker.settle(reservation, {"prompt_tokens": 7, "completion_tokens": 3}, approximate=True)
    assert tracker.calibration().models == {}
    reservation = tracker.reserve(CLAUDE)
    tracker.settle(reservation, {"prompt_tokens": 1, "completion_tokens": 3})
    assert tracker.calibration().models["claude-sonnet-4.5"].samples == 1
