"""One reader for every usage shape a relay sends (issue 41, item 8): OpenAI chat and Responses (cache
reads and writes, reasoning, audio), Gemini's thinking tokens beside the completion, DeepSeek's hit and
miss counts, Claude's cache fields, and a relay's own ``cost``. Usage that does not add up is flagged
(the snapshot and the log) and priced the dearer way, never silently low.

Proved on shapes written by hand, on generated usage (every shape of a known truth reads back exactly;
any values at all are read without raising and within their parents), and through the public client
against the local server's relay profile, which answers each model family in its own shape.
"""

from __future__ import annotations

import logging
import random
from typing import Any

import httpx2
import pytest

from holyclient import Client
from holyclient.pricing import UsageTracker, billed_tokens, cost_from_usage
from holyclient.testing import LocalServer
from support import completion

# --- the shapes, written by hand ----------------------------------------------------------------------


def test_openai_chat_usage_reads_its_cache_reads_writes_audio_and_reasoning() -> None:
    billed = billed_tokens(
        {
            "prompt_tokens": 2000,
            "completion_tokens": 300,
            "total_tokens": 2300,
            "prompt_tokens_details": {"cached_tokens": 1200, "cache_write_tokens": 500, "audio_tokens": 100},
            "completion_tokens_details": {"reasoning_tokens": 120, "audio_tokens": 40},
        }
    )
    assert (billed.prompt, billed.cached, billed.cache_write, billed.cache_write_long) == (2000, 1200, 500, 0)
    assert (billed.audio_input, billed.completion, billed.reasoning, billed.audio_output) == (
        100,
        300,
        120,
        40,
    )
    assert billed.problems == ()


def test_responses_usage_splits_its_writes_by_retention() -> None:
    billed = billed_tokens(
        {
            "input_tokens": 5000,
            "output_tokens": 200,
            "total_tokens": 5200,
            "input_tokens_details": {
                "cached_tokens": 1000,
                "cache_write_tokens": 3000,
                "cache_write_tokens_details": {"ttl_30m_tokens": 1000, "ttl_12h_tokens": 2000},
            },
            "output_tokens_details": {"reasoning_tokens": 50},
        }
    )
    assert (billed.prompt, billed.cached, billed.cache_write, billed.cache_write_long) == (
        5000,
        1000,
        1000,
        2000,
    )
    assert (billed.completion, billed.reasoning, billed.problems) == (200, 50, ())


def test_gemini_thinking_tokens_beside_the_completion_are_output() -> None:
    # a relay passing Gemini's thoughtsTokenCount through (router-for-me/CLIProxyAPI#5733): no visible text
    billed = billed_tokens(
        {
            "prompt_tokens": 21,
            "completion_tokens": 0,
            "total_tokens": 81,
            "completion_tokens_details": {"reasoning_tokens": 60},
        }
    )
    assert (billed.prompt, billed.completion, billed.reasoning, billed.problems) == (21, 60, 60, ())
    assert cost_from_usage(
        "gemini-2.5-flash",
        {
            "prompt_tokens": 21,
            "completion_tokens": 0,
            "total_tokens": 81,
            "completion_tokens_details": {"reasoning_tokens": 60},
        },
    ).output_usd == (pytest.approx(60 * 2.5 / 1e6))


def test_deepseek_hits_are_reads_and_a_hit_and_miss_that_do_not_make_the_prompt_are_flagged() -> None:
    good = billed_tokens(
        {
            "prompt_tokens": 100,
            "completion_tokens": 5,
            "prompt_cache_hit_tokens": 64,
            "prompt_cache_miss_tokens": 36,
        }
    )
    assert (good.prompt, good.cached, good.problems) == (100, 64, ())
    bad = billed_tokens(
        {
            "prompt_tokens": 100,
            "completion_tokens": 5,
            "prompt_cache_hit_tokens": 64,
            "prompt_cache_miss_tokens": 80,
        }
    )
    assert bad.prompt == 144  # the larger of the two readings
    assert bad.problems == (
        "prompt_cache_hit_tokens (64) + prompt_cache_miss_tokens (80) is not prompt_tokens (100)",
    )


