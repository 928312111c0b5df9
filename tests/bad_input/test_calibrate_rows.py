"""Bad input for ``holyclient calibrate``: one row per case (see ``table.py``)."""

from __future__ import annotations

import json

import pytest

from bad_input.table import Row, check_row

ENV = {"HOLYSHEEP_PRICES": None}
C = "holyclient calibrate: "
BODY = {"model": "claude-sonnet-4.5", "messages": [{"role": "user", "content": "hello there"}]}


def _in(*ids: str, body: dict | None = None) -> str:
    return "".join(
        json.dumps({"custom_id": i, "method": "POST", "url": "/v1/chat/completions", "body": body or BODY})
        + "\n"
        for i in ids
    )


def _out(custom_id: str, prompt: object = 12, model: str = "claude-sonnet-4-5-20250929") -> str:
    body = {"model": model, "usage": {"prompt_tokens": prompt, "completion_tokens": 3}}
    return (
        json.dumps(
            {
                "id": "b1",
                "custom_id": custom_id,
                "response": {"status_code": 200, "body": body},
                "error": None,
            }
        )
        + "\n"
    )


OK_IN = _in("a", "b")
OK_OUT = _out("a") + _out("b", 14)

ROWS = [
    Row(
        "pairs-only",
        ("calibrate", "in.jsonl", "-o", "c.json"),
        C + "give INPUT OUTPUT pairs: got 1 files",
        files={"in.jsonl": OK_IN},
    ),
    Row(
        "no-output-flag",
        ("calibrate", "in.jsonl", "out.jsonl"),
        "usage: holyclient calibrate ",
        files={"in.jsonl": OK_IN, "out.jsonl": OK_OUT},
    ),
    Row(
        "missing-input",
        ("calibrate", "nope.jsonl", "out.jsonl", "-o", "c.json"),
        C + "nope.jsonl: cannot open",
        files={"out.jsonl": OK_OUT},
    ),
    Row(
        "missing-output",
        ("calibrate", "in.jsonl", "nope.jsonl", "-o", "c.json"),
        C + "nope.jsonl: cannot open",
        files={"in.jsonl": OK_IN},
    ),
    Row(
        "input-without-custom-id",
        ("calibrate", "in.jsonl", "out.jsonl", "-o", "c.json"),
        C + r"in.jsonl:1: custom_id: missing",
        files={"in.jsonl": json.dumps(BODY) + "\n", "out.jsonl": OK_OUT},
    ),
    Row(
        "input-custom-id-twice",
        ("calibrate", "in.jsonl", "out.jsonl", "-o", "c.json"),
        C + r"in.jsonl:2: custom_id: 'a' appears twice",
        files={"in.jsonl": _in("a", "a"), "out.jsonl": OK_OUT},
    ),
    Row(
        "output-invalid-json",
        ("calibrate", "in.jsonl", "out.jsonl", "-o", "c.json"),
        C + r"out.jsonl:2:\d+: invalid JSON",
        files={"in.jsonl": OK_IN, "out.jsonl": _out("a") + "{oops\n"},
    ),
    Row(
        "output-without-custom-id",
        ("calibrate", "in.jsonl", "out.jsonl", "-o", "c.json"),
        C + r"out.jsonl:1: custom_id: missing",
        files={"in.jsonl": OK_IN, "out.jsonl": '{"response": {}}\n'},
    ),
    Row(
        "output-id-not-in-input",
        ("calibrate", "in.jsonl", "out.jsonl", "-o", "c.json"),
        C + r"out.jsonl:2: custom_id: 'zz' is not in in.jsonl",
        files={"in.jsonl": OK_IN, "out.jsonl": _out("a") + _out("zz")},
    ),
    Row(
        "output-of-another-model",
        ("calibrate", "in.jsonl", "out.jsonl", "-o", "c.json"),
        C + r"out.jsonl:1: model: 'gpt-4o' answered request 'a'",
        files={"in.jsonl": OK_IN, "out.jsonl": _out("a", model="gpt-4o")},
    ),
    Row(
        "prompt-tokens-negative",
        ("calibrate", "in.jsonl", "out.jsonl", "-o", "c.json"),
        C + r"out.jsonl:1: response.body.usage.prompt_tokens: expected a non-negative integer, got -3",
        files={"in.jsonl": OK_IN, "out.jsonl": _out("a", -3)},
    ),
    Row(
        "prompt-tokens-text",
        ("calibrate", "in.jsonl", "out.jsonl", "-o", "c.json"),
        C + r"out.jsonl:1: response.body.usage.prompt_tokens: expected a non-negative integer, got '12'",
        files={"in.jsonl": OK_IN, "out.jsonl": _out("a", "12")},
    ),
    Row(
        "report-request-without-id",
        ("calibrate", "in.jsonl", "report.json", "-o", "c.json"),
        C + r"report.json:1: requests\[0\]\.custom_id: missing",
        files={"in.jsonl": OK_IN, "report.json": json.dumps({"new": {}, "old": {}, "requests": [{}]})},
    ),
    Row(
        "second-pair-does-not-match",
        ("calibrate", "in.jsonl", "out.jsonl", "in2.jsonl", "out.jsonl", "-o", "c.json"),
        C + r"out.jsonl:1: custom_id: 'a' is not in in2.jsonl",
        files={"in.jsonl": OK_IN, "out.jsonl": OK_OUT, "in2.jsonl": _in("x")},
    ),
    Row(
        "only-exact-models",
        ("calibrate", "in.jsonl", "out.jsonl", "-o", "c.json"),
        C + r"nothing to calibrate: .*\(gpt-4o count exactly\)",
        exit=1,
        files={
            "in.jsonl": _in("a", body={"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}),
            "out.jsonl": _out("a", model="gpt-4o"),
        },
    ),
    Row(
        "a-pair-that-fits",
        ("calibrate", "in.jsonl", "out.jsonl", "-o", "c.json"),
        C + "wrote c.json",
        exit=0,
        files={"in.jsonl": OK_IN, "out.jsonl": OK_OUT},
        writes=frozenset({"c.json"}),
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_calibrate_row(row, tmp_path, capsys, monkeypatch):
    check_row(Row(**{**row.__dict__, "env": {**ENV, **row.env}}), tmp_path, capsys, monkeypatch)
