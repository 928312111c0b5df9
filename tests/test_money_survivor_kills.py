"""Money rules the scopes' own tests left unchecked: each test here was written against a mutant of the
code that survived ``benchmarks/mutation.sh pricing`` or ``... send`` (issue 41, item 14), and was
checked by applying its mutant by hand and seeing the test fail.

* a request that times out after it was sent, under a limiter, keeps its hold as uncertain spend;
* ``Client(calibration=...)`` / ``AsyncClient(calibration=...)`` reach the usage tracker;
* ``with_options(timeout=...)`` applies after ``client.timeout`` was read;
* an SDK usage object with ``completion_tokens_details`` is read and priced in full;
* a partial price override applies to a model's own name only, whatever later entries alias;
* a Responses continuation without ``input`` teaches the calibration nothing (the real bug: it added a
  zero-count sample that counted toward the refit every 20 bills, delaying a model's first correction).
"""

from __future__ import annotations

import pytest

from holyclient import APITimeoutError, AsyncClient, Client
from holyclient.pricing import (
    PriceFileError,
    PriceTable,
    UsageTracker,
    billed_tokens,
    charging_for,
    cost_from_usage,
)
from holyclient.ratelimit import LocalLimiter
from holyclient.testing import Fault, LocalServer
from holyclient.tokens import Calibration, ModelFit, count_request

MESSAGES = [{"role": "user", "content": "Say hello to the world"}]
BODY = {"model": "gpt-4.1", "messages": MESSAGES, "max_tokens": 100}
CLAUDE = {"model": "claude-sonnet-4.5", "messages": MESSAGES, "max_tokens": 100}
RESPONSES = charging_for("POST", "/responses")
#: what BODY holds against a budget (its prompt plus its 100 output tokens on gpt-4.1)
HELD = UsageTracker(budget_usd=1.0).reserve(BODY).worst_case_usd


# --- a timeout after sending, under a limiter ---------------------------------------------------------


def test_a_sync_request_timing_out_after_it_was_sent_under_a_limiter_keeps_its_hold_as_uncertain():
    limiter = LocalLimiter(rpm=1000, tpm=1_000_000)
    with (
        LocalServer(faults=[Fault.hang(5)]) as server,
        Client(
            api_key="k", base_url=server.base_url, budget_usd=1.0, limiter=limiter, timeout=0.3, max_retries=0
        ) as client,
    ):
        with pytest.raises(APITimeoutError):
            client.chat.completions.create(**BODY)
        snapshot = client.usage.snapshot()
    assert snapshot.reserved_usd == 0.0
    assert snapshot.uncertain_usd == pytest.approx(HELD)
    assert snapshot.models["gpt-4.1"].uncertain_requests == 1


async def test_an_async_request_timing_out_after_it_was_sent_under_a_limiter_keeps_its_hold_as_uncertain():
    limiter = LocalLimiter(rpm=1000, tpm=1_000_000)
    with LocalServer(faults=[Fault.hang(5)]) as server:
        async with AsyncClient(
            api_key="k", base_url=server.base_url, budget_usd=1.0, limiter=limiter, timeout=0.3, max_retries=0
        ) as client:
            with pytest.raises(APITimeoutError):
                await client.chat.completions.create(**BODY)
            snapshot = client.usage.snapshot()
    assert snapshot.reserved_usd == 0.0
    assert snapshot.uncertain_usd == pytest.approx(HELD)
    assert snapshot.models["gpt-4.1"].uncertain_requests == 1


# --- calibration given to the client -------------------------------------------------------------------

FIT = ModelFit(factor=2.0, error=0.01, samples=50)


@pytest.mark.parametrize("client_class", [Client, AsyncClient])
def test_a_calibration_given_to_a_client_reaches_its_usage_and_its_holds(client_class):
    calibration = Calibration({"claude-sonnet-4.5": FIT})
    client = client_class(
        api_key="k", base_url="http://127.0.0.1:9/v1", calibration=calibration, budget_usd=5.0
    )
    assert client.usage.calibration().models == {"claude-sonnet-4.5": FIT}
    expected = count_request(CLAUDE, calibration=calibration)
    assert expected.count_method == "calibrated"
    assert client.usage.reserve(CLAUDE).prompt_tokens == expected.input_tokens_range[1]


# --- with_options(timeout=...) after client.timeout was read ---------------------------------------------


def test_a_copy_with_a_shorter_timeout_times_out_even_after_the_original_timeout_was_read():
    with (
        LocalServer(faults=[Fault.hang(5)]) as server,
        Client(api_key="k", base_url=server.base_url, max_retries=0) as client,
    ):
        assert client.timeout.read == 600  # read: the default is made and kept on the client
        quick = client.with_options(timeout=0.3)
        assert quick.timeout == 0.3  # as given, as openai's
        assert client.timeout.read == 600
        with pytest.raises(APITimeoutError):
            quick.chat.completions.create(**BODY)


async def test_an_async_copy_with_a_shorter_timeout_times_out_even_after_the_original_timeout_was_read():
    with LocalServer(faults=[Fault.hang(5)]) as server:
        async with AsyncClient(api_key="k", base_url=server.base_url, max_retries=0) as client:
            assert client.timeout.read == 600
            quick = client.with_options(timeout=0.3)
            assert quick.timeout == 0.3  # as given, as openai's
            with pytest.raises(APITimeoutError):
                await quick.chat.completions.create(**BODY)