@pytest.mark.parametrize(
    ("usage", "prompt"),
    [
        # a relay whose prompt_tokens includes the cache (as LiteLLM reports Claude)
        (
            {
                "prompt_tokens": 3000,
                "completion_tokens": 10,
                "total_tokens": 3010,
                "prompt_tokens_details": {"cached_tokens": 1000},
                "cache_read_input_tokens": 1000,
                "cache_creation_input_tokens": 1500,
            },
            3000,
        ),
        # a relay that keeps Anthropic's meaning (cache beside the prompt), its total saying so
        (
            {
                "prompt_tokens": 500,
                "completion_tokens": 10,
                "total_tokens": 3010,
                "cache_read_input_tokens": 1000,
                "cache_creation_input_tokens": 1500,
            },
            3000,
        ),
        # the same without a total: the cache cannot be part of a smaller prompt
        (
            {
                "prompt_tokens": 500,
                "completion_tokens": 10,
                "cache_read_input_tokens": 1000,
                "cache_creation_input_tokens": 1500,
            },
            3000,
        ),
        # Anthropic's own usage shape passed through
        (
            {
                "input_tokens": 500,
                "output_tokens": 10,
                "cache_read_input_tokens": 1000,
                "cache_creation_input_tokens": 1500,
                "cache_creation": {"ephemeral_5m_input_tokens": 1500, "ephemeral_1h_input_tokens": 0},
            },
            3000,
        ),
    ],
    ids=["included", "beside-by-total", "beside-by-size", "anthropic-native"],
)
def test_claudes_cache_fields_are_read_whether_the_relay_counts_them_in_the_prompt_or_beside_it(
    usage, prompt
):
    billed = billed_tokens(usage)
    assert (billed.prompt, billed.cached, billed.cache_write, billed.cache_write_long) == (
        prompt,
        1000,
        1500,
        0,
    )
    assert billed.problems == ()
    # 500 uncached at $3, 1,000 read at $0.30, 1,500 written for 5 minutes at $3.75, 10 out at $15
    assert cost_from_usage("claude-sonnet-4.5", usage).cost_usd == pytest.approx(
        (500 * 3.0 + 1000 * 0.3 + 1500 * 3.75 + 10 * 15.0) / 1e6
    )


def test_claudes_one_hour_writes_are_priced_at_the_one_hour_write_price() -> None:
    usage = {
        "prompt_tokens": 3000,
        "completion_tokens": 10,
        "total_tokens": 3010,
        "cache_creation_input_tokens": 2000,
        "cache_creation": {"ephemeral_5m_input_tokens": 500, "ephemeral_1h_input_tokens": 1500},
    }
    billed = billed_tokens(usage)
    assert (billed.cache_write, billed.cache_write_long) == (500, 1500)
    assert cost_from_usage("claude-sonnet-4.5", usage).input_usd == pytest.approx(
        (1000 * 3.0 + 500 * 3.75 + 1500 * 6.0) / 1e6
    )


