"""`holyclient estimate --self-host`: golden figures worked by hand (the working is next to each test).

The issue's example (a vendor comparison whose own three-year total did not add up):
capex ¥500,000; power ¥80,000/year; staff ¥25,000/month = ¥300,000/year; API backup ¥50,000/year.

    running per year = 80,000 + 12 x 25,000 + 50,000              = ¥430,000
    first year       = 500,000 + 430,000                          = ¥930,000
    three years      = 500,000 + 3 x 430,000 = 500,000 + 1,290,000 = ¥1,790,000
    (the vendor's ¥1.34M does not follow from these rows)
    API side at ¥250,000/year: three years = 3 x 250,000           = ¥750,000

Per token, 2 x A100 80GB serving Llama-3-70B batched at 660 output tok/s (GPU table), utilisation 0.5:

    capacity/month = 660 x 0.5 x 730 h x 3,600 s                   = 867,240,000 tokens
    per month      = 500,000 / 36 + 430,000 / 12 = 13,888.89 + 35,833.33 = ¥49,722.22
    per 1M tokens  = 49,722.22 / 867.24                            = ¥57.33
    1B tokens/month needs 1e9 / (660 x 2,628,000) = 1e9 / 1,734,480,000 = 57.65 % utilisation
    API per 1M     = 250,000 / 12 / 1,000                          = ¥20.8333
    break-even     = 49,722.22 / 20.8333 x 1e6 = 2,386,666,667 tokens/month = 137.6 % -> unreachable

Memory, Llama-3-70B bf16 on 2 x 80 GB, context 8,192, one sequence:

    weights  = 70.6 x 2                           = 141.2 GB
    KV/token = 2 x 80 layers x 8 heads x 128 x 2  = 327,680 bytes; x 8,192 = 2.684 GB
    needed   = 143.88 GB; usable = 2 x 80 x 0.9 = 144.0 GB -> fits, 1 sequence of 8k context
"""

from __future__ import annotations

import json

import pytest

from holyclient._cli import main

EXAMPLE = (
    "--self-host", "a100-80gb x2", "--tokens-per-month", "1000000000", "--capex", "500000",
    "--ops-monthly", "25000", "--power-yearly", "80000", "--api-backup-yearly", "50000",
    "--currency", "CNY", "--json",
)  # fmt: skip


