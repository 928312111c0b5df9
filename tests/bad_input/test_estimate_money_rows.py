"""Bad input for ``holyclient estimate --usage`` and ``--self-host``: one row per case (see ``table.py``)."""

from __future__ import annotations

import json

import pytest

from bad_input.table import Row, check_row

ENV = {"HOLYSHEEP_PRICES": None}
E = "holyclient estimate: "
U = "usage: holyclient estimate "


def _page(*buckets: object) -> str:
    return json.dumps({"object": "page", "data": list(buckets), "has_more": False, "next_page": None})


def _bucket(*results: object, start: object = 1730419200, end: object = 1730505600) -> dict:
    return {"object": "bucket", "start_time": start, "end_time": end, "results": list(results)}


def _result(**fields: object) -> dict:
    base = {
        "object": "organization.usage.completions.result",
        "input_tokens": 10,
        "input_cached_tokens": 0,
        "output_tokens": 5,
        "num_model_requests": 1,
        "model": "gpt-4o-mini",
    }
    return {**base, **fields}


GOOD = _page(_bucket(_result()))
CSV_HEAD = "date,model,requests,input_tokens,cached_input_tokens,output_tokens\n"

USAGE_ROWS = [
    Row(
        "usage-missing-file", ("estimate", "--usage", "nope.json"), E + "nope.json: cannot open: No such file"
    ),
    Row(
        "usage-empty-file", ("estimate", "--usage", "u.json"), E + "u.json: empty file", files={"u.json": ""}
    ),
    Row(
        "usage-not-json",
        ("estimate", "--usage", "u.json"),
        E + r"u.json:1: not JSON: ",
        files={"u.json": '{"object": "page", "data": ['},
    ),
    Row(
        "usage-nested-too-deeply",
        ("estimate", "--usage", "u.json"),
        E + "u.json: not JSON: nested too deeply",
        files={"u.json": "[" * 100_000},
    ),
    Row(
        "usage-not-a-page",
        ("estimate", "--usage", "u.json"),
        E + r"u.json: page 1: expected a usage page",
        files={"u.json": json.dumps({"data": "nope"})},
    ),
    Row(
        "usage-bucket-without-start-time",
        ("estimate", "--usage", "u.json"),
        E + r"u.json: page 1, bucket 1: field start_time: expected epoch seconds, got None",
        files={"u.json": _page(_bucket(_result()), _bucket(_result(), start=None))},
    ),
    Row(
        "usage-bucket-ends-before-it-starts",
        ("estimate", "--usage", "u.json"),
        E + r"u.json: page 1, bucket 0 \(2024-11-02\): field end_time: 1730419200 is not after",
        files={"u.json": _page(_bucket(_result(), start=1730505600, end=1730419200))},
    ),
    Row(
        "usage-negative-tokens-name-the-bucket",
        ("estimate", "--usage", "u.json"),
        E + r"u.json: page 1, bucket 0 \(2024-11-01\): results\[1\]: field output_tokens: "
        r"expected a whole number >= 0, got -5",
        files={"u.json": _page(_bucket(_result(), _result(output_tokens=-5)))},
    ),
    Row(
        "usage-string-tokens",
        ("estimate", "--usage", "u.json"),
        E + r"u.json: page 1, bucket 0 \(2024-11-01\): results\[0\]: field input_tokens: .*got '10'",
        files={"u.json": _page(_bucket(_result(input_tokens="10")))},
    ),
    Row(
        "usage-more-cached-than-input",
        ("estimate", "--usage", "u.json"),
        E + r"u.json: page 1, bucket 0 \(2024-11-01\): results\[0\]: field input_cached_tokens: 11 exceeds",
        files={"u.json": _page(_bucket(_result(input_cached_tokens=11)))},
    ),
    Row(
        "usage-jsonl-bad-second-line",
        ("estimate", "--usage", "u.jsonl"),
        E + r"u.jsonl: line 2, bucket 0 \(2024-11-01\): results\[0\]: field num_model_requests",
        files={"u.jsonl": GOOD + "\n" + _page(_bucket(_result(num_model_requests=None))) + "\n"},
    ),
    Row(
        "usage-no-token-results",
        ("estimate", "--usage", "u.json"),
        E + "u.json: no token usage found",
        files={"u.json": _page(_bucket({"object": "organization.usage.images.result", "images": 3}))},
    ),
    Row(
        "usage-csv-wrong-header",
        ("estimate", "--usage", "u.csv"),
        E + "u.csv:1: header: expected date,model,requests",
        files={"u.csv": "day,model,n\n"},
    ),
    Row(
        "usage-csv-bad-date",
        ("estimate", "--usage", "u.csv"),
        E + "u.csv:2: field date: expected YYYY-MM-DD, got '03/01/2025'",
        files={"u.csv": CSV_HEAD + "03/01/2025,gpt-4o,1,10,0,5\n"},
    ),
    Row(
        "usage-csv-negative-number",
        ("estimate", "--usage", "u.csv"),
        E + "u.csv:3: field output_tokens: expected a whole number >= 0, got '-5'",
        files={"u.csv": CSV_HEAD + "2025-03-01,gpt-4o,1,10,0,5\n2025-03-02,gpt-4o,1,10,0,-5\n"},
    ),
    Row(
        "usage-csv-non-ascii-digit",
        ("estimate", "--usage", "u.csv"),
        E + "u.csv:2: field input_tokens: expected a whole number >= 0, got '1²'",
        files={"u.csv": CSV_HEAD + "2025-03-01,gpt-4o,1,1²,0,5\n"},
    ),
    Row(
        "usage-csv-arabic-indic-digits",
        ("estimate", "--usage", "u.csv"),
        E + "u.csv:2: field requests: expected a whole number >= 0, got '١٢'",
        files={"u.csv": CSV_HEAD + "2025-03-01,gpt-4o,١٢,10,0,5\n"},
    ),
    Row(
        "usage-csv-short-row",
        ("estimate", "--usage", "u.csv"),
        E + "u.csv:2: expected 6 fields, got 3",
        files={"u.csv": CSV_HEAD + "2025-03-01,gpt-4o,1\n"},
    ),
    Row(
        "usage-bad-map",
        ("estimate", "--usage", "u.json", "--map", "gpt-4"),
        E + "--map: expected OLD=NEW pairs separated by commas, got 'gpt-4'",
        files={"u.json": GOOD},
    ),
    Row(
        "usage-with-request-files",
        ("estimate", "req.jsonl", "--usage", "u.json"),
        E + "request FILEs cannot be combined with --usage",
        files={"u.json": GOOD, "req.jsonl": "{}\n"},
    ),
    Row(
        "usage-bad-fx-rate",
        ("estimate", "--usage", "u.json", "--fx-rate", "-7"),
        U,
        files={"u.json": GOOD},
    ),
]