def test_a_total_larger_than_prompt_plus_completion_is_charged_as_output_and_flagged() -> None:
    billed = billed_tokens({"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 200})
    assert (billed.prompt, billed.completion) == (100, 100)
    assert billed.problems == (
        "total_tokens (200) is 80 more than prompt (100) plus completion (20): the difference is charged as output",
    )


@pytest.mark.parametrize(
    ("usage", "problem"),
    [
        (
            {"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 30}},
            "cached, written and audio prompt tokens (30) exceed the prompt (10)",
        ),
        (
            {
                "prompt_tokens": 10,
                "completion_tokens": 5,
                "completion_tokens_details": {"reasoning_tokens": 9},
            },
            "reasoning_tokens (9) exceed completion_tokens (5): read as beside it",
        ),
        (
            {"prompt_tokens": 10, "completion_tokens": 5, "completion_tokens_details": {"audio_tokens": 9}},
            "completion audio_tokens (9) exceed completion_tokens (5)",
        ),
        (
            {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 12},
            "total_tokens (12) is less than prompt (10) plus completion (5)",
        ),
        (
            {"prompt_tokens": "10", "completion_tokens": 5},
            "prompt_tokens is '10', not a token count: read as 0",
        ),
        (
            {
                "input_tokens": 10,
                "output_tokens": 5,
                "input_tokens_details": {
                    "cache_write_tokens": 6,
                    "cache_write_tokens_details": {"ttl_30m_tokens": 2, "ttl_12h_tokens": 2},
                },
            },
            "ttl_30m_tokens (2) + ttl_12h_tokens (2) is not the 6 tokens written",
        ),
        (
            {"prompt_tokens": 10, "completion_tokens": 5, "cost": "0.01"},
            "cost is '0.01', not an amount: ignored",
        ),
    ],
)
def test_usage_that_does_not_add_up_is_flagged(usage, problem):
    assert problem in billed_tokens(usage).problems


def test_writes_the_retention_split_leaves_unexplained_are_taken_as_the_long_dearer_ones() -> None:
    billed = billed_tokens(
        {
            "input_tokens": 10,
            "output_tokens": 5,
            "input_tokens_details": {
                "cache_write_tokens": 6,
                "cache_write_tokens_details": {"ttl_30m_tokens": 2, "ttl_12h_tokens": 2},
            },
        }
    )
    assert (billed.cache_write, billed.cache_write_long) == (2, 4)


# --- generated usage ------------------------------------------------------------------------------------


def _truth(rng: random.Random) -> dict[str, int]:
    return {
        "uncached": rng.randint(0, 5000),
        "read": rng.choice([0, rng.randint(0, 5000)]),
        "write": rng.choice([0, rng.randint(0, 3000)]),
        "write_long": rng.choice([0, rng.randint(0, 3000)]),
        "text_out": rng.randint(0, 2000),
        "reasoning": rng.choice([0, rng.randint(0, 2000)]),
    }


def _render(t: dict[str, int], shape: str) -> dict[str, Any]:
    """A usage of the truth ``t`` as the upstream behind ``shape`` reports it."""
    prompt = t["uncached"] + t["read"] + t["write"] + t["write_long"]
    completion = t["text_out"] + t["reasoning"]
    writes = t["write"] + t["write_long"]
    if shape == "openai chat":
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": t["read"], "cache_write_tokens": writes},
            "completion_tokens_details": {"reasoning_tokens": t["reasoning"]},
        }
    if shape == "responses":
        return {
            "input_tokens": prompt,
            "output_tokens": completion,
            "total_tokens": prompt + completion,
            "input_tokens_details": {
                "cached_tokens": t["read"],
                "cache_write_tokens": writes,
                "cache_write_tokens_details": {
                    "ttl_30m_tokens": t["write"],
                    "ttl_12h_tokens": t["write_long"],
                },
            },
            "output_tokens_details": {"reasoning_tokens": t["reasoning"]},
        }
    if shape == "gemini":
        return {
            "prompt_tokens": prompt,
            "completion_tokens": t["text_out"],
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {
                "cached_tokens": t["read"],
                "cache_write_tokens": writes,
            },
            "completion_tokens_details": {"reasoning_tokens": t["reasoning"]},
        }
    split = {"ephemeral_5m_input_tokens": t["write"], "ephemeral_1h_input_tokens": t["write_long"]}
    if shape == "claude included":
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": t["read"]},
            "cache_read_input_tokens": t["read"],
            "cache_creation_input_tokens": writes,
            "cache_creation": split,
            "completion_tokens_details": {"reasoning_tokens": t["reasoning"]},
        }
    assert shape == "anthropic native"
    return {
        "input_tokens": t["uncached"],
        "output_tokens": completion,
        "cache_read_input_tokens": t["read"],
        "cache_creation_input_tokens": writes,
        "cache_creation": split,
    }


SHAPES = ("openai chat", "responses", "gemini", "claude included", "anthropic native")
#: the shapes that split their writes by retention (Chat Completions reports only their sum)
SPLIT = ("responses", "claude included", "anthropic native")


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_of_a_known_usage_reads_back_its_tokens_without_problems(shape):
    rng = random.Random(f"reader-{shape}")
    for _ in range(400):
        t = _truth(rng)
        billed = billed_tokens(_render(t, shape))
        assert billed.problems == ()
        assert billed.prompt == t["uncached"] + t["read"] + t["write"] + t["write_long"]
        writes = (t["write"], t["write_long"]) if shape in SPLIT else (t["write"] + t["write_long"], 0)
        assert (billed.cached, billed.cache_write, billed.cache_write_long) == (t["read"], *writes)
        assert billed.completion == t["text_out"] + t["reasoning"]


def _anything(rng: random.Random) -> Any:
    return rng.choice([None, 0, 1, 7, 1000, -3, 2.0, 2.5, "12", True, [], {}, float("nan")])


def _scramble(rng: random.Random) -> dict[str, Any]:
    keys = [
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "input_tokens",
        "output_tokens",
        "prompt_cache_hit_tokens",
        "prompt_cache_miss_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "cost",
    ]
    usage: dict[str, Any] = {k: _anything(rng) for k in keys if rng.random() < 0.6}
    if rng.random() < 0.5:
        usage["prompt_tokens_details"] = {
            k: _anything(rng)
            for k in ("cached_tokens", "audio_tokens", "cache_write_tokens")
            if rng.random() < 0.7
        }
        if rng.random() < 0.3:
            usage["prompt_tokens_details"]["cache_write_tokens_details"] = {
                "ttl_30m_tokens": _anything(rng),
                "ttl_12h_tokens": _anything(rng),
            }
    if rng.random() < 0.5:
        usage["completion_tokens_details"] = {
            "reasoning_tokens": _anything(rng),
            "audio_tokens": _anything(rng),
        }
    if rng.random() < 0.2:
        usage["cache_creation"] = {
            "ephemeral_5m_input_tokens": _anything(rng),
            "ephemeral_1h_input_tokens": 3,
        }
    return usage


def test_usage_with_any_values_is_read_without_raising_and_every_part_within_its_whole():
    rng = random.Random(41)
    for _ in range(3000):
        usage = _scramble(rng)
        billed = billed_tokens(usage)
        counts = (
            billed.prompt,
            billed.cached,
            billed.audio_input,
            billed.completion,
            billed.reasoning,
            billed.audio_output,
            billed.cache_write,
            billed.cache_write_long,
        )
        assert all(type(n) is int and n >= 0 for n in counts), usage
        assert (
            billed.cached + billed.cache_write + billed.cache_write_long + billed.audio_input <= billed.prompt
        )
        assert billed.audio_output <= billed.completion
        total = usage.get("total_tokens")
        if type(total) is int and total >= 0 and not billed.problems:
            assert total in (0, billed.prompt + billed.completion), usage
        cost = cost_from_usage("claude-sonnet-4.5", usage)
        assert cost.cost_usd >= 0


# --- through the public client --------------------------------------------------------------------------


def test_a_client_flags_unreconciled_usage_in_its_snapshot_and_log_once_per_kind(make_client, caplog):
    def handler(request: httpx2.Request) -> httpx2.Response:
        answer = completion("hi", model="gpt-4.1")
        answer["usage"] = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 180}
        return httpx2.Response(200, json=answer)

    client = make_client(handler)
    with caplog.at_level(logging.WARNING, logger="holyclient"):
        for _ in range(3):
            client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "hi"}])
    snapshot = client.usage.snapshot()
    model = snapshot.models["gpt-4.1"]
    assert (model.unreconciled_requests, snapshot.unreconciled_requests) == (3, 3)
    assert model.completion_tokens == 3 * 80  # the unexplained 60 of each charged as output
    assert model.cost_usd == pytest.approx(3 * (100 * 2.0 + 80 * 8.0) / 1e6)
    expected = (
        "usage of gpt-4.1 did not add up: total_tokens (180) is 60 more than prompt (100) plus completion (20): "
        "the difference is charged as output"
    )
    assert snapshot.warnings == (expected,)
    assert [r.getMessage() for r in caplog.records] == [expected]
    assert snapshot.as_dict()["unreconciled_requests"] == 3


