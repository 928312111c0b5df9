"""`holyclient estimate --usage`: OpenAI Usage API pages, CSV and holyclient's own export, priced by hand.

The fixture (tests/data/usage/) is in the official shape of ``GET /v1/organization/usage/completions``
and ``.../embeddings`` (UsageResponse -> UsageTimeBucket -> Usage*Result, copied from the OpenAPI spec):
two completions pages (has_more / next_page) and one embeddings page as JSONL, three daily buckets
from 2024-11-01 00:00 UTC to 2024-11-04 00:00 UTC.

Hand totals (list prices from _data/models.json, USD per 1M tokens, in / cached in / out):

    gpt-4o (2.50 / 1.25 / 10.00), snapshot gpt-4o-2024-08-06, days 1+2:
        input 1,000,000 + 3,000,000 = 4,000,000; cached 200,000 + 1,000,000 = 1,200,000;
        output 250,000 + 750,000 = 1,000,000; requests 400 + 1,200 = 1,600
        (2.8M x 2.50 + 1.2M x 1.25 + 1M x 10.00) / 1e6 = 7.00 + 1.50 + 10.00 = $18.50
    gpt-4o-mini (0.15 / 0.075 / 0.60), days 1+3:
        input 2M + 6M = 8M; cached 0 + 2M = 2M; output 0.5M + 1.5M = 2M; requests 1,000 + 3,000 = 4,000
        (6M x 0.15 + 2M x 0.075 + 2M x 0.60) / 1e6 = 0.90 + 0.15 + 1.20 = $2.25
    ft:gpt-4o-mini-2024-07-18:acme::abc123 (priced as its base, gpt-4o-mini):
        (0.4M x 0.15 + 0.1M x 0.60) / 1e6 = 0.06 + 0.06 = $0.12
    text-embedding-3-small (0.02): 5M + 3M + 2M = 10M input -> $0.20; requests 800 + 500 + 300 = 1,600
    acme-llama-preview: no price; 100,000 in + 20,000 out = 120,000 tokens, 50 requests (listed, not dropped)

    total priced: 18.50 + 2.25 + 0.12 + 0.20 = $21.07; requests 7,450 (unpriced 50 included);
    tokens 5M + 10M + 0.5M + 10M + 0.12M = 25,620,000
    OpenAI in CNY at fx 7.2: 21.07 x 7.2 = ¥151.704; HolySheep at 1 CNY/USD: ¥21.07; saved ¥130.634
    period 3 days; month 365/12 = 30.41667 days; factor 10.138889; month total on HolySheep ¥213.6264
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from holyclient import UsageTracker
from holyclient._cli import main

DATA = Path(__file__).parent / "data" / "usage"
PAGES = str(DATA / "completions_pages.json")
EMBEDDINGS = str(DATA / "embeddings_pages.jsonl")


@pytest.fixture(autouse=True)
def _builtin_prices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOLYSHEEP_PRICES", raising=False)


def _report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code = main(["estimate", "--json", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)["usage"]


def test_official_usage_pages_give_the_hand_worked_totals(capsys):
    report = _report(capsys, "--usage", PAGES, EMBEDDINGS)
    models = {m["model"]: m for m in report["models"]}
    assert models["gpt-4o-2024-08-06"]["period"]["openai_usd"] == pytest.approx(18.50)
    assert models["gpt-4o-2024-08-06"]["period"]["cached_input_tokens"] == 1_200_000
    assert models["gpt-4o-mini"]["period"]["openai_usd"] == pytest.approx(2.25)
    assert models["ft:gpt-4o-mini-2024-07-18:acme::abc123"]["period"]["openai_usd"] == pytest.approx(0.12)
    assert models["text-embedding-3-small"]["period"]["openai_usd"] == pytest.approx(0.20)
    total = report["total"]["period"]
    assert total["openai_usd"] == pytest.approx(21.07)
    assert total["openai_cny"] == pytest.approx(151.704)
    assert total["holysheep_cny"] == pytest.approx(21.07)
    assert total["savings_cny"] == pytest.approx(130.634)
    assert total["requests"] == 7_450
    assert total["total_tokens"] == 25_620_000
    assert report["period"]["days"] == 3
    assert report["total"]["month"]["holysheep_cny"] == pytest.approx(21.07 * 365 / 12 / 3, abs=1e-3)


def test_a_model_with_no_price_is_listed_with_its_tokens_never_dropped(capsys):
    report = _report(capsys, "--usage", PAGES)
    entry = next(m for m in report["models"] if m["model"] == "acme-llama-preview")
    assert entry["price"] == "no price"
    assert entry["period"]["total_tokens"] == 120_000
    assert entry["period"]["openai_usd"] is None
    assert report["unpriced_models"] == ["acme-llama-preview"]
    assert report["total"]["priced_models_only"] is True


def test_the_text_view_says_no_price_and_warns_on_stderr(capsys):
    assert main(["estimate", "--usage", PAGES]) == 0
    out, err = capsys.readouterr()
    assert "no price" in out and "acme-llama-preview" in out
    assert "warning: no price for model 'acme-llama-preview'" in err
    assert "projected to a month" in out and "formulas:" in out


def test_map_prices_a_model_as_the_one_it_moves_to(capsys):
    # gpt-4.1 (2.00 / 0.50 / 8.00): (2.8M x 2 + 1.2M x 0.5 + 1M x 8) / 1e6 = 5.60 + 0.60 + 8.00 = $14.20
    report = _report(capsys, "--usage", PAGES, "--map", "gpt-4o-2024-08-06=gpt-4.1")
    entry = next(m for m in report["models"] if m["model"] == "gpt-4o-2024-08-06")
    assert entry["moved_to"] == "gpt-4.1"
    assert entry["period"]["openai_usd"] == pytest.approx(18.50)
    assert entry["period"]["holysheep_usd"] == pytest.approx(14.20)
    assert entry["period"]["savings_cny"] == pytest.approx(18.50 * 7.2 - 14.20)


def test_compare_moves_the_whole_workload_to_each_model_cheapest_first(capsys):
    # gpt-4.1-mini (0.40 / 0.10 / 1.60) over everything in the completions pages:
    # in 12.5M (cached 3.2M) out 3.12M -> (9.3M x 0.40 + 3.2M x 0.10 + 3.12M x 1.60) / 1e6
    # = 3.72 + 0.32 + 4.992 = $9.032
    report = _report(capsys, "--usage", PAGES, "--compare", "gpt-4o,gpt-4.1-mini")
    assert [e["model"] for e in report["compare"]] == ["gpt-4.1-mini", "gpt-4o"]
    assert report["compare"][0]["period_usd"] == pytest.approx(9.032)


def test_a_csv_export_is_read_day_by_day(tmp_path, capsys):
    # 2 days; gpt-4o-mini in 1M (cached 0.5M) out 0.25M -> 0.5 x 0.15 + 0.5 x 0.075 + 0.25 x 0.6
    # = 0.075 + 0.0375 + 0.15 = $0.2625
    path = tmp_path / "usage.csv"
    path.write_text(
        "date,model,requests,input_tokens,cached_input_tokens,output_tokens\n"
        "2025-03-01,gpt-4o-mini,10,600000,300000,150000\n"
        "2025-03-02,gpt-4o-mini,5,400000,200000,100000\n",
        encoding="utf-8",
    )
    report = _report(capsys, "--usage", str(path))
    assert report["period"]["days"] == 2
    assert report["total"]["period"]["openai_usd"] == pytest.approx(0.2625)
    assert report["total"]["period"]["requests"] == 15


def test_the_trackers_export_feeds_back_into_estimate(tmp_path, capsys):
    tracker = UsageTracker()
    tracker.record(
        "gpt-4o-mini",
        {"prompt_tokens": 1000, "completion_tokens": 500, "prompt_tokens_details": {"cached_tokens": 400}},
    )
    tracker.record("gpt-4o-mini", {"prompt_tokens": 1000, "completion_tokens": 500})
    tracker.started_at -= 7 * 86_400  # a week of traffic
    page = tracker.export()
    assert page["object"] == "page" and page["data"][0]["object"] == "bucket"
    result = page["data"][0]["results"][0]
    assert result == {
        "object": "organization.usage.completions.result",
        "input_tokens": 2000,
        "input_cached_tokens": 400,
        "input_cache_write_tokens": 0,
        "input_cache_write_long_tokens": 0,
        "output_tokens": 1000,
        "num_model_requests": 2,
        "model": "gpt-4o-mini",
    }
    path = tmp_path / "week.json"
    path.write_text(json.dumps(page), encoding="utf-8")
    report = _report(capsys, "--usage", str(path))
    # (1600 x 0.15 + 400 x 0.075 + 1000 x 0.60) / 1e6 = (240 + 30 + 600) / 1e6 = $0.00087
    assert report["total"]["period"]["openai_usd"] == pytest.approx(0.00087)
    assert report["period"]["days"] == pytest.approx(7, abs=0.001)


def test_batch_api_results_are_flagged_not_silently_priced_as_interactive(tmp_path, capsys):
    page = {
        "object": "page",
        "data": [
            {
                "object": "bucket",
                "start_time": 1730419200,
                "end_time": 1730505600,
                "results": [
                    {
                        "object": "organization.usage.completions.result",
                        "input_tokens": 100,
                        "output_tokens": 10,
                        "input_cached_tokens": 0,
                        "num_model_requests": 1,
                        "model": "gpt-4o-mini",
                        "batch": True,
                    }
                ],
            }
        ],
        "has_more": False,
        "next_page": None,
    }
    path = tmp_path / "batch.json"
    path.write_text(json.dumps(page), encoding="utf-8")
    report = _report(capsys, "--usage", str(path))
    assert "Batch API" in report["notes"][0]


USAGE_12_50 = (
    "date,model,requests,input_tokens,cached_input_tokens,output_tokens\n"
    "2025-03-01,gpt-4o,100,1000000,0,1000000\n"  # $2.50 + $10.00 = $12.50 on HolySheep
)


@pytest.mark.parametrize(
    ("cap", "code"),
    [("0.01", 1), ("12.49", 1), ("12.50", 0), ("100", 0)],
    ids=["far", "just", "equal", "under"],
)
def test_max_cost_gates_a_usage_workload_on_its_holysheep_cost(tmp_path, capsys, cap, code):
    usage = tmp_path / "usage.csv"
    usage.write_text(USAGE_12_50, encoding="utf-8")
    assert main(["estimate", "--usage", str(usage), "--max-cost", cap]) == code
    out, err = capsys.readouterr()
    assert "12.50" in out  # the report is printed either way
    assert ("exceeds --max-cost" in err) == (code == 1)


def test_max_cost_with_compare_gates_on_the_cheapest_target(tmp_path, capsys):
    usage = tmp_path / "usage.csv"
    usage.write_text(USAGE_12_50, encoding="utf-8")
    argv = ["estimate", "--usage", str(usage), "--compare", "gpt-4o,gpt-4o-mini"]
    # gpt-4o-mini: 1M x 0.15 + 1M x 0.60 = $0.75, the cheapest target
    assert main([*argv, "--max-cost", "0.74"]) == 1
    assert main([*argv, "--max-cost", "0.75"]) == 0


def test_max_cost_gates_request_files_given_with_self_host(tmp_path, capsys):
    requests = tmp_path / "req.jsonl"
    body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "Say hi"}], "max_tokens": 1000}
    requests.write_text(json.dumps(body) + "\n", encoding="utf-8")
    argv = ["estimate", str(requests), "--self-host", "a100-80gb x2", "--max-cost", "0.000001"]
    assert main(argv) == 1  # gpt-4.1: 1,000 output tokens at $8 per 1M = $0.008
    assert "exceeds --max-cost" in capsys.readouterr().err
