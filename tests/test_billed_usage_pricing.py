"""Billed usage priced right in every shape: one golden figure per shape and model family.

Hand totals use the list prices in ``_data/models.json`` (USD per 1M tokens, input / cached / output).
"""

from __future__ import annotations

import pytest

from holyclient.pricing import UsageTracker, cost_from_usage, usage_tokens

GOLDEN = [
    pytest.param(  # gpt-4.1 2.00 / 0.50 / 8.00: 6,000 fresh + 4,000 cached in, 1,000 out
        "gpt-4.1",
        {
            "prompt_tokens": 10_000,
            "completion_tokens": 1_000,
            "prompt_tokens_details": {"cached_tokens": 4_000},
        },
        (6_000 * 2.00 + 4_000 * 0.50 + 1_000 * 8.00) / 1e6,
        id="chat-cached-openai",
    ),
    pytest.param(  # Responses API names, o3 2.00 / 0.50 / 8.00; reasoning already inside output_tokens
        "o3",
        {
            "input_tokens": 10_000,
            "input_tokens_details": {"cached_tokens": 4_000},
            "output_tokens": 1_000,
            "output_tokens_details": {"reasoning_tokens": 600},
            "total_tokens": 11_000,
        },
        (6_000 * 2.00 + 4_000 * 0.50 + 1_000 * 8.00) / 1e6,
        id="responses-cached-reasoning-openai",
    ),
    pytest.param(  # gemini-2.5-flash 0.30 / 0.03 / 2.50: thoughts reported beside the completion
        "gemini-2.5-flash",
        {
            "prompt_tokens": 1_000,
            "completion_tokens": 200,
            "completion_tokens_details": {"reasoning_tokens": 800},
            "total_tokens": 2_000,
        },
        (1_000 * 0.30 + 1_000 * 2.50) / 1e6,
        id="reasoning-beside-completion-gemini",
    ),
    pytest.param(  # gemini-2.5-flash audio input 1.00
        "gemini-2.5-flash",
        {"prompt_tokens": 1_000, "completion_tokens": 10, "prompt_tokens_details": {"audio_tokens": 600}},
        (400 * 0.30 + 600 * 1.00 + 10 * 2.50) / 1e6,
        id="audio-input-gemini",
    ),
    pytest.param(  # gpt-4o-audio-preview text 2.50 / 10.00, audio 40.00 / 80.00
        "gpt-4o-audio-preview",
        {
            "prompt_tokens": 1_000,
            "completion_tokens": 500,
            "prompt_tokens_details": {"audio_tokens": 600, "cached_tokens": 0},
            "completion_tokens_details": {"audio_tokens": 300, "reasoning_tokens": 0},
            "total_tokens": 1_500,
        },
        (400 * 2.50 + 600 * 40.00 + 200 * 10.00 + 300 * 80.00) / 1e6,
        id="audio-in-and-out-openai",
    ),
    pytest.param(  # claude-sonnet-4.5 above 200k input: 6.00 / 0.60 / 22.50 for the whole request
        "claude-sonnet-4.5",
        {
            "prompt_tokens": 250_000,
            "completion_tokens": 1_000,
            "prompt_tokens_details": {"cached_tokens": 50_000},
        },
        (200_000 * 6.00 + 50_000 * 0.60 + 1_000 * 22.50) / 1e6,
        id="long-context-tier-cached-claude",
    ),
    pytest.param(  # claude-sonnet-4.5 at or below 200k: 3.00 / 0.30 / 15.00
        "claude-sonnet-4.5",
        {
            "prompt_tokens": 200_000,
            "completion_tokens": 1_000,
            "prompt_tokens_details": {"cached_tokens": 50_000},
        },
        (150_000 * 3.00 + 50_000 * 0.30 + 1_000 * 15.00) / 1e6,
        id="base-tier-cached-claude",
    ),
    pytest.param(  # gemini-2.5-pro above 200k: 2.50 / 0.25 / 15.00
        "gemini-2.5-pro",
        {"prompt_tokens": 300_000, "completion_tokens": 2_000},
        (300_000 * 2.50 + 2_000 * 15.00) / 1e6,
        id="long-context-tier-gemini",
    ),
    pytest.param(  # deepseek-chat 0.28 / 0.028 / 0.42, DeepSeek's own cache-hit field
        "deepseek-chat",
        {
            "prompt_tokens": 1_000,
            "completion_tokens": 100,
            "prompt_cache_hit_tokens": 600,
            "prompt_cache_miss_tokens": 400,
        },
        (400 * 0.28 + 600 * 0.028 + 100 * 0.42) / 1e6,
        id="cache-hit-field-deepseek",
    ),
    pytest.param(  # deepseek-reasoner: reasoning inside completion_tokens (total agrees): not added twice
        "deepseek-reasoner",
        {
            "prompt_tokens": 100,
            "completion_tokens": 900,
            "completion_tokens_details": {"reasoning_tokens": 700},
            "total_tokens": 1_000,
        },
        (100 * 0.28 + 900 * 0.42) / 1e6,
        id="reasoning-inside-completion-deepseek",
    ),
]


@pytest.mark.parametrize(("model", "usage", "usd"), GOLDEN)
def test_a_billed_usage_costs_its_golden_figure(model, usage, usd):
    assert cost_from_usage(model, usage).cost_usd == pytest.approx(usd, rel=1e-12)


@pytest.mark.parametrize(("model", "usage", "usd"), GOLDEN)
def test_the_usage_tracker_charges_the_same_golden_figure(model, usage, usd):
    tracker = UsageTracker()
    tracker.record(model, usage)
    assert tracker.total_cost_usd == pytest.approx(usd, rel=1e-12)


def test_reasoning_beside_the_completion_counts_as_completion_tokens():
    usage = {
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "completion_tokens_details": {"reasoning_tokens": 20},
        "total_tokens": 35,
    }
    assert usage_tokens(usage) == (10, 0, 25)
