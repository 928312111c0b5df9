"""Server and model text printed on a terminal (compare's text report, doctor's table) is shown, never
obeyed: control characters (ANSI sequences, carriage returns, bidi overrides) are written out."""

from __future__ import annotations

import json

import pytest

from holyclient._cli import main
from holyclient.testing import LocalServer

KEY = "sk-terminal-escapes-key"
#: Clears the screen, sets the window title, rewrites the line, reverses what follows.
HOSTILE = "ok\x1b[2J\x1b]0;pwned\x07\rfake PASS\u202eevil\x9b"


def _assert_inert(text: str) -> None:
    for char in ("\x1b", "\x07", "\r", "\u202e", "\x9b"):
        assert char not in text, repr(char)
    assert "\\x1b[2J" in text and "\\u202e" in text  # still shown, spelled out


def test_printable_spells_out_controls_and_keeps_text_and_tabs():
    from holyclient._core._printable import printable

    assert printable("a\tb é 中文 🙂") == "a\tb é 中文 🙂"
    assert printable("a\x1b[31mred\nb\x7f") == "a\\x1b[31mred\\x0ab\\x7f"
    _assert_inert(printable(HOSTILE))


def test_compare_text_report_does_not_let_an_answer_drive_the_terminal(tmp_path, capsys, monkeypatch):
    from raw_http import canned_server, http_answer

    monkeypatch.setenv("HOLYSHEEP_API_KEY", KEY)
    completion = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o-mini",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": HOSTILE}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 8, "completion_tokens": 3, "total_tokens": 11},
    }
    answer = http_answer("200 OK", {"Content-Type": "application/json"}, json.dumps(completion).encode())
    sample = tmp_path / "s.jsonl"
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}
    sample.write_text(json.dumps({"custom_id": "a", "body": body}) + "\n")
    with canned_server(answer) as old, LocalServer() as new:
        capsys.readouterr()
        main(["compare", str(sample), "--old", old, "--new", new.base_url])
    out = capsys.readouterr().out
    assert "old: ok" in out  # the differing answer is listed
    _assert_inert(out)


def test_doctor_table_does_not_let_evidence_drive_the_terminal(capsys: pytest.CaptureFixture[str]):
    from holyclient._cli._doctor_judges import Row
    from holyclient._cli.doctor import _print_table

    _print_table([Row("chat", "supported", f"HTTP 200: {HOSTILE}", True)])
    _assert_inert(capsys.readouterr().out)
