"""The price table, its overrides, and costs from estimates and from real usage."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from holyclient.pricing import (
    DEFAULT_OUTPUT_TOKENS,
    Price,
    PriceFileError,
    PriceTable,
    UnknownModelError,
    cost_from_usage,
    default_table,
    estimate_cost,
    estimate_request,
)
from holyclient.tokens import count_request, encoding_name_for_model
from holyclient.tokens._exact import EXACT_NAMES


@pytest.fixture
def table() -> PriceTable:
    return PriceTable.builtin()


@pytest.mark.parametrize(
    ("model", "input", "cached", "output"),
    [
        ("gpt-4.1", 2.00, 0.50, 8.00),
        ("gpt-4.1-mini", 0.40, 0.10, 1.60),
        ("gpt-4.1-nano", 0.10, 0.025, 0.40),
        ("gpt-4o", 2.50, 1.25, 10.00),
        ("gpt-4o-mini", 0.15, 0.075, 0.60),
        ("gpt-4", 30.00, 30.00, 60.00),
        ("gpt-3.5-turbo", 0.50, 0.50, 1.50),
        ("claude-sonnet-4.5", 3.00, 0.30, 15.00),
        ("gemini-2.5-flash", 0.30, 0.03, 2.50),
        ("deepseek-v3.2", 0.28, 0.028, 0.42),
        ("text-embedding-3-small", 0.02, 0.02, 0.0),
        ("text-embedding-3-large", 0.13, 0.13, 0.0),
    ],
)
def test_the_table_holds_the_published_list_prices(table, model, input, cached, output):
    price = table.lookup(model).price
    assert (price.input, price.cached_input, price.output) == (input, cached, output)


def test_claude_sonnet_45_costs_more_above_200k_input_tokens(table):
    info = table.lookup("claude-sonnet-4.5")
    assert info.price_for(200_000).input == 3.00
    above = info.price_for(200_001)
    assert (above.input, above.cached_input, above.output) == (6.00, 0.60, 22.50)


def test_every_entry_is_sourced_dated_and_agrees_with_the_tokenizer(table):
    for name, info in table.models.items():
        assert info.source.startswith("https://"), name
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", info.as_of), name
        assert info.context_window > 0, name
        expected = encoding_name_for_model(name)
        if expected[0] in EXACT_NAMES:  # its own tokenizer ships; the table names the stand-in without it
            expected = ("o200k_base", True)
        assert (info.encoding, info.approximate) == expected, name


@pytest.mark.parametrize(
    ("name", "entry"),
    [
        ("gpt-4.1-2025-04-14", "gpt-4.1"),
        ("GPT-4.1", "gpt-4.1"),
        ("gpt-4o-2024-08-06", "gpt-4o"),
        ("gpt-4o-2024-05-13", "gpt-4o-2024-05-13"),  # a snapshot with its own, older price
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("ft:gpt-4o-mini-2024-07-18:acme::abc123", "gpt-4o-mini"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4.5"),
        ("claude-sonnet-4-5", "claude-sonnet-4.5"),
        ("deepseek-chat", "deepseek-v3.2"),
        ("deepseek-reasoner", "deepseek-v3.2"),
        ("gpt-4-0613", "gpt-4"),
        ("openai/gpt-4.1-mini", "gpt-4.1-mini"),
        ("gpt-4.1-mini-2026-01-01", "gpt-4.1-mini"),  # an unlisted dated snapshot
    ],
)
def test_aliases_and_dated_snapshots_find_their_entry(table, name, entry):
    assert table.lookup(name).name == entry


def test_an_unknown_model_names_close_matches_and_how_to_add_a_price(table):
    with pytest.raises(UnknownModelError) as info:
        table.lookup("gpt-41-mini")
    message = str(info.value)
    assert "gpt-4.1-mini" in info.value.suggestions
    assert "Did you mean" in message and "gpt-4.1-mini" in message
    assert "--prices" in message and "HOLYSHEEP_PRICES" in message
    assert table.get("gpt-41-mini") is None


def test_a_user_file_overrides_a_price_and_adds_a_model(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(
        json.dumps(
            {
                "models": {
                    "gpt-4.1": {"input": 1.5},
                    "my-model": {"input": 1.0, "output": 4.0, "aliases": ["mine"], "context_window": 32000},
                }
            }
        )
    )
    table = PriceTable.load(path)
    gpt = table.lookup("gpt-4.1-2025-04-14")
    assert (gpt.price.input, gpt.price.output, gpt.price.cached_input) == (1.5, 8.0, 0.5)
    mine = table.lookup("mine")
    assert (mine.name, mine.price.cached_input, mine.context_window, mine.approximate) == (
        "my-model",
        1.0,
        32000,
        True,
    )


def test_the_environment_variable_names_the_user_file(tmp_path, monkeypatch):
    path = tmp_path / "p.json"
    path.write_text('{"models": {"house-llm": {"input": 0.1, "output": 0.2}}}')
    monkeypatch.setenv("HOLYSHEEP_PRICES", str(path))
    assert PriceTable.load().lookup("house-llm").price.output == 0.2
    assert PriceTable.load(use_env=False).get("house-llm") is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"models": {"x": {"input": 1.0,}}}', r"p\.json:1:\d+: invalid JSON"),
        ('{"models": {"x": {"input": 1.0}}}', r"models\.x\.output: missing"),
        (
            '{"models": {"x": {"input": "cheap", "output": 1}}}',
            r"models\.x\.input: expected a non-negative number",
        ),
        (
            '{"models": {"x": {"input": 1, "output": 1, "tiers": [{"input": 2}]}}}',
            r"tiers\[0\]\.above_input_tokens",
        ),
        ('{"models": []}', r'"models" object'),
        ('{"models": {"x": {"input": 1, "output": 1, "encoding": "p50k"}}}', r"models\.x\.encoding"),
        ('{"models": {"x": 5}}', r"^.*p\.json: models\.x: expected an object$"),
        (
            '{"models": {"x": {"input": 1, "output": 1, "tiers": {}}}}',
            r"^.*p\.json: models\.x\.tiers: expected a list$",
        ),
        (
            '{"models": {"x": {"input": 1, "output": 1, "tiers": [5]}}}',
            r"^.*p\.json: models\.x\.tiers\[0\]: expected an object$",
        ),
        (
            '{"models": {"x": {"input": 1, "output": 1, "tiers": [{"above_input_tokens": 5, "input": "x"}]}}}',
            r"^.*p\.json: models\.x\.tiers\[0\]\.input: expected a non-negative number, got 'x'$",
        ),
        (
            '{"models": {"x": {"input": 1, "output": 1, "provider": 5}}}',
            r"^.*p\.json: models\.x\.provider: expected a string$",
        ),
        (
            '{"models": {"x": {"input": 1, "output": 1, "context_window": -1}}}',
            r"^.*p\.json: models\.x\.context_window: expected a non-negative number, got -1$",
        ),
        (
            '{"models": {"x": {"input": 1, "output": 1, "approximate": 1}}}',
            r"^.*p\.json: models\.x\.approximate: expected true or false$",
        ),
        (
            '{"models": {"x": {"input": 1, "output": 1, "aliases": "mine"}}}',
            r"^.*p\.json: models\.x\.aliases: expected a list of strings$",
        ),
        (
            '{"models": {"x": {"input": 1, "output": 1, "snapshots": [5]}}}',
            r"^.*p\.json: models\.x\.snapshots: expected a list of strings$",
        ),
        (
            '{"models": {"x": {"input": 1, "output": 1, "notes": 5}}}',
            r"^.*p\.json: models\.x\.notes: expected a string$",
        ),
    ],
)
def test_a_bad_price_file_names_the_file_and_field(tmp_path, content, message):
    path = tmp_path / "p.json"
    path.write_text(content)
    with pytest.raises(PriceFileError, match=message):
        PriceTable.load(path)


def test_a_missing_price_file_is_a_clear_error(tmp_path):
    with pytest.raises(PriceFileError, match="cannot read price file"):
        PriceTable.load(tmp_path / "nope.json")


def test_cost_from_usage_bills_cached_tokens_at_the_cached_price(table):
    usage = {
        "prompt_tokens": 10_000,
        "completion_tokens": 2_000,
        "prompt_tokens_details": {"cached_tokens": 4_000},
    }
    cost = cost_from_usage("gpt-4.1", usage, table=table)
    assert cost.input_usd == pytest.approx((6_000 * 2.00 + 4_000 * 0.50) / 1e6)
    assert cost.output_usd == pytest.approx(2_000 * 8.00 / 1e6)
    assert cost.cost_usd == pytest.approx(0.014 + 0.016)
    assert (cost.cached_input_tokens, cost.output_assumed) == (4_000, False)


def test_cost_from_usage_accepts_sdk_objects_and_null_details(table):
    usage = SimpleNamespace(prompt_tokens=1_000_000, completion_tokens=0, prompt_tokens_details=None)
    assert cost_from_usage("deepseek-chat", usage, table=table).cost_usd == pytest.approx(0.28)


def test_a_long_claude_prompt_is_billed_at_the_higher_tier(table):
    usage = {
        "prompt_tokens": 250_000,
        "completion_tokens": 1_000,
        "prompt_tokens_details": {"cached_tokens": 50_000},
    }
    cost = cost_from_usage("claude-sonnet-4-5", usage, table=table)
    assert cost.cost_usd == pytest.approx((200_000 * 6.00 + 50_000 * 0.60 + 1_000 * 22.50) / 1e6)


def test_estimate_request_assumes_max_tokens_then_the_default(table):
    messages = [{"role": "user", "content": "Write a haiku about tea."}]
    prompt = count_request({"model": "gpt-4.1", "messages": messages}).tokens
    capped = estimate_request({"model": "gpt-4.1", "messages": messages, "max_tokens": 100}, table=table)
    assert (capped.input_tokens, capped.output_tokens) == (prompt, 100)
    assert capped.cost_usd == pytest.approx((prompt * 2.00 + 100 * 8.00) / 1e6)
    newer = estimate_request(
        {"model": "gpt-4.1", "messages": messages, "max_completion_tokens": 50, "max_tokens": 100, "n": 2},
        table=table,
    )
    assert newer.output_tokens == 100
    default = estimate_request({"model": "gpt-4.1", "messages": messages}, table=table)
    assert (default.output_tokens, default.output_assumed) == (DEFAULT_OUTPUT_TOKENS, True)
    given = estimate_request(
        {"model": "gpt-4.1", "messages": messages}, output_tokens=7, cached_input_tokens=5, table=table
    )
    assert (given.output_tokens, given.cached_input_tokens) == (7, 5)


def test_estimate_request_prices_embeddings_without_output(table):
    est = estimate_request({"model": "text-embedding-3-small", "input": "hello world"}, table=table)
    assert (est.input_tokens, est.output_tokens) == (2, 0)
    assert est.cost_usd == pytest.approx(2 * 0.02 / 1e6)


def test_estimates_for_stand_in_tokenizers_are_marked_approximate(table):
    body = {"model": "claude-sonnet-4.5", "messages": [{"role": "user", "content": "hi"}]}
    assert estimate_request(body, table=table).approximate is True
    assert estimate_request({**body, "model": "gpt-4o"}, table=table).approximate is False


def test_estimate_request_rejects_an_unknown_model_before_counting(table):
    with pytest.raises(UnknownModelError):
        estimate_request({"model": "nope", "messages": "not even a list"}, table=table)


def test_cny_is_one_per_usd_by_default_and_the_rate_can_be_set(table):
    cost = estimate_cost("gpt-4.1", 1_000_000, 0, table=table)
    assert cost.cost_cny() == pytest.approx(2.00)
    assert cost.cost_cny(7.1) == pytest.approx(14.2)
    assert cost.as_dict(cny_rate=7.1)["cost_cny"] == pytest.approx(14.2)


def test_estimate_cost_rejects_impossible_counts(table):
    with pytest.raises(ValueError, match="exceeds"):
        estimate_cost("gpt-4.1", 10, 0, cached_input_tokens=11, table=table)


def test_a_document_merged_without_a_file_is_named_prices_in_its_errors():
    with pytest.raises(PriceFileError, match=r'^<prices>: expected an object with a "models" object$'):
        PriceTable().merge([])


def test_a_model_added_by_a_price_file_gets_the_documented_defaults_and_every_field_it_gives(tmp_path):
    path = tmp_path / "p.json"
    entry = {
        "input": 1.0,
        "output": 2.0,
        "audio_input": 5.0,
        "audio_output": 6.0,
        "snapshots": ["house-2025"],
        "notes": "ours",
        "tiers": [
            {"above_input_tokens": 1000, "input": 3.0},
            {"above_input_tokens": 0, "input": 1.5, "output": 2.5, "cached_input": 0.5},
        ],
    }
    path.write_text(json.dumps({"models": {"house": entry, "bare": {"input": 1.0, "output": 2.0}}}))
    table = PriceTable.load(path, use_env=False)
    house = table.lookup("house-2025")
    assert (house.name, house.provider, house.encoding, house.approximate) == (
        "house",
        "custom",
        "o200k_base",
        True,
    )
    assert (house.context_window, house.max_output_tokens, house.notes) == (128_000, 16_384, "ours")
    assert (house.price.audio_input, house.price.audio_output, house.has_cache_price) == (5.0, 6.0, False)
    # tiers are sorted by threshold and take what they do not give from the model's price
    assert [t.above_input_tokens for t in house.tiers] == [0, 1000]
    assert house.tiers[0].price == Price(1.5, 0.5, 2.5, 5.0, 6.0)
    assert house.tiers[1].price == Price(3.0, 1.0, 2.0, 5.0, 6.0)
    bare = table.lookup("bare")
    assert (bare.notes, bare.snapshots, bare.aliases, bare.tiers) == ("", (), (), ())


def test_overriding_a_known_model_keeps_every_field_the_file_does_not_give(tmp_path):
    path = tmp_path / "p.json"
    overrides = {
        "gpt-4o": {"output": 11.0},
        "claude-sonnet-4.5": {"input": 4.0},
        "gpt-4o-audio-preview": {"input": 3.0},
    }
    path.write_text(json.dumps({"models": overrides}))
    builtin, table = PriceTable.builtin(), PriceTable.load(path, use_env=False)
    gpt = table.lookup("chatgpt-4o-latest")  # the alias still finds it
    assert (gpt.price.input, gpt.price.output) == (builtin.lookup("gpt-4o").price.input, 11.0)
    assert (gpt.aliases, gpt.snapshots) == (
        builtin.lookup("gpt-4o").aliases,
        builtin.lookup("gpt-4o").snapshots,
    )
    claude = table.lookup("claude-sonnet-4.5")
    assert claude.tiers == builtin.lookup("claude-sonnet-4.5").tiers and claude.price.input == 4.0
    audio = table.lookup("gpt-4o-audio-preview")
    expected = builtin.lookup("gpt-4o-audio-preview").price
    assert (audio.price.audio_input, audio.price.audio_output) == (
        expected.audio_input,
        expected.audio_output,
    )


def test_a_routed_model_name_is_found_by_its_last_path_segment(table):
    assert table.lookup("openrouter/openai/gpt-4.1").name == "gpt-4.1"


def test_close_matches_are_suggested_down_to_half_similar_names(table):
    assert table.unknown("claud").suggestions == ("claude-opus-4.1",)


def test_the_default_table_is_loaded_once_and_shared(monkeypatch):
    from holyclient.pricing import _cost

    monkeypatch.setattr(_cost, "_default", None)
    first = default_table()
    assert first is default_table() and first.get("gpt-4.1") is not None