def _plan(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code = main(["estimate", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)["self_host"]


def test_the_issue_example_gives_930k_first_year_and_1_79m_over_three(capsys):
    plan = _plan(capsys, *EXAMPLE)
    assert plan["currency"] == "CNY"
    assert plan["costs"]["running_yearly"] == 430_000
    assert plan["costs"]["first_year"] == 930_000
    assert plan["costs"]["three_years"] == 1_790_000


def test_the_api_side_at_250k_a_year_is_750k_over_three_and_never_breaks_even(capsys):
    plan = _plan(capsys, *EXAMPLE, "--api-yearly", "250000")
    assert plan["api"]["per_million_tokens"] == pytest.approx(20.8333, abs=1e-4)
    assert plan["api"]["first_year"] == 250_000
    assert plan["api"]["three_years"] == 750_000
    assert plan["break_even"]["tokens_per_month"] == 2_386_666_667
    assert plan["break_even"]["utilisation_needed"] == pytest.approx(1.376, abs=1e-3)
    assert plan["break_even"]["reachable"] is False


def test_cost_per_million_tokens_and_the_sweep_follow_the_capacity(capsys):
    plan = _plan(capsys, *EXAMPLE)
    assert plan["costs"]["per_month"] == pytest.approx(49_722.22)
    assert plan["costs"]["capacity_tokens_per_month"] == 867_240_000
    assert plan["costs"]["cost_per_million_tokens"] == pytest.approx(57.33)
    # 10 %: 49,722.22 / 173.448 = 286.67; 90 %: 49,722.22 / 1,561.032 = 31.85
    sweep = {s["utilisation"]: s["cost_per_million_tokens"] for s in plan["sweep"]}
    assert sweep == pytest.approx({0.1: 286.67, 0.3: 95.56, 0.6: 47.78, 0.9: 31.85})
    assert plan["workload"]["utilisation_needed"] == pytest.approx(0.5765, abs=1e-4)
    assert plan["throughput"]["source"] and plan["throughput"]["as_of"]


def test_the_memory_check_adds_the_kv_cache_for_the_context(capsys):
    memory = _plan(capsys, *EXAMPLE)["memory"]
    assert memory["weights_gb"] == pytest.approx(141.2)
    assert memory["kv_bytes_per_token"] == 327_680
    assert memory["kv_gb"] == pytest.approx(2.68)
    assert memory["usable_gb"] == pytest.approx(144.0)
    assert memory["fits"] is True
    assert memory["max_sequences_at_context"] == 1
    # 32k context: KV = 327,680 x 32,768 = 10.74 GB -> 151.9 GB > 144 GB
    assert _plan(capsys, *EXAMPLE, "--context", "32768")["memory"]["fits"] is False


def test_power_from_watts_scales_with_utilisation(capsys):
    # 2 x 400 W / 1000 x 8,760 h x 0.5 x ¥0.8/kWh = 0.8 kW x 4,380 h x 0.8 = ¥2,803.20 per year
    plan = _plan(
        capsys,
        "--self-host",
        "a100-80gb x2",
        "--capex",
        "0",
        "--kwh-price",
        "0.8",
        "--currency",
        "CNY",
        "--json",
    )
    assert plan["costs"]["power_yearly"] == pytest.approx(2_803.20)


def test_renting_pays_every_hour_of_the_year(capsys):
    # 2 GPUs x $1.50/h x 8,760 h = $26,280 a year; no capex; per month 26,280 / 12 = $2,190
    # capacity at 0.5 = 867,240,000 tokens -> 2,190 / 867.24 = $2.53 per 1M
    plan = _plan(capsys, "--self-host", "a100-80gb x2", "--gpu-hourly", "1.5", "--json")
    assert plan["mode"] == "rent"
    assert plan["costs"]["rent_yearly"] == 26_280
    assert plan["costs"]["first_year"] == 26_280
    assert plan["costs"]["cost_per_million_tokens"] == pytest.approx(2.53)


def test_capex_defaults_to_the_gpu_tables_mid_price(capsys):
    # a100-80gb purchase $15,000..$20,000 -> mid $17,500 x 2 = $35,000
    plan = _plan(capsys, "--self-host", "a100-80gb x2", "--json")
    assert plan["inputs"]["capex"] == 35_000
    assert any("capex from the GPU table" in n for n in plan["notes"])
    assert any("power not counted" in n for n in plan["notes"])


def test_throughput_from_a_vllm_bench_serve_result(tmp_path, capsys):
    # 1,000 tok/s x 0.5 x 2,628,000 s = 1,314,000,000 tokens/month
    result = tmp_path / "bench.json"
    result.write_text(json.dumps({"date": "20250601-120000", "model_id": "meta-llama/Llama-3.3-70B-Instruct",
                                  "max_concurrency": 64, "output_throughput": 1000.0,
                                  "total_token_throughput": 3000.0}), encoding="utf-8")  # fmt: skip
    plan = _plan(capsys, "--self-host", "h100 x2", "--vllm-result", str(result), "--json")
    assert plan["costs"]["capacity_tokens_per_month"] == 1_314_000_000
    assert plan["throughput"]["mode"] == "batched"


def test_the_gpu_table_can_be_overridden_with_a_file(tmp_path, capsys):
    gpus = tmp_path / "gpus.json"
    gpus.write_text(json.dumps({"gpus": {"a100-80gb": {"purchase_cny": [100000, 100000],
                                                      "source": "our quote", "as_of": "2025-07-01"}}}),
                    encoding="utf-8")  # fmt: skip
    plan = _plan(capsys, "--self-host", "a100-80gb x2", "--gpus", str(gpus), "--currency", "CNY", "--json")
    assert plan["inputs"]["capex"] == 200_000
    assert plan["gpu"]["source"] == "our quote"


def test_every_built_in_gpu_row_has_a_source_a_date_and_both_currencies():
    from holyclient.costplan._gpus import GpuTable

    table = GpuTable.load()
    assert {"rtx-4090", "l40", "l40s", "a100-40gb", "a100-80gb", "h100", "h200"} <= set(table.gpus)
    for gpu in table.gpus.values():
        assert gpu.source and gpu.as_of
        assert set(gpu.purchase) == set(gpu.hourly) == {"USD", "CNY"}
    assert {row.mode for row in table.throughput} == {"single", "batched"}


def test_the_text_report_shows_inputs_and_formulas(capsys):
    args = [a for a in EXAMPLE if a != "--json"]
    assert main(["estimate", *args, "--api-yearly", "250000"]) == 0
    out = capsys.readouterr().out
    assert "¥930,000.00" in out and "¥1,790,000.00" in out and "¥750,000.00" in out
    assert "formulas:" in out and "inputs:" in out and "utilisation sweep:" in out


def test_request_files_are_the_workload_scaled_to_requests_per_month(tmp_path, capsys):
    # 2 requests with max_tokens 500 -> 1,000 output tokens; x (1,000,000 / 2) = 500,000,000 a month
    # utilisation needed on 2 x A100: 5e8 / 1,734,480,000 = 28.83 %
    requests = tmp_path / "req.jsonl"
    line = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "Say hi"}], "max_tokens": 500}
    requests.write_text(json.dumps(line) + "\n" + json.dumps(line) + "\n", encoding="utf-8")
    plan = _plan(
        capsys, str(requests), "--self-host", "a100-80gb x2", "--requests-per-month", "1000000", "--json"
    )
    assert plan["workload"]["tokens_per_month"] == 500_000_000
    assert plan["workload"]["utilisation_needed"] == pytest.approx(0.2883, abs=1e-4)
    # gpt-4.1: output $8 per 1M plus the prompts' input at $2 per 1M -> a little above $8 per 1M output
    assert 8.0 < plan["api"]["per_million_tokens"] < 8.1


