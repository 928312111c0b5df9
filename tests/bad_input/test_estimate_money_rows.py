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
        E + "give request FILEs or --usage FILEs, not both",
        files={"u.json": GOOD, "req.jsonl": "{}\n"},
    ),
    Row(
        "usage-bad-fx-rate",
        ("estimate", "--usage", "u.json", "--fx-rate", "-7"),
        U,
        files={"u.json": GOOD},
    ),
]

ROWS = USAGE_ROWS


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_estimate_money_row(row, tmp_path, capsys, monkeypatch):
    check_row(Row(**{**row.__dict__, "env": {**ENV, **row.env}}), tmp_path, capsys, monkeypatch)