# --- SDK usage objects ------------------------------------------------------------------------------------


def _sdk_usage():
    from openai.types import CompletionUsage
    from openai.types.completion_usage import CompletionTokensDetails, PromptTokensDetails

    return CompletionUsage(
        prompt_tokens=1000,
        completion_tokens=500,
        total_tokens=1500,
        prompt_tokens_details=PromptTokensDetails(cached_tokens=400, audio_tokens=100),
        completion_tokens_details=CompletionTokensDetails(reasoning_tokens=200, audio_tokens=50),
    )


def test_an_sdk_completion_usage_with_token_details_is_read_in_full():
    billed = billed_tokens(_sdk_usage())
    assert (billed.prompt, billed.cached, billed.audio_input) == (1000, 400, 100)
    assert (billed.completion, billed.reasoning, billed.audio_output) == (500, 200, 50)


def test_an_sdk_completion_usage_with_token_details_is_priced_at_its_audio_and_cached_prices():
    from holyclient.types import CompletionUsage

    for usage in (_sdk_usage(), CompletionUsage.model_validate(_sdk_usage().model_dump())):  # type: ignore[attr-defined]
        # $0.15 text in, $10 audio in, $0.6 text out, $20 audio out per 1M tokens
        cost = cost_from_usage("gpt-4o-mini-audio-preview", usage)
        # gpt-4o-mini-audio-preview has no cache discount: its 400 cached tokens cost the input price
        assert cost.input_usd == pytest.approx((900 * 0.15 + 100 * 10.0) / 1e6)
        assert cost.output_usd == pytest.approx((450 * 0.6 + 50 * 20.0) / 1e6)
        assert (cost.input_tokens, cost.cached_input_tokens, cost.output_tokens) == (1000, 400, 500)


# --- partial overrides and aliases ------------------------------------------------------------------------


def test_a_partial_override_of_a_name_that_a_later_entry_aliases_is_refused_naming_the_missing_field():
    table = PriceTable.builtin()
    with pytest.raises(PriceFileError, match=r"models\.house\.output: missing"):
        table.merge(
            {
                "models": {
                    "house-model": {"input": 1.0, "output": 2.0, "aliases": ["house"]},
                    "house": {"input": 3.0},  # an alias of another model: not a partial override of it
                }
            }
        )


def test_a_partial_override_of_an_alias_of_a_built_in_model_is_refused_and_the_model_keeps_its_prices():
    table = PriceTable.builtin()
    before = table.lookup("gpt-4.1").price
    with pytest.raises(PriceFileError, match=r"models\.gpt-4\.1-2025-04-14\.output: missing"):
        table.merge({"models": {"gpt-4.1-2025-04-14": {"input": 9.0}}})
    assert table.lookup("gpt-4.1-2025-04-14").price == before


def test_a_partial_override_of_a_model_that_a_later_model_took_as_an_alias_overrides_the_model_itself():
    table = PriceTable.builtin()
    table.merge({"models": {"my-gpt": {"input": 1.0, "output": 2.0, "aliases": ["gpt-4.1"]}}})
    table.merge({"models": {"gpt-4.1": {"input": 9.0}}})  # gpt-4.1's own name: a partial override of it
    assert table.models["gpt-4.1"].price.input == 9.0
    assert table.models["gpt-4.1"].price.output == 8.0  # kept from the built-in entry
    assert table.lookup("gpt-4.1").name == "gpt-4.1"


def test_a_name_looked_up_before_a_later_model_aliases_it_finds_that_model():
    table = PriceTable.builtin()
    assert table.get("house") is None  # looked up (and remembered) while unknown
    table.merge({"models": {"house-model": {"input": 1.0, "output": 2.0, "aliases": ["house"]}}})
    assert table.lookup("house").name == "house-model"
    table.merge({"models": {"house-model": {"input": 4.0}}})  # a partial override of the model's own name
    assert table.lookup("house").price.input == 4.0
    assert table.lookup("house").price.output == 2.0


# --- the calibration schedule after a continuation --------------------------------------------------------


def test_a_responses_continuation_without_input_does_not_delay_a_models_first_correction():
    model = "claude-sonnet-4.5"
    questions = [f"Explain how {topic} form, in two short paragraphs." for topic in range(20)]
    with LocalServer() as server, Client(api_key="k", base_url=server.base_url) as client:
        first = client.responses.create(model=model, input="Start a story about a lighthouse.")
        # a continuation: no input of its own, the earlier turn is on the server (nothing to count)
        client.responses.create(model=model, previous_response_id=first.id)
        for question in questions[1:]:
            client.responses.create(model=model, input=question)
        # 20 billed answers that each teach the correction (the first and the 19 questions): the
        # next hold uses the fitted correction, not the family's published ratios
        probe = {"model": model, "input": "Explain how rivers form, in two short paragraphs."}
        held = client.usage.reserve(probe, RESPONSES)
        learnt = client.usage.calibration()
    assert learnt.models[model].samples == 20
    expected = count_request(probe, endpoint="/responses", calibration=learnt)
    assert expected.count_method == "calibrated"
    assert held.prompt_tokens == expected.input_tokens_range[1]
