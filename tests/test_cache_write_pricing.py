"""Prompt-cache writes priced at their own sourced rates, reads at the cached rate (issue 41, item 7).

OpenAI reports writes in ``cache_write_tokens`` (the Responses API splits them into 30-minute and
12-hour ones), Claude behind an OpenAI-compatible relay in ``cache_creation_input_tokens`` (5-minute and
1-hour ones). The price table carries each model's write prices with their source and date; the usage
snapshot, ``holyclient estimate --usage`` (from the tracker's export), ``holyclient models`` and the
call's span show reads and writes apart.
"""

from __future__ import annotations

import datetime
import json

import pytest

from holyclient import Client
from holyclient._cli import main
from holyclient.pricing import PriceTable, UsageTracker, cost_from_usage, default_table
from holyclient.testing import LocalServer

#: over 1,024 tokens (OpenAI caches no shorter prompt); 4 characters a token on the local server
LONG = "The tide comes in twice a day and goes out twice a day. " * 80


def _marked(ttl: str | None) -> dict:
    control = {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}
    return {"role": "system", "content": [{"type": "text", "text": LONG, "cache_control": control}]}


def test_every_write_price_in_the_table_has_a_source_and_a_date_and_costs_no_less_than_a_read() -> None:
    table = PriceTable.builtin()
    priced = [info for info in table.models.values() if info.price.cache_write is not None]
    assert {"claude-sonnet-4.5", "claude-haiku-4.5", "claude-opus-4.1", "gpt-6.2-sol", "gpt-4.1"} <= {
        info.name for info in priced
    }
    for info in priced:
        assert info.cache_write_source.startswith("https://"), info.name
        assert datetime.date.fromisoformat(info.cache_write_as_of) <= datetime.date.today(), info.name
        for price in (info.price, *(tier.price for tier in info.tiers)):
            assert price.cache_write is not None and price.cache_write_long is not None, info.name
            assert price.cached_input <= price.cache_write <= price.cache_write_long, info.name
    # Anthropic: a 5-minute write is 1.25x the input price, a 1-hour one 2x
    sonnet = table.lookup("claude-sonnet-4.5")
    assert (sonnet.price.cache_write, sonnet.price.cache_write_long) == (3.75, 6.0)
    assert (sonnet.tiers[0].price.cache_write, sonnet.tiers[0].price.cache_write_long) == (7.5, 12.0)
    # OpenAI: no write fee before the GPT-5.6 family; GPT-6.2 Sol publishes both retentions
    assert table.lookup("gpt-4.1").price.cache_write == table.lookup("gpt-4.1").price.input
    sol = table.lookup("gpt-6.2-sol")
    assert (sol.price.cache_write, sol.price.cache_write_long) == (2.5, 5.0)


@pytest.mark.parametrize(("ttl", "write_price"), [(None, 3.75), ("1h", 6.0)])
def test_claude_writes_through_the_relay_cost_their_retentions_write_price_and_reads_the_cached_price(
    ttl, write_price
) -> None:
    with LocalServer(profile="holysheep") as relay, Client(base_url=relay.base_url, api_key="k") as client:
        first = client.chat.completions.create(
            model="claude-sonnet-4.5", messages=[_marked(ttl), {"role": "user", "content": "one"}]
        )
        second = client.chat.completions.create(
            model="claude-sonnet-4.5", messages=[_marked(ttl), {"role": "user", "content": "two"}]
        )
        snapshot = client.usage.snapshot()
    written = first.usage.model_dump()["cache_creation_input_tokens"]
    read = second.usage.model_dump()["cache_read_input_tokens"]
    assert written == read > 1000
    model = snapshot.models["claude-sonnet-4.5"]
    assert (model.cache_write_tokens, model.cached_tokens) == (written, read)
    assert model.cache_write_long_tokens == (written if ttl == "1h" else 0)
    prompt = first.usage.prompt_tokens + second.usage.prompt_tokens
    uncached = prompt - written - read
    output = first.usage.completion_tokens + second.usage.completion_tokens
    assert model.cost_usd == pytest.approx(
        (uncached * 3.0 + written * write_price + read * 0.3 + output * 15.0) / 1e6
    )
    assert snapshot.unreconciled_requests == 0


def test_openai_responses_writes_are_priced_by_their_30_minute_or_12_hour_retention() -> None:
    with LocalServer(profile="holysheep") as relay, Client(base_url=relay.base_url, api_key="k") as client:
        short = client.responses.create(model="gpt-6.2-sol", input=[{"role": "user", "content": LONG}])
        long = client.responses.create(
            model="gpt-6.2-sol",
            input=[{"role": "user", "content": LONG + " Again."}],
            prompt_cache_options={"ttl": "12h"},
        )
        snapshot = client.usage.snapshot()
    split_short = short.usage.model_dump()["input_tokens_details"]["cache_write_tokens_details"]
    split_long = long.usage.model_dump()["input_tokens_details"]["cache_write_tokens_details"]
    assert split_short["ttl_30m_tokens"] > 1000 and split_short["ttl_12h_tokens"] == 0
    assert split_long["ttl_12h_tokens"] > 1000 and split_long["ttl_30m_tokens"] == 0
    model = snapshot.models["gpt-6.2-sol"]
    assert model.cache_write_long_tokens == split_long["ttl_12h_tokens"]
    written = split_short["ttl_30m_tokens"] + split_long["ttl_12h_tokens"]
    uncached = short.usage.input_tokens + long.usage.input_tokens - written
    output = short.usage.output_tokens + long.usage.output_tokens
    assert model.cost_usd == pytest.approx(
        (
            uncached * 2.0
            + split_short["ttl_30m_tokens"] * 2.5
            + split_long["ttl_12h_tokens"] * 5.0
            + output * 10.0
        )
        / 1e6
    )


