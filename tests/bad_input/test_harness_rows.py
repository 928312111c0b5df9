"""The table harness itself: a row that lies about its outcome fails."""

from __future__ import annotations

import pytest

from bad_input.table import Row, check_row


def test_a_usage_error_row_passes(tmp_path, capsys, monkeypatch):
    check_row(Row("unknown-command", ("nosuch",), stderr="usage: holyclient"), tmp_path, capsys, monkeypatch)


def test_a_row_with_the_wrong_first_line_fails(tmp_path, capsys, monkeypatch):
    row = Row("wrong-line", ("nosuch",), stderr="something else entirely")
    with pytest.raises(AssertionError, match="does not match"):
        check_row(row, tmp_path, capsys, monkeypatch)


def test_a_row_that_writes_an_unexpected_file_fails(tmp_path, capsys, monkeypatch):
    import sys
    from pathlib import Path

    from bad_input import table

    def half_writes(argv):
        Path("out.jsonl").write_text('{"custom_id": "1"')
        print("in.jsonl:1: bad", file=sys.stderr)
        return 2

    monkeypatch.setattr(table, "main", half_writes)
    row = Row("half-written", ("x",), stderr="in.jsonl:1: bad")
    with pytest.raises(AssertionError, match="files written"):
        check_row(row, tmp_path, capsys, monkeypatch)


def test_a_traceback_fails_the_row(tmp_path, capsys, monkeypatch):
    import sys

    from bad_input import table

    def crashes(argv):
        print("holyclient x: internal error: ValueError: boom", file=sys.stderr)
        return 2

    monkeypatch.setattr(table, "main", crashes)
    with pytest.raises(AssertionError, match="internal error"):
        check_row(Row("crash", ("x",), stderr="holyclient"), tmp_path, capsys, monkeypatch)


def test_a_row_that_sends_to_the_relay_fails(tmp_path, capsys, monkeypatch, relay):
    import sys

    import httpx2

    from bad_input import table

    def sends(argv):
        import os

        httpx2.get(os.environ["HOLYSHEEP_BASE_URL"] + "/models", headers={"Authorization": "Bearer k"})
        print("in.jsonl:1: bad", file=sys.stderr)
        return 2

    monkeypatch.setattr(table, "main", sends)
    with pytest.raises(AssertionError, match=r"requests sent for a bad input: \['GET /v1/models'\]"):
        check_row(Row("sends", ("x",), stderr="in.jsonl:1: bad"), tmp_path, capsys, monkeypatch, relay=relay)