SH = ("estimate", "--self-host")

SELF_HOST_ROWS = [
    Row(
        "self-host-unknown-gpu-lists-the-known-ones",
        (*SH, "a10 x2"),
        E + r"unknown GPU 'a10' .*known: a100-40gb, a100-80gb, h100, h200, l40, l40s, rtx-4090",
    ),
    Row("self-host-zero-gpus", (*SH, "h100 x0"), E + "--self-host: GPU count must be within 1..4096, got 0"),
    Row("self-host-bad-currency", (*SH, "h100", "--currency", "EUR"), U),
    Row("self-host-negative-capex", (*SH, "h100", "--capex", "-5"), U),
    Row("self-host-utilisation-over-one", (*SH, "h100", "--utilisation", "50"), U),
    Row("self-host-zero-months", (*SH, "h100", "--months", "0"), U),
    Row(
        "self-host-unknown-model-shape",
        (*SH, "h100 x2", "--serve-model", "gpt-5"),
        E + "unknown model shape 'gpt-5'; known: llama-3-70b",
    ),
    Row(
        "self-host-no-measured-throughput",
        (*SH, "h200 x4"),
        E
        + r"--self-host: no measured batched throughput for h200 x4 serving llama-3-70b; measured: .*--throughput",
    ),
    Row(
        "self-host-power-twice",
        (*SH, "h100 x2", "--power-yearly", "1000", "--kwh-price", "0.1"),
        E + "--power-yearly: give power either as --power-yearly or as --watts/--kwh-price, not both",
    ),
    Row(
        "self-host-api-yearly-without-volume",
        (*SH, "h100 x2", "--api-yearly", "250000"),
        E + "--api-yearly: needs the workload's volume",
    ),
    Row(
        "self-host-vllm-result-without-throughput",
        (*SH, "h100 x2", "--vllm-result", "bench.json"),
        E + "bench.json: field output_throughput: expected tokens/s > 0",
        files={"bench.json": json.dumps({"request_throughput": 2.0})},
    ),
    Row(
        "self-host-gpu-file-without-source",
        (*SH, "h100 x2", "--gpus", "g.json"),
        E + "g.json: gpus.b200: fields source and as_of",
        files={
            "g.json": json.dumps(
                {
                    "gpus": {
                        "b200": {
                            "memory_gb": 192,
                            "watts": 1000,
                            "purchase_usd": [1, 2],
                            "purchase_cny": [1, 2],
                            "hourly_usd": [1, 2],
                            "hourly_cny": [1, 2],
                        }
                    }
                }
            )
        },
    ),
    Row(
        "self-host-gpu-file-bad-price-range",
        (*SH, "h100 x2", "--gpus", "g.json"),
        E + r"g.json: gpus.h100: field purchase_usd: expected \[low, high\] numbers > 0, got \[3, 1\]",
        files={"g.json": json.dumps({"gpus": {"h100": {"purchase_usd": [3, 1]}}})},
    ),
    Row(
        "self-host-bad-request-file-names-the-line",
        ("estimate", "req.jsonl", "--self-host", "h100 x2"),
        E + "req.jsonl:1: expected a chat request",
        files={"req.jsonl": "{}\n"},
    ),
]

ROWS = USAGE_ROWS + SELF_HOST_ROWS


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_estimate_money_row(row, tmp_path, capsys, monkeypatch):
    check_row(Row(**{**row.__dict__, "env": {**ENV, **row.env}}), tmp_path, capsys, monkeypatch)


def test_a_usage_snapshot_is_refused_with_the_export_named(tmp_path, capsys, monkeypatch):
    snapshot = json.dumps({"models": {}, "total_cost_usd": 0.0, "reserved_usd": 0.0})
    row = Row(
        "usage-snapshot-instead-of-export",
        ("estimate", "--usage", "s.json"),
        E
        + r"s.json: page 1: a usage snapshot \(client.usage.totals\(\)\) has no period; save client.usage.export",
        files={"s.json": snapshot},
        env=ENV,
    )
    check_row(row, tmp_path, capsys, monkeypatch)