def test_chat_writes_of_a_request_that_asked_12_hours_are_priced_at_the_12_hour_price() -> None:
    # Chat Completions reports cache_write_tokens without the split: the request says which retention
    messages = [{"role": "user", "content": LONG}]
    with LocalServer(profile="holysheep") as relay, Client(base_url=relay.base_url, api_key="k") as client:
        answer = client.chat.completions.create(
            model="gpt-6.2-sol", messages=messages, prompt_cache_options={"ttl": "12h"}
        )
        model = client.usage.snapshot().models["gpt-6.2-sol"]
    written = answer.usage.model_dump()["prompt_tokens_details"]["cache_write_tokens"]
    assert written > 1000 and model.cache_write_long_tokens == written
    uncached = answer.usage.prompt_tokens - written
    assert model.cost_usd == pytest.approx(
        (uncached * 2.0 + written * 5.0 + answer.usage.completion_tokens * 10.0) / 1e6
    )


def test_writes_reported_for_a_model_without_a_write_price_are_priced_at_input_and_flagged() -> None:
    tracker = UsageTracker()
    usage = {
        "prompt_tokens": 1000,
        "completion_tokens": 10,
        "total_tokens": 1010,
        "prompt_tokens_details": {"cache_write_tokens": 600},
    }
    tracker.record("deepseek-v3.2", usage)  # the table publishes no write price for DeepSeek
    snapshot = tracker.snapshot()
    model = snapshot.models["deepseek-v3.2"]
    assert model.cost_usd == pytest.approx((1000 * 0.28 + 10 * 0.42) / 1e6)
    assert model.unreconciled_requests == 1
    assert snapshot.warnings == (
        "usage of deepseek-v3.2 did not add up: 600 cache-write tokens priced at the input price: the table "
        "has no write price",
    )
    assert cost_from_usage("deepseek-v3.2", usage).problems == (
        "600 cache-write tokens priced at the input price: the table has no write price",
    )


def test_a_cost_estimate_of_a_usage_counts_its_writes_apart_from_its_reads() -> None:
    usage = {
        "prompt_tokens": 3000,
        "completion_tokens": 10,
        "prompt_tokens_details": {"cached_tokens": 1000},
        "cache_creation_input_tokens": 1500,
    }
    estimate = cost_from_usage("claude-haiku-4.5", usage)
    assert (estimate.input_tokens, estimate.cached_input_tokens, estimate.cache_write_input_tokens) == (
        3000,
        1000,
        1500,
    )
    assert estimate.input_usd == pytest.approx((500 * 1.0 + 1000 * 0.1 + 1500 * 1.25) / 1e6)
    assert estimate.as_dict()["cache_write_input_tokens"] == 1500


def test_estimate_usage_prices_the_writes_a_clients_export_carries(tmp_path, capsys) -> None:
    tracker = UsageTracker()
    tracker.record(
        "claude-sonnet-4.5",
        {
            "prompt_tokens": 3000,
            "completion_tokens": 100,
            "total_tokens": 3100,
            "prompt_tokens_details": {"cached_tokens": 1000},
            "cache_creation_input_tokens": 1500,
            "cache_creation": {"ephemeral_5m_input_tokens": 500, "ephemeral_1h_input_tokens": 1000},
        },
    )
    tracker.started_at -= 86_400
    path = tmp_path / "day.json"
    path.write_text(json.dumps(tracker.export()), encoding="utf-8")
    assert main(["estimate", "--usage", str(path), "--json"]) == 0
    period = json.loads(capsys.readouterr().out)["usage"]["total"]["period"]
    assert (period["cached_input_tokens"], period["cache_write_input_tokens"]) == (1000, 1500)
    assert period["cache_write_long_input_tokens"] == 1000
    expected = (500 * 3.0 + 1000 * 0.3 + 500 * 3.75 + 1000 * 6.0 + 100 * 15.0) / 1e6
    assert period["openai_usd"] == pytest.approx(expected)
    assert period["openai_usd"] == pytest.approx(tracker.snapshot().total_cost_usd)
    assert main(["estimate", "--usage", str(path)]) == 0
    text = capsys.readouterr().out
    assert "prompt cache over the period: 1,000 input tokens read" in text
    assert "1,500 written" in text and "1,000 of them kept at the long retention" in text


def test_the_models_listing_shows_each_models_write_prices(capsys) -> None:
    assert main(["models", "--json"]) == 0
    models = {m["model"]: m for m in json.loads(capsys.readouterr().out)["models"]}
    sonnet = models["claude-sonnet-4.5"]
    assert (sonnet["cache_write"], sonnet["cache_write_long"]) == (3.75, 6.0)
    assert sonnet["cache_write_source"].startswith("https://platform.claude.com/")
    assert sonnet["tiers"][0]["cache_write"] == 7.5
    assert models["deepseek-v3.2"]["cache_write"] is None
    assert main(["models"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "3.75/6" in rows["claude-sonnet-4.5"].split()
    assert rows["deepseek-v3.2"].split()[6] == "-"


def test_a_user_price_file_can_give_a_write_price_and_a_partial_override_keeps_it() -> None:
    table = default_table()
    custom = PriceTable.builtin()
    custom.merge(
        {"models": {"house": {"input": 1.0, "output": 2.0, "cache_write": 1.25, "cache_write_long": 2.0}}}
    )
    assert (custom.lookup("house").price.cache_write, custom.lookup("house").price.cache_write_long) == (
        1.25,
        2.0,
    )
    custom.merge({"models": {"house": {"input": 2.0}}})
    assert custom.lookup("house").price.cache_write == 1.25
    assert table.get("house") is None
