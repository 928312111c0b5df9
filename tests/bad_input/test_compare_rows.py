"""Bad input for ``holyclient compare``: one row per case (see ``table.py``). Nothing is sent in any row."""

from __future__ import annotations

import json

import pytest

from bad_input.table import Row, check_row

C = "holyclient compare: "
U = "usage: holyclient compare "
OLD, NEW = "http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"
LINE = json.dumps(
    {"custom_id": "a", "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}}
)
SAMPLE = {"s.jsonl": LINE + "\n"}
KEY = {"HOLYSHEEP_API_KEY": "sk-rows"}
STATE_OF_ANOTHER_ENDPOINT = (
    json.dumps(
        {
            "pass": "new",
            "custom_id": "a",
            "fingerprint": "0" * 32,
            "endpoint": "http://127.0.0.1:11/v1",
            "result": {"custom_id": "a", "status_code": 200},
            "timing": None,
        }
    )
    + "\n"
)


def _row(id: str, extra: tuple[str, ...], stderr: str, **kwargs: object) -> Row:
    kwargs.setdefault("files", SAMPLE)
    kwargs.setdefault("env", KEY)
    return Row(id, ("compare", "s.jsonl", "--old", OLD, "--new", NEW, *extra), stderr, **kwargs)  # type: ignore[arg-type]


ROWS = [
    Row("no-urls", ("compare", "s.jsonl"), U, files=SAMPLE),
    _row("sample-missing", (), C + "s.jsonl: no such file", files={}),
    _row("sample-a-directory", (), C + "s.jsonl: no such file", files={"s.jsonl/x": ""}),
    _row("sample-empty", (), C + "s.jsonl: the sample has no requests", files={"s.jsonl": "\n"}),
    _row("sample-bad-json", (), C + r"s.jsonl:2: not valid JSON", files={"s.jsonl": LINE + "\n{oops\n"}),
    _row(
        "sample-nested-too-deeply",
        (),
        C + r"s.jsonl:1: not valid JSON",
        files={"s.jsonl": "[" * 100_000 + "]" * 100_000 + "\n"},
    ),
    _row("sample-not-utf8", (), C + r"s.jsonl:1: not valid JSON", files={"s.jsonl": b"\xff\xfe{}\n"}),
    _row(
        "sample-no-messages",
        (),
        C + "s.jsonl:1: field 'body.messages' must be a non-empty list",
        files={"s.jsonl": json.dumps({"custom_id": "a", "body": {"model": "m"}}) + "\n"},
    ),
    _row(
        "sample-no-model",
        (),
        C + "s.jsonl:1: field 'model' is missing",
        files={"s.jsonl": json.dumps({"messages": [{"role": "user", "content": "x"}]}) + "\n"},
    ),
    _row(
        "sample-duplicate-id",
        (),
        C + "s.jsonl:2: field 'custom_id' 'a' repeats line 1",
        files={"s.jsonl": LINE + "\n" + LINE + "\n"},
    ),
    _row(
        "sample-embeddings-url",
        (),
        C + "s.jsonl:1: field 'url': compare replays /v1/chat/completions only, not '/v1/embeddings'",
        files={"s.jsonl": json.dumps({"custom_id": "a", "url": "/v1/embeddings", "body": {}}) + "\n"},
    ),
    _row("gate-no-operator", ("--gate", "p95_ratio"), C + "--gate: gate 'p95_ratio' is not METRIC OP VALUE"),
    _row(
        "gate-unknown-metric", ("--gate", "speed<=2"), C + "--gate: gate 'speed<=2': unknown metric 'speed'"
    ),
    _row("gate-bad-number", ("--gate", "p95_ratio<=fast"), C + "--gate: gate 'p95_ratio<=fast' is not"),
    _row("gate-noise-vs-noise", ("--gate", "noise>=noise"), C + "--gate: gate 'noise>=noise': noise cannot"),
    _row(
        "gate-noise-without-repeat",
        ("--gate", "similarity>=noise-0.05"),
        C + "--gate: a gate on the noise floor needs --repeat 2",
    ),
    _row(
        "gate-embedding-without-model",
        ("--gate", "embedding_similarity>=0.9"),
        C + "--gate: a gate on embedding similarity needs --embedding-model",
    ),
    _row(
        "gate-embedding-noise-without-repeat",
        ("--embedding-model", "text-embedding-3-small", "--gate", "embedding_similarity>=noise-0.05"),
        C + "--gate: a gate on the noise floor needs --repeat 2",
    ),
    _row(
        "embedding-model-unpriced-with-budget",
        ("--embedding-model", "my-embedder", "--budget", "1"),
        C + "--budget: a model of the sample has no price",
    ),
    _row("repeat-zero", ("--repeat", "0"), C + "--repeat: must be >= 1, got 0"),
    _row("repeat-not-a-number", ("--repeat", "two"), C + "--repeat: expected an integer, got 'two'"),
    _row("budget-negative", ("--budget", "-1"), C + "--budget: must be >= 0, got -1"),
    _row("budget-nan", ("--budget", "nan"), C + "--budget: must be >= 0, got nan"),
    _row("concurrency-zero", ("--concurrency", "0"), C + "--concurrency: must be >= 1, got 0"),
    _row("old-url-ftp", ("--old", "ftp://x/v1"), C + "--old: base_url must start with https:// or http://"),
    _row("new-url-not-a-url", ("--new", "api.example.com"), C + "--new: base_url must start with https://"),
    _row(
        "new-url-plain-http",
        ("--new", "http://api.example.com/v1"),
        C + "--new: Refusing to send the API key",
    ),
    _row("output-wrong-suffix", ("-o", "r.txt"), C + "-o r.txt: the report must end in .html or .json"),
    _row(
        "output-no-directory", ("-o", "nodir/r.html"), C + "-o nodir/r.html: directory nodir does not exist"
    ),
    _row(
        "key-variable-unset",
        ("--old-key-env", "NO_SUCH_VAR_XYZ"),
        C + "--old-key-env: the variable NO_SUCH_VAR_XYZ",
    ),
    _row("no-key", (), C + "--old-key-env: not given, and No API key", env={"HOLYSHEEP_API_KEY": None}),
    _row(
        "state-not-json",
        ("--state", "st.jsonl"),
        C + r"st.jsonl:1: not valid JSON",
        files={**SAMPLE, "st.jsonl": "{oops\n"},
    ),
    _row(
        "state-wrong-shape",
        ("--state", "st.jsonl"),
        C + r"st.jsonl:1: field 'pass' is missing or wrong",
        files={**SAMPLE, "st.jsonl": "{}\n"},
    ),
    _row(
        "state-of-another-endpoint",
        ("--state", "st.jsonl"),
        C + r"st.jsonl:1: endpoint: the answers of pass 'new' were recorded from http://127.0.0.1:11/v1, "
        r"not --new http://127.0.0.1:10/v1",
        files={**SAMPLE, "st.jsonl": STATE_OF_ANOTHER_ENDPOINT},
    ),
    _row("state-no-directory", ("--state", "nodir/st.jsonl"), C + "--state nodir/st.jsonl: directory nodir"),
    _row(
        "state-a-directory",
        ("--state", "adir"),
        C + "--state adir: not a file",
        files={**SAMPLE, "adir/x": ""},
    ),
    _row(
        "state-is-the-report",
        ("--state", "r.json", "-o", "r.json"),
        C + "--state r.json: the same file as -o",
    ),
    _row(
        "over-budget",
        ("--budget", "0"),
        C + r"1 requests x 2 passes; worst-case cost",
        exit=1,
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_compare_bad_input(row, tmp_path, capsys, monkeypatch):
    check_row(row, tmp_path, capsys, monkeypatch)
