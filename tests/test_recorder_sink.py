"""``record_to``'s writer: which requests are sampled, the exact line written (compact JSON, text kept
as UTF-8, unknown values as strings), the line limit, the file's mode, the ids, and how recording stops
when a write fails (the reason it gives, a failed cut-back)."""

from __future__ import annotations

import datetime
import errno
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from holyclient._core._request import RequestOptions
from holyclient._send._recorder import JsonlSink, Recorder

CHAT = RequestOptions(method="POST", path="/chat/completions", body={"model": "m", "messages": []})


class FixedRandom:
    """A random source that always draws ``value``."""

    def __init__(self, value: float) -> None:
        self.value = value

    def random(self) -> float:
        return self.value


class Tracker:
    def __init__(self) -> None:
        self.warnings: list[str] = []

    def warn(self, message: str) -> None:
        self.warnings.append(message)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    "options",
    [
        RequestOptions(method="GET", path="/chat/completions"),
        RequestOptions(method="GET", path="/chat/completions", body={"model": "m"}),
        RequestOptions(method="POST", path="/chat/completions"),
        RequestOptions(method="POST", path="/files", body={"purpose": "batch"}),
    ],
    ids=["get-no-body", "get-with-body", "post-no-body", "post-not-replayable"],
)
def test_only_a_post_with_a_body_to_a_replayable_endpoint_is_recorded(tmp_path: Path, options: Any) -> None:
    recorder = Recorder(tmp_path / "r.jsonl")
    recorder.observe(options)
    recorder.observe(CHAT)
    assert [line["url"] for line in _lines(tmp_path / "r.jsonl")] == ["/v1/chat/completions"]


def test_a_recorder_records_every_request_by_default(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "r.jsonl", rng=FixedRandom(0.999))  # type: ignore[arg-type]
    assert recorder.rate == 1.0
    recorder.observe(CHAT)
    assert len(_lines(tmp_path / "r.jsonl")) == 1


@pytest.mark.parametrize("rate", [0.0, 0.5])
def test_a_draw_equal_to_the_rate_is_not_recorded(tmp_path: Path, rate: float) -> None:
    recorder = Recorder(tmp_path / "r.jsonl", rate, rng=FixedRandom(rate))  # type: ignore[arg-type]
    recorder.observe(CHAT)
    assert not (tmp_path / "r.jsonl").exists()


def test_custom_ids_are_a_per_recorder_prefix_and_a_count_from_one(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "r.jsonl")
    for _ in range(3):
        recorder.observe(CHAT)
    ids = [line["custom_id"] for line in _lines(tmp_path / "r.jsonl")]
    prefix = re.fullmatch(r"(rec-[0-9a-f]{8}-)1", ids[0])
    assert prefix is not None
    assert ids == [f"{prefix.group(1)}{n}" for n in (1, 2, 3)]


def test_a_line_is_compact_json_keeping_utf8_text_and_writing_unknown_values_as_strings(
    tmp_path: Path,
) -> None:
    sink = JsonlSink(tmp_path / "s.jsonl", 5)
    when = datetime.date(2026, 1, 2)
    assert sink.write({"a": [1, 2], "b": "café", "c": when}) is True
    assert (tmp_path / "s.jsonl").read_bytes() == '{"a":[1,2],"b":"café","c":"2026-01-02"}\n'.encode()
    assert sink.written == 1


def test_the_sink_stops_at_its_limit_and_a_zero_limit_writes_nothing(tmp_path: Path) -> None:
    sink = JsonlSink(tmp_path / "s.jsonl", 1)
    assert sink.write({"n": 1}) is True
    assert sink.write({"n": 2}) is False
    assert _lines(tmp_path / "s.jsonl") == [{"n": 1}]
    empty = JsonlSink(tmp_path / "e.jsonl", 0)
    assert empty.write({"n": 1}) is False
    assert not (tmp_path / "e.jsonl").exists()


def test_a_negative_limit_is_refused_with_its_value() -> None:
    with pytest.raises(ValueError, match="the line limit must not be negative, got -1"):
        JsonlSink("unused.jsonl", -1)


def test_the_file_is_created_readable_by_all_and_writable_by_its_owner_only(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        JsonlSink(tmp_path / "s.jsonl", 1).write({"n": 1})
    finally:
        os.umask(old)
    assert (tmp_path / "s.jsonl").stat().st_mode & 0o777 == 0o644


def test_a_failed_write_raises_its_error_even_when_cutting_back_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*_: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", fail)
    monkeypatch.setattr(os, "ftruncate", fail)
    with pytest.raises(OSError, match="No space left on device"):
        JsonlSink(tmp_path / "s.jsonl", 1).write({"n": 1})


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), "No space left on device"),
        (OSError("no strerror"), "OSError"),
        (RuntimeError("boom"), "RuntimeError"),
    ],
    ids=["oserror", "oserror-without-strerror", "other-error"],
)
def test_a_failed_write_stops_recording_with_its_reason_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception, reason: str
) -> None:
    recorder = Recorder(tmp_path / "r.jsonl")
    calls: list[object] = []

    def fail(record: object) -> bool:
        calls.append(record)
        raise error

    monkeypatch.setattr(recorder._sink, "write", fail)
    tracker = Tracker()
    recorder.observe(CHAT, tracker)  # type: ignore[arg-type]
    recorder.observe(CHAT, tracker)  # type: ignore[arg-type]
    expected = f"recording to {tmp_path / 'r.jsonl'} stopped: {reason}"
    assert recorder.stopped == expected
    assert tracker.warnings == [expected]
    assert len(calls) == 1