def test_compare_prices_the_request_files_workload_once_on_its_cheapest_model(tmp_path, capsys):
    # 2 requests x max_tokens 100 = 200 output tokens a month, whatever --compare lists (it was 400 with
    # two models), and the API side is one model's price (gpt-4o-mini, the cheaper), not a blend of both.
    requests = tmp_path / "req.jsonl"
    line = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "Say hi"}], "max_tokens": 100}
    requests.write_text(json.dumps(line) + "\n" + json.dumps(line) + "\n", encoding="utf-8")
    common = (str(requests), "--self-host", "a100-80gb x2", "--json")
    alone = _plan(capsys, *common, "--model", "gpt-4o-mini")
    compared = _plan(capsys, *common, "--compare", "gpt-4.1,gpt-4o-mini")
    assert alone["workload"]["tokens_per_month"] == compared["workload"]["tokens_per_month"] == 200
    assert compared["api"]["per_million_tokens"] == pytest.approx(alone["api"]["per_million_tokens"])
    assert "gpt-4o-mini" in compared["api"]["basis"] + json.dumps(compared["notes"])


def test_a_usage_export_is_the_workload_and_prices_the_api_side(capsys):
    from pathlib import Path

    pages = str(Path(__file__).parent / "data" / "usage" / "completions_pages.json")
    code = main(["estimate", "--usage", pages, "--self-host", "h100 x2", "--currency", "CNY", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    document = json.loads(out)
    month = document["usage"]["total"]["month"]
    plan = document["self_host"]
    # the export's output tokens over 3 days, x 365/12 / 3: 3,100,000 priced + 20,000 unpriced -> 3,120,000
    assert plan["workload"]["tokens_per_month"] == month["output_tokens"] == round(3_120_000 * 365 / 12 / 3)
    # the API price per 1M output tokens is the priced models' cost over the priced models' tokens
    priced_output = sum(
        m["month"]["output_tokens"] for m in document["usage"]["models"] if m["price"] == "ok"
    )
    assert priced_output == round(3_100_000 * 365 / 12 / 3)
    assert plan["api"]["per_million_tokens"] == pytest.approx(
        month["holysheep_cny"] / (priced_output / 1e6), abs=1e-3
    )


def test_an_unpriced_model_in_the_usage_does_not_dilute_the_api_price_and_is_named(tmp_path, capsys):
    # gpt-4o: 1M input ($2.50) + 1M output ($10.00) = $12.50 for 1M output tokens -> $12.50 per 1M.
    # my-local-model (no price) adds 9M output tokens: dividing $12.50 by all 10M gave $1.25.
    usage = tmp_path / "usage.csv"
    usage.write_text(
        "date,model,requests,input_tokens,cached_input_tokens,output_tokens\n"
        "2025-03-01,gpt-4o,100,1000000,0,1000000\n"
        "2025-03-01,my-local-model,100,0,0,9000000\n",
        encoding="utf-8",
    )
    plan = _plan(capsys, "--usage", str(usage), "--self-host", "a100-80gb x2", "--json")
    assert plan["api"]["per_million_tokens"] == pytest.approx(12.5)
    assert "my-local-model" in plan["api"]["basis"]


def test_a_free_api_has_no_break_even_instead_of_a_division_by_zero(capsys):
    plan = _plan(capsys, *EXAMPLE, "--api-yearly", "0")
    assert plan["api"]["three_years"] == 0
    assert plan["break_even"] is None