def test_the_relay_profile_answers_each_family_in_its_shape_and_every_shape_reconciles() -> None:
    big = "The tide comes in twice a day and goes out twice a day. " * 80  # over 1,024 tokens
    marked = {
        "role": "system",
        "content": [{"type": "text", "text": big, "cache_control": {"type": "ephemeral"}}],
    }
    with LocalServer(profile="holysheep") as relay, Client(base_url=relay.base_url, api_key="k") as client:
        for question in ("first", "second"):
            for model, messages in (
                ("claude-sonnet-4.5", [marked, {"role": "user", "content": question}]),
                ("gpt-4.1", [{"role": "system", "content": big}, {"role": "user", "content": question}]),
                (
                    "deepseek-v3.2",
                    [{"role": "system", "content": big}, {"role": "user", "content": question}],
                ),
                ("gemini-2.5-flash", [{"role": "user", "content": question}]),
            ):
                client.chat.completions.create(model=model, messages=messages)
        snapshot = client.usage.snapshot()
    assert snapshot.unreconciled_requests == 0, snapshot.warnings
    claude, gpt, deepseek, gemini = (
        snapshot.models[m] for m in ("claude-sonnet-4.5", "gpt-4.1", "deepseek-v3.2", "gemini-2.5-flash")
    )
    assert (
        claude.cache_write_tokens > 0 and claude.cached_tokens == claude.cache_write_tokens
    )  # written, then read
    assert gpt.cached_tokens > 0 and gpt.cache_write_tokens > 0
    assert deepseek.cached_tokens > 0 and deepseek.cache_write_tokens == 0
    assert gemini.completion_tokens > 2 * 10  # the thinking tokens beside the answer are charged


