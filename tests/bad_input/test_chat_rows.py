"""Bad input for ``holyclient chat``: one row per case (see ``table.py``). No row reaches a server:
the one that tries gets a closed port on 127.0.0.1."""

from __future__ import annotations

import sys

import pytest

from bad_input.table import Row, check_row

C = "holyclient chat: "
U = "usage: holyclient chat "
KEY = {"HOLYSHEEP_API_KEY": "sk-row-0123456789", "HOLYSHEEP_BASE_URL": None}
NO_KEY = {"HOLYSHEEP_API_KEY": None, "HOLYSHEEP_BASE_URL": None}

ROWS = [
    Row("no-key", ("chat", "hi"), C + "no API key: set HOLYSHEEP_API_KEY or pass --api-key", env=NO_KEY),
    Row("empty-api-key-flag", ("chat", "hi", "--api-key", ""), C + "--api-key is empty", env=NO_KEY),
    Row("empty-key-variable", ("chat", "hi"), C + "no API key", env={**NO_KEY, "HOLYSHEEP_API_KEY": ""}),
    Row("empty-prompt", ("chat", ""), C + "the prompt is empty", env=KEY),
    Row("blank-prompt", ("chat", "   "), C + "the prompt is empty", env=KEY),
    Row("empty-stdin", ("chat", "-"), C + r"the prompt is empty \(stdin had no text\)", env=KEY, stdin=""),
    Row("no-prompt", ("chat",), U, env=KEY),
    Row("stdin-closed", ("chat", "-"), C + "standard input is closed", env=KEY),
    Row("empty-model", ("chat", "hi", "--model", ""), C + "--model is empty", env=KEY),
    Row(
        "plain-http-to-another-host",
        ("chat", "hi", "--base-url", "http://relay.example/v1"),
        C + r"refusing to send the API key over plain http:// .* pass --allow-insecure-http",
        env=KEY,
    ),
    Row(
        "plain-http-from-the-environment",
        ("chat", "hi"),
        C + "refusing to send the API key over plain http://",
        env={**KEY, "HOLYSHEEP_BASE_URL": "http://relay.example/v1"},
    ),
    Row(
        "base-url-ftp",
        ("chat", "hi", "--base-url", "ftp://x/v1"),
        C + r"the base URL .* must be an http",
        env=KEY,
    ),
    Row(
        "base-url-not-a-url",
        ("chat", "hi", "--base-url", "not a url"),
        C + r"the base URL .* must be an http",
        env=KEY,
    ),
    Row("max-tokens-zero", ("chat", "hi", "--max-tokens", "0"), U, env=KEY),
    Row("max-tokens-negative", ("chat", "hi", "--max-tokens", "-1"), U, env=KEY),
    Row("temperature-too-high", ("chat", "hi", "--temperature", "3"), U, env=KEY),
    Row("temperature-nan", ("chat", "hi", "--temperature", "nan"), U, env=KEY),
    Row("timeout-zero", ("chat", "hi", "--timeout", "0"), U, env=KEY),
    Row("max-retries-negative", ("chat", "hi", "--max-retries", "-1"), U, env=KEY),
    Row("unknown-flag", ("chat", "hi", "--bogus"), U, env=KEY),
    Row(
        "nothing-listening",
        ("chat", "hi", "--base-url", "http://127.0.0.1:9/v1", "--max-retries", "0"),
        C + r"cannot reach http://127\.0\.0\.1:9/v1",
        exit=1,
        env=KEY,
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_chat_row(row, tmp_path, capsys, monkeypatch):
    if row.id == "stdin-closed":  # as after `<&-`
        monkeypatch.setattr(sys, "stdin", None)
    _, err = check_row(row, tmp_path, capsys, monkeypatch)
    assert "sk-row-0123456789" not in err
