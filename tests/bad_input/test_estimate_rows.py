"""Bad input for ``holyclient estimate``: one row per case (see ``table.py``)."""

from __future__ import annotations

import json
import sys

import pytest

from bad_input.table import Row, check_row

ENV = {"HOLYSHEEP_PRICES": None}
HELLO = [{"role": "user", "content": "hello"}]
OK = json.dumps({"model": "gpt-4o", "messages": HELLO})


def _line(**fields: object) -> str:
    return json.dumps({"model": "gpt-4o", "messages": HELLO, **fields}) + "\n"


def _raw(extra: str) -> str:
    """A request line with a raw JSON fragment (for values json.dumps will not write, such as 1e23)."""
    return '{"model": "gpt-4o", "messages": [], ' + extra + "}\n"


E = "holyclient estimate: "
U = "usage: holyclient estimate "

ROWS = [
    Row(
        "calibration-file-missing",
        ("estimate", "in.jsonl", "--calibration", "cal.json"),
        E + "cal.json: cannot read calibration file: No such file",
        files={"in.jsonl": OK},
    ),
    Row(
        "calibration-file-not-json",
        ("estimate", "in.jsonl", "--calibration", "cal.json"),
        E + "cal.json:1: not a JSON calibration file",
        files={"in.jsonl": OK, "cal.json": "{oops"},
    ),
    Row(
        "calibration-factor-negative",
        ("estimate", "in.jsonl", "--calibration", "cal.json"),
        E + r"cal.json:1: models\.m\.factor: expected a positive number, got -1",
        files={"in.jsonl": OK, "cal.json": json.dumps({"models": {"m": {"factor": -1, "error": 0.1}}})},
    ),
    Row("missing-file", ("estimate", "nope.jsonl"), E + "nope.jsonl: cannot open: No such file"),
    Row("a-directory", ("estimate", "adir"), E + "adir: is a directory", files={"adir/x.jsonl": OK}),
    Row("empty-file", ("estimate", "in.jsonl"), E + "in.jsonl: empty input", files={"in.jsonl": ""}),
    Row(
        "blank-lines-only", ("estimate", "in.jsonl"), E + "in.jsonl: empty input", files={"in.jsonl": "\n \n"}
    ),
    Row("empty-stdin", ("estimate", "-"), E + "<stdin>: empty input", stdin=""),
    Row(
        "utf8-bom-accepted",
        ("estimate", "in.jsonl"),
        "",
        exit=0,
        files={"in.jsonl": b"\xef\xbb\xbf" + OK.encode()},
    ),
    Row(
        "latin1-on-line-2",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:2: not UTF-8 text",
        files={"in.jsonl": OK.encode() + b"\n" + OK.replace("hello", "caf\xe9").encode("latin-1")},
    ),
    Row(
        "binary-file",
        ("estimate", "img.png"),
        E + r"img.png:1: not UTF-8 text",
        files={"img.png": b"\x89PNG\r\n\x1a\n"},
    ),
    Row(
        "invalid-json-line-2",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:2:\d+: invalid JSON",
        files={"in.jsonl": OK + "\n{oops\n"},
    ),
    Row(
        "max-tokens-1e23",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:1: field 'max_tokens' must be a non-negative integer",
        files={"in.jsonl": _raw('"max_tokens": 1e23')},
    ),
    Row(
        "max-tokens-huge-integer",
        ("estimate", "in.jsonl", "--compare", "gpt-4o,gpt-4.1"),
        E + r"in.jsonl:1: field 'max_tokens' is 100,000,000,000,000,000,000,000, more than the API allows",
        files={"in.jsonl": _raw('"max_tokens": 100000000000000000000000')},
    ),
    Row(
        "max-tokens-nan",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:1: field 'max_tokens'",
        files={"in.jsonl": _raw('"max_tokens": NaN')},
    ),
    Row(
        "max-tokens-negative",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:1: field 'max_tokens'",
        files={"in.jsonl": _line(max_tokens=-5)},
    ),
    Row(
        "max-completion-tokens-string",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:1: field 'max_completion_tokens'",
        files={"in.jsonl": _line(max_completion_tokens="lots")},
    ),
    Row(
        "n-1000",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:1: field 'n' is 1,000, more than the API allows \(128\)",
        files={"in.jsonl": _line(n=1000)},
    ),
    Row(
        "unpriced-model-is-a-warning",
        ("estimate", "in.jsonl"),
        E + "warning: no price for model 'gpt-4-1106-preview'",
        exit=0,
        files={"in.jsonl": _line(model="gpt-4-1106-preview")},
    ),
    Row(
        "fine-tune-priced-as-base",
        ("estimate", "in.jsonl"),
        "",
        exit=0,
        files={"in.jsonl": _line(model="ft:gpt-4o-mini:acme::x1")},
    ),
    Row(
        "no-model",
        ("estimate", "in.jsonl"),
        E + "in.jsonl:1: no model",
        files={"in.jsonl": json.dumps({"messages": HELLO})},
    ),
    Row(
        "model-not-a-string",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:1: field 'model' must be a string",
        files={"in.jsonl": _line(model=4)},
    ),
    Row(
        "messages-not-a-list",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:1: field 'messages' must be a list",
        files={"in.jsonl": _line(messages="hi")},
    ),
    Row(
        "message-without-role",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:1: field 'messages\[0\]\.role'",
        files={"in.jsonl": _line(messages=[{"content": "x"}])},
    ),
    Row(
        "batch-line-body-array",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:1: field 'body' must be an object",
        files={"in.jsonl": '{"custom_id": "a", "body": []}\n'},
    ),
    Row(
        "batch-line-files-url",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:1: field 'url'",
        files={"in.jsonl": '{"custom_id": "a", "url": "/v1/files", "body": {}}\n'},
    ),
    Row(
        "array-of-numbers",
        ("estimate", "in.json"),
        E + r"in.json:1: expected a JSON array of chat messages",
        files={"in.json": "[1, 2]"},
    ),
    Row(
        "a-string",
        ("estimate", "in.json"),
        E + r"in.json:1: expected a JSON object, got a string",
        files={"in.json": '"hello"'},
    ),
    Row(
        "compare-empty",
        ("estimate", "in.jsonl", "--compare", ""),
        E + "--compare needs at least one model name",
        files={"in.jsonl": OK},
    ),
    Row(
        "compare-only-commas",
        ("estimate", "in.jsonl", "--compare", ",,"),
        E + "--compare needs at least one model name",
        files={"in.jsonl": OK},
    ),
    Row(
        "model-empty", ("estimate", "in.jsonl", "--model", ""), E + "--model is empty", files={"in.jsonl": OK}
    ),
    Row("cny-rate-zero", ("estimate", "in.jsonl", "--cny-rate", "0"), U, files={"in.jsonl": OK}),
    Row("cny-rate-nan", ("estimate", "in.jsonl", "--cny-rate", "nan"), U, files={"in.jsonl": OK}),
    Row("output-tokens-1e23", ("estimate", "in.jsonl", "--output-tokens", "1e23"), U, files={"in.jsonl": OK}),
    Row(
        "output-tokens-huge",
        ("estimate", "in.jsonl", "--output-tokens", "99999999999"),
        U,
        files={"in.jsonl": OK},
    ),
    Row("json-and-summary", ("estimate", "in.jsonl", "--json", "--summary"), U, files={"in.jsonl": OK}),
    Row("max-cost-negative", ("estimate", "in.jsonl", "--max-cost", "-1"), U, files={"in.jsonl": OK}),
    Row("max-cost-infinite", ("estimate", "in.jsonl", "--max-cost", "inf"), U, files={"in.jsonl": OK}),
    Row("image-size-zero", ("estimate", "in.jsonl", "--image-size", "0x0"), U, files={"in.jsonl": OK}),
    Row(
        "prices-missing",
        ("estimate", "in.jsonl", "--prices", "nope.json"),
        E + "nope.json: cannot read price file",
        files={"in.jsonl": OK},
    ),
    Row(
        "prices-negative",
        ("estimate", "in.jsonl", "--prices", "p.json"),
        E + r"p.json: models.x.input: expected a non-negative number",
        files={"in.jsonl": OK, "p.json": '{"models": {"x": {"input": -1, "output": 1}}}'},
    ),
    Row("unknown-flag", ("estimate", "in.jsonl", "--bogus"), U, files={"in.jsonl": OK}),
    Row(
        "output-flag-does-not-exist",
        ("estimate", "in.jsonl", "-o", "adir"),
        U,
        files={"in.jsonl": OK, "adir/.keep": ""},
    ),
    Row("no-file", ("estimate",), U),
    Row("stdin-closed", ("estimate", "-"), E + "<stdin>: standard input is closed"),
    Row(
        "utf16-from-powershell",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:1: not UTF-8 text \(UTF-16",
        files={"in.jsonl": OK.encode("utf-16")},
    ),
    Row(
        "json-nested-too-deeply",
        ("estimate", "in.jsonl"),
        E + r"in.jsonl:1: invalid JSON: nested too deeply",
        files={"in.jsonl": '{"model": "gpt-4o", "messages": ' + "[" * 100_000 + "]" * 100_000 + "}\n"},
    ),
    Row(
        "array-nested-too-deeply",
        ("estimate", "in.json"),
        E + r"in.json:1: invalid JSON: nested too deeply",
        files={"in.json": "[" * 100_000},
    ),
    Row(
        "role-human",
        ("estimate", "in.jsonl"),
        E + r"in\.jsonl:2: field 'messages\[0\]\.role' must be one of system, developer, user, assistant, "
        r"tool, function, got 'human'",
        files={"in.jsonl": OK + "\n" + _line(messages=[{"role": "human", "content": "hi"}])},
        env=ENV,
    ),
    Row(
        "text-instead-of-content",
        ("estimate", "in.jsonl"),
        E + r"in\.jsonl:1: field 'messages\[0\]\.content' is missing \(found 'text'",
        files={"in.jsonl": _line(messages=[{"role": "user", "text": "hi"}])},
        env=ENV,
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_estimate_row(row, tmp_path, capsys, monkeypatch):
    if row.id == "stdin-closed":  # as after `<&-`
        monkeypatch.setattr(sys, "stdin", None)
    check_row(Row(**{**row.__dict__, "env": {**ENV, **row.env}}), tmp_path, capsys, monkeypatch)
