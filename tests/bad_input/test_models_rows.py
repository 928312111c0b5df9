"""Bad input for ``holyclient models``: one row per case (see ``table.py``)."""

from __future__ import annotations

import pytest

from bad_input.table import Row, check_row

M = "holyclient models: "
U = "usage: holyclient models "

ROWS = [
    Row(
        "provider-unknown",
        ("models", "--provider", "nosuch"),
        M + r"no provider 'nosuch' in the price table; known providers: anthropic, .*openai",
    ),
    Row("provider-empty", ("models", "--provider", ""), M + "no provider '' in the price table"),
    Row("provider-any-case", ("models", "--provider", "OpenAI"), "", exit=0),
    Row("cny-rate-zero", ("models", "--cny-rate", "0"), U),
    Row("cny-rate-negative", ("models", "--cny-rate", "-1"), U),
    Row("cny-rate-nan", ("models", "--cny-rate", "nan"), U),
    Row("cny-rate-inf", ("models", "--cny-rate", "inf"), U),
    Row("prices-missing", ("models", "--prices", "nope.json"), M + "nope.json: cannot read price file"),
    Row(
        "prices-a-directory",
        ("models", "--prices", "adir"),
        M + "adir: cannot read price file",
        files={"adir/x": ""},
    ),
    Row(
        "prices-invalid-json",
        ("models", "--prices", "p.json"),
        M + r"p.json:1:\d+: invalid JSON",
        files={"p.json": "{oops"},
    ),
    Row(
        "prices-wrong-shape",
        ("models", "--prices", "p.json"),
        M + 'p.json: expected an object with a "models" object',
        files={"p.json": '{"models": []}'},
    ),
    Row(
        "prices-missing-output",
        ("models", "--prices", "p.json"),
        M + r"p.json: models.house.output: missing",
        files={"p.json": '{"models": {"house": {"input": 1}}}'},
    ),
    Row(
        "prices-env-missing",
        ("models",),
        M + "nope.json: cannot read price file",
        env={"HOLYSHEEP_PRICES": "nope.json"},
    ),
    Row(
        "prices-utf16",
        ("models", "--prices", "p.json"),
        M + "p.json:1: not UTF-8 text",
        files={"p.json": '{"models": {}}'.encode("utf-16")},
    ),
    Row(
        "prices-latin1-on-line-3",
        ("models", "--prices", "p.json"),
        M + "p.json:3: not UTF-8 text",
        files={"p.json": b'{"models": {\n"a": {"input": 1, "output": 1,\n"notes": "caf\xe9"}}}'},
    ),
    Row(
        "prices-nested-too-deeply",
        ("models", "--prices", "p.json"),
        M + "p.json: invalid JSON: nested too deeply",
        files={"p.json": '{"models": ' + "[" * 100_000},
    ),
    Row(
        "prices-with-bom-accepted",
        ("models", "--prices", "p.json"),
        "",
        exit=0,
        files={"p.json": b'\xef\xbb\xbf{"models": {"house": {"input": 1, "output": 2}}}'},
    ),
    Row("unknown-flag", ("models", "--bogus"), U),
]


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_models_row(row, tmp_path, capsys, monkeypatch):
    env = {"HOLYSHEEP_PRICES": None, **row.env}
    check_row(Row(**{**row.__dict__, "env": env}), tmp_path, capsys, monkeypatch)
