"""Batch input validation and output resume: line parsing, duplicates, torn lines, --retry-failed rewrite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from batch_support import write_jsonl
from holyclient.batch import (
    BatchResult,
    InputLineError,
    OutputError,
    OutputWriter,
    input_versions,
    iter_requests,
    parse_line,
    prepare_output,
    validate_input,
)
from holyclient.batch._input import IdSet, digest

BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}


def _line(custom_id: str, **overrides: Any) -> str:
    line = {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": BODY}
    line.update(overrides)
    return json.dumps(line)


def test_batch_api_line_and_bare_body_are_both_accepted() -> None:
    request = parse_line(_line("a"), 1)
    assert (request.custom_id, request.body["model"]) == ("a", "gpt-4o-mini")
    bare = parse_line(json.dumps(BODY), 7)
    assert bare.custom_id == "7"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        (_line("a", url="/v1/embedding"), "unsupported url '/v1/embedding'"),
        (_line("a", url="/v1/embeddings"), "field 'body.input' is missing"),
        (_line("a", method="GET"), "field 'method'"),
        (_line(""), "field 'custom_id'"),
        (_line("a", body={"model": "m", "messages": []}), "body.messages"),
        (_line("a", body={"messages": [{"role": "user", "content": "x"}]}), "body.model"),
        (_line("a", body={**BODY, "stream": True}), "body.stream"),
        (json.dumps({"custom_id": "a"}), "field 'body' is missing"),
    ],
)
def test_invalid_lines_name_the_field_at_fault(text: str, message: str) -> None:
    with pytest.raises(InputLineError, match=message):
        parse_line(text, 1)


def test_a_line_is_judged_on_its_own_numbers_whatever_came_before() -> None:
    """The decoder that notes non-finite numbers is kept between lines: what one line held must not be
    blamed on the next (a valid line after a NaN is accepted), as text or bytes, BOM or not."""
    nan = _line("a", body={**BODY, "temperature": float("nan")})
    assert "NaN" in nan
    for text in (nan, nan.encode(), b"\xef\xbb\xbf" + nan.encode()):
        with pytest.raises(InputLineError):
            parse_line(text, 1)
        for good in (_line("b"), _line("b").encode(), b"\xef\xbb\xbf" + _line("b").encode()):
            assert parse_line(good, 2).custom_id == "b"
    with pytest.raises(InputLineError, match="not valid JSON"):
        parse_line("\ufeff" + _line("c"), 3)  # a decoded BOM left in the text, as json.loads refuses it


def test_default_model_fills_only_bodies_without_one() -> None:
    no_model = {"messages": [{"role": "user", "content": "x"}]}
    assert parse_line(_line("a", body=no_model), 1, "gpt-4.1").body["model"] == "gpt-4.1"
    assert parse_line(_line("a"), 1, "gpt-4.1").body["model"] == "gpt-4o-mini"


def test_validation_reports_every_bad_line_and_duplicate_with_line_numbers(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "in.jsonl",
        [_line("a"), _line("b"), "oops", "", _line("a"), _line("c", url="/v1/x"), _line("b"), _line("a")],
    )
    report = validate_input(path)
    assert report.requests == 5  # parseable lines (duplicates included)
    assert report.problems == [
        (3, "not valid JSON (Expecting value: line 1 column 1 (char 0))"),
        (5, "duplicate custom_id 'a' (first on line 1)"),
        (
            6,
            "field 'url': unsupported url '/v1/x' (supported: /v1/chat/completions, /v1/embeddings, "
            "/v1/completions, /v1/responses, /v1/moderations)",
        ),
        (7, "duplicate custom_id 'b' (first on line 2)"),
        (8, "duplicate custom_id 'a' (first on line 1)"),
    ]


def test_bare_body_line_number_clashing_with_an_explicit_id_is_a_duplicate(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "in.jsonl", [_line("2"), json.dumps(BODY)])
    assert validate_input(path).problems == [(2, "duplicate custom_id '2' (first on line 1)")]


def test_id_set_membership() -> None:
    ids = IdSet(digest(f"id{i}") for i in range(50000))
    assert len(ids) == 50000
    assert "id0" in ids and "id49999" in ids
    assert "id50000" not in ids and 3 not in ids


def test_iter_requests_skips_what_is_done(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "in.jsonl", [_line(f"r{i}") for i in range(5)])
    left = [r.custom_id for r in iter_requests(path, skip=IdSet([digest("r1"), digest("r3")]))]
    assert left == ["r0", "r2", "r4"]


def _result(custom_id: str, ok: bool = True) -> BatchResult:
    if ok:
        return BatchResult(custom_id, 200, "req", {"choices": []})
    return BatchResult(custom_id, error={"code": "timeout", "message": "Request timed out."})


def test_writer_appends_one_complete_line_per_result(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    with OutputWriter(path) as writer:
        writer.write(_result("a"))
    with OutputWriter(path) as writer:
        writer.write(_result("b", ok=False))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["custom_id"] for line in lines] == ["a", "b"]
    assert set(lines[0]) == {"id", "custom_id", "response", "error"}
    assert lines[1]["response"] is None and lines[1]["error"]["code"] == "timeout"


def test_resume_state_lists_done_ids_and_repairs_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    with OutputWriter(path) as writer:
        writer.write(_result("a"))
        writer.write(_result("b", ok=False))
    intact = path.read_bytes()
    torn = json.dumps(_result("c").output_line())[:40]
    path.write_bytes(intact + torn.encode())
    state = prepare_output(path)
    assert state.torn_bytes == len(torn)
    assert path.read_bytes() == intact
    assert "a" in state.done and "b" in state.done and "c" not in state.done
    assert (state.succeeded, state.failed) == (1, 1)


def test_retry_failed_removes_failures_so_each_id_stays_once(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    with OutputWriter(path) as writer:
        for custom_id, ok in [("a", True), ("b", False), ("c", True), ("d", False)]:
            writer.write(_result(custom_id, ok))
    state = prepare_output(path, retry_failed=True)
    assert state.dropped_failures == 2
    assert "b" not in state.done and "d" not in state.done and "a" in state.done
    assert [json.loads(line)["custom_id"] for line in path.read_text().splitlines()] == ["a", "c"]
    assert not (tmp_path / "out.jsonl.tmp").exists()


def test_a_corrupt_complete_line_refuses_to_resume_and_leaves_the_file_alone(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "out.jsonl", [json.dumps(_result("a").output_line()), "garbage", "{}"])
    before = path.read_bytes()
    with pytest.raises(OutputError, match=r"out.jsonl:2"):
        prepare_output(path)
    assert path.read_bytes() == before


def test_missing_output_means_nothing_done(tmp_path: Path) -> None:
    state = prepare_output(tmp_path / "none.jsonl")
    assert len(state.done) == 0 and state.torn_bytes == 0


def test_reading_a_validated_input_again_gives_the_requests_validation_accepted(tmp_path: Path) -> None:
    lines = [
        json.dumps({"custom_id": "a", "body": {"messages": [{"role": "user", "content": "x"}]}}),
        json.dumps({"custom_id": "e", "url": "/v1/embeddings", "body": {"input": "x"}}),
        json.dumps({"custom_id": "m", "url": "/v1/moderations", "body": {"input": "x"}}),
        "",
        json.dumps({"messages": [{"role": "user", "content": "bare"}], "model": "gpt-4o"}),
    ]
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode() + b"\n")
    assert not validate_input(path, "gpt-4.1").problems
    checked = list(iter_requests(path, "gpt-4.1"))
    assert list(iter_requests(path, "gpt-4.1", validated=True)) == checked
    assert [r.body.get("model") for r in checked] == ["gpt-4.1", "gpt-4.1", None, "gpt-4o"]
    assert checked[-1].custom_id == "4"


def test_validation_fingerprints_bodies_only_when_asked_and_a_resume_gets_the_same_versions(
    tmp_path: Path,
) -> None:
    """A fresh run needs no versions (fingerprinting every body costs as much as sending it on a fast
    endpoint); a resume collects them afterwards, and they must be the ones validation would give."""
    source = tmp_path / "in.jsonl"
    write_jsonl(source, [_line(f"r{i}", body={**BODY, "user": f"u{i}"}) for i in range(5)])
    assert validate_input(source, versions=False).versions is None
    full = validate_input(source).versions
    assert full is not None and len(full) == 5
    assert input_versions(source).digest() == full.digest()