def test_a_cost_the_relay_reports_is_kept_beside_ours_and_a_difference_is_counted_and_warned(caplog) -> None:
    messages = [{"role": "user", "content": "How do tides work?"}]
    with (
        LocalServer(profile="holysheep", report_cost=1.0) as same,
        LocalServer(profile="holysheep", report_cost=1.25) as dearer,
    ):
        with Client(base_url=same.base_url, api_key="k") as client:
            client.chat.completions.create(model="gpt-4.1", messages=messages)
            agreed = client.usage.snapshot()
        with Client(base_url=dearer.base_url, api_key="k") as client, caplog.at_level(logging.WARNING):
            client.chat.completions.create(model="gpt-4.1", messages=messages)
            client.chat.completions.create(model="gpt-4.1", messages=messages)
            differed = client.usage.snapshot()
    ours = agreed.models["gpt-4.1"].cost_usd
    assert agreed.models["gpt-4.1"].reported_cost_usd == pytest.approx(ours)
    assert (agreed.cost_mismatches, agreed.warnings) == (0, ())
    model = differed.models["gpt-4.1"]
    assert model.reported_cost_usd == pytest.approx(2 * 1.25 * ours)
    assert model.cost_usd == pytest.approx(2 * ours)  # charged at holyclient's price; the relay's beside it
    assert (model.cost_mismatches, differed.cost_mismatches) == (2, 2)
    (warning,) = differed.warnings
    assert warning.startswith("the relay reported $") and "gpt-4.1" in warning
    assert [r.getMessage() for r in caplog.records if r.name == "holyclient"] == [warning]
    assert differed.as_dict()["models"]["gpt-4.1"]["reported_cost_usd"] == pytest.approx(2 * 1.25 * ours)


def test_a_tracker_without_a_price_for_the_model_still_records_the_reported_cost() -> None:
    tracker = UsageTracker()
    tracker.record("house-model", {"prompt_tokens": 10, "completion_tokens": 2, "cost": 0.5})
    model = tracker.snapshot().models["house-model"]
    assert (model.cost_usd, model.reported_cost_usd, model.cost_mismatches) == (None, 0.5, 0)
