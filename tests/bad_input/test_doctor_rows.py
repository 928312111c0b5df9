"""Bad input for ``holyclient doctor``: one row per case (see ``table.py``). Nothing is sent in any row."""

from __future__ import annotations

import pytest

from bad_input.table import Row, check_row

D = "holyclient doctor: "
U = "usage: holyclient doctor "
LOCAL = "http://127.0.0.1:9/v1"
KEY = {"HOLYSHEEP_API_KEY": "sk-rows"}

ROWS = [
    Row("unknown-option", ("doctor", "--nosuch"), "usage: holyclient ", env=KEY),
    Row(
        "url-ftp",
        ("doctor", "--base-url", "ftp://x/v1"),
        D + "base_url must start with https:// or http://",
        env=KEY,
    ),
    Row(
        "url-not-a-url",
        ("doctor", "--base-url", "example.com"),
        D + "base_url must start with https://",
        env=KEY,
    ),
    Row(
        "url-plain-http-remote",
        ("doctor", "--base-url", "http://api.example.com/v1"),
        D + "Refusing to send the API key over plain http://",
        env=KEY,
    ),
    Row("no-key", ("doctor", "--base-url", LOCAL), D + "No API key", env={"HOLYSHEEP_API_KEY": None}),
    Row(
        "model-empty",
        ("doctor", "--base-url", LOCAL, "--model", ""),
        D + "--model: a model name must not be empty",
        env=KEY,
    ),
    Row(
        "embedding-model-empty",
        ("doctor", "--base-url", LOCAL, "--embedding-model", " "),
        D + "--embed-model: a model name must not be empty",
        env=KEY,
    ),
    Row(
        "embed-model-empty",
        ("doctor", "--base-url", LOCAL, "--embed-model", ""),
        D + "--embed-model: a model name must not be empty",
        env=KEY,
    ),
    Row(
        "model-typo",
        ("doctor", "--base-url", LOCAL, "--model", "gpt-4.1-mni"),
        D + r"--model: no price for model 'gpt-4.1-mni' \(did you mean gpt-4.1-mini, .*\); pass --yes",
        env=KEY,
    ),
    Row(
        "embed-model-typo",
        ("doctor", "--base-url", LOCAL, "--embed-model", "text-embedding-3-smal"),
        D
        + r"--embed-model: no price for model 'text-embedding-3-smal' \(did you mean text-embedding-3-small",
        env=KEY,
    ),
    Row(
        "save-capabilities-not-json",
        ("doctor", "--base-url", LOCAL, "--save-capabilities", "{tmp}/caps.json"),
        D + "--save-capabilities: {tmp}/caps.json:1: not JSON; not a capabilities file",
        files={"caps.json": "{oops"},
        env=KEY,
    ),
    Row(
        "save-capabilities-not-a-capabilities-file",
        ("doctor", "--base-url", LOCAL, "--save-capabilities", "{tmp}/prices.json"),
        D + "--save-capabilities: {tmp}/prices.json:1: models: missing; not a capabilities file",
        files={"prices.json": '{"schema": 1, "currency": "USD"}'},
        env=KEY,
    ),
    Row(
        "save-capabilities-directory-missing",
        ("doctor", "--base-url", LOCAL, "--save-capabilities", "{tmp}/nowhere/caps.json"),
        D + "--save-capabilities: {tmp}/nowhere/caps.json: its directory does not exist",
        env=KEY,
    ),
    Row(
        "save-capabilities-a-directory",
        ("doctor", "--base-url", LOCAL, "--save-capabilities", "{tmp}/sub"),
        D + "--save-capabilities: {tmp}/sub: cannot read: Is a directory",
        files={"sub/keep.txt": "x"},
        env=KEY,
    ),
    Row(
        "unpriced-model-without-yes",
        ("doctor", "--base-url", LOCAL, "--model", "my-own-model"),
        D + r"15 probes to http://127.0.0.1:9/v1, estimated cost at most unknown",
        env=KEY,
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_doctor_bad_input(row, tmp_path, capsys, monkeypatch):
    check_row(row, tmp_path, capsys, monkeypatch)
