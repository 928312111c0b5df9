"""Bad input for ``holyclient batch --shard/--limiter/--workers/--window`` and ``holyclient batch merge``:
one clear line, exit 2 (1 for a merge that finds missing, duplicate or foreign ids), nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bad_input.table import Row, check_row
from holyclient.batch._types import request_fingerprint

KEY_ENV = {"HOLYSHEEP_API_KEY": "sk-holy-bad-input-rows", "HOLYSHEEP_BASE_URL": None}
RUN = ("batch", "in.jsonl", "-o", "out.jsonl")


def _line(custom_id: str) -> str:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
    return (
        json.dumps({"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body})
        + "\n"
    )


def _result(custom_id: str, id: str = "x", response: Any = None) -> str:
    response = {"status_code": 200, "body": {}} if response is None else response
    return json.dumps({"id": id, "custom_id": custom_id, "response": response, "error": None}) + "\n"


def _made_from(prompt: str) -> str:
    """An output line ``id`` as holyclient writes it, carrying the fingerprint of a request with ``prompt``."""
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": prompt}]}
    return f"batch_req_{request_fingerprint(body)}_{'0' * 12}"


INPUT = _line("a") + _line("b") + _line("c")


def row(id: str, stderr: str, argv: tuple[str, ...], exit: int = 2, **extra: Any) -> Row:
    files = {"in.jsonl": INPUT, **extra.pop("files", {})}
    return Row(id, argv, stderr, exit=exit, files=files, env={**KEY_ENV, **extra.pop("env", {})}, **extra)


MERGE = ("batch", "merge", "in.jsonl")

ROWS = [
    row("shard-not-k-of-n", r"holyclient batch: --shard must be K/N", (*RUN, "--shard", "2")),
    row("shard-k-not-below-n", r"holyclient batch: --shard 4/4: K must be below N", (*RUN, "--shard", "4/4")),
    row("shard-zero-shards", r"holyclient batch: --shard must be K/N", (*RUN, "--shard", "0/0")),
    row("shard-negative", r"holyclient batch: --shard must be K/N", (*RUN, "--shard=-1/4")),
    row("shard-non-ascii-count", r"holyclient batch: --shard must be K/N", (*RUN, "--shard", "0/²")),
    row("shard-non-ascii-index", r"holyclient batch: --shard must be K/N", (*RUN, "--shard", "¹/4")),
    row(
        "shard-auto-non-ascii-index",
        r"holyclient batch: --shard auto: JOB_COMPLETION_INDEX='²' is not a shard number",
        (*RUN, "--shard", "auto/4"),
        env={"JOB_COMPLETION_INDEX": "²"},
    ),
    row(
        "shard-auto-without-index",
        r"holyclient batch: --shard auto/N reads K from JOB_COMPLETION_INDEX",
        (*RUN, "--shard", "auto/4"),
        env={"JOB_COMPLETION_INDEX": None, "SLURM_ARRAY_TASK_ID": None},
    ),
    row(
        "shard-auto-bad-index",
        r"holyclient batch: --shard auto: JOB_COMPLETION_INDEX='x' is not a shard number",
        (*RUN, "--shard", "auto/4"),
        env={"JOB_COMPLETION_INDEX": "x"},
    ),
    row(
        "shard-auto-index-too-big",
        r"holyclient batch: --shard 7/4: K must be below N",
        (*RUN, "--shard", "auto/4"),
        env={"JOB_COMPLETION_INDEX": "7"},
    ),
    row(
        "limiter-http-url",
        r"holyclient batch: --limiter 'http://h:6379': expected redis://",
        (*RUN, "--limiter", "http://h:6379"),
    ),
    row(
        "limiter-no-host", r"holyclient batch: --limiter 'redis://': no host", (*RUN, "--limiter", "redis://")
    ),
    row(
        "limiter-bad-port",
        r"holyclient batch: --limiter 'redis://h:xx/0': not a URL",
        (*RUN, "--limiter", "redis://h:xx/0"),
    ),
    row(
        "limiter-bad-db",
        r"holyclient batch: --limiter 'redis://h:6379/abc': database must be a number",
        (*RUN, "--limiter", "redis://h:6379/abc"),
    ),
    row(
        "limiter-non-ascii-db",
        r"holyclient batch: --limiter 'redis://h:6379/²': database must be a number",
        (*RUN, "--limiter", "redis://h:6379/²"),
    ),
    row(
        "limiter-password-not-echoed",
        r"holyclient batch: --limiter 'redis://:\*\*\*@h:6379/x': database must be a number",
        (*RUN, "--limiter", "redis://:hunter2@h:6379/x"),
    ),
    row("zero-workers", r"usage: holyclient batch", (*RUN, "--workers", "0")),
    row("zero-window", r"usage: holyclient batch", (*RUN, "--window", "0")),
    row(
        "merge-missing-shard-ids",
        r"2 custom_ids of in.jsonl in no shard: 'b', 'c'",
        (*MERGE, "out.jsonl.shard-0-of-2", "-o", "out.jsonl"),
        exit=1,
        files={"out.jsonl.shard-0-of-2": _result("a")},
    ),
    row(
        "merge-duplicate-id",
        r"duplicate custom_id 'a': s0:1, s1:1",
        (*MERGE, "s0", "s1", "-o", "out.jsonl"),
        exit=1,
        files={"s0": _result("a") + _result("b"), "s1": _result("a") + _result("c")},
    ),
    row(
        "merge-foreign-id",
        r"s1:2: custom_id 'zzz' is not in in.jsonl",
        (*MERGE, "s0", "s1", "-o", "out.jsonl"),
        exit=1,
        files={"s0": _result("a") + _result("b"), "s1": _result("c") + _result("zzz")},
    ),
    row(
        "merge-shard-not-a-result",
        r"holyclient batch merge: s1:2: custom_id: not a batch result line",
        (*MERGE, "s0", "s1", "-o", "out.jsonl"),
        files={"s0": _result("a") + _result("b"), "s1": _result("c") + "{torn"},
    ),
    row(
        "merge-no-such-shard", r"holyclient batch merge: s9: no such file", (*MERGE, "s9", "-o", "out.jsonl")
    ),
    row(
        "merge-shard-twice",
        r"holyclient batch merge: s0: shard given twice",
        (*MERGE, "s0", "s0", "-o", "out.jsonl"),
        files={"s0": _result("a")},
    ),
    row(
        "merge-output-is-a-shard",
        r"holyclient batch merge: OUTPUT must not be INPUT or one of the shards",
        (*MERGE, "s0", "-o", "s0"),
        files={"s0": _result("a")},
    ),
    row(
        "merge-shard-made-from-an-earlier-input",
        r"s1:1: the result for custom_id 'c' was made from an earlier version of its request in in.jsonl",
        (*MERGE, "s0", "s1", "-o", "out.jsonl"),
        exit=1,
        files={
            "s0": _result("a", _made_from("hi")) + _result("b", _made_from("hi")),
            "s1": _result("c", _made_from("hello, before INPUT was edited")),
        },
    ),
    row(
        "merge-shard-response-not-an-object",
        r"holyclient batch merge: s1:1: response: must be an object or null",
        (*MERGE, "s0", "s1", "-o", "out.jsonl"),
        files={"s0": _result("a") + _result("b"), "s1": _result("c", response=[200])},
    ),
    row(
        "merge-shard-status-code-not-a-number",
        r"holyclient batch merge: s1:1: response.status_code: must be an integer",
        (*MERGE, "s0", "s1", "-o", "out.jsonl"),
        files={"s0": _result("a") + _result("b"), "s1": _result("c", response={"status_code": "200x"})},
    ),
    row("merge-without-output", r"usage: holyclient batch merge", (*MERGE, "s0"), files={"s0": _result("a")}),
]


@pytest.mark.parametrize("case", ROWS, ids=str)
def test_batch_scaleout_bad_input(
    case: Row, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    check_row(case, tmp_path, capsys, monkeypatch)
