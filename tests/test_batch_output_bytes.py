"""An output line is the answer's bytes as they came, between the line's other fields (issue 43, item 4:
the fast path does not parse and encode each answer twice), and reads back as the same result as the
line encoded from the parsed body: checked on generated answers, spelled every way a server may."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from holyclient.batch import BatchResult, OutputWriter

ID = re.compile(r"batch_req_(?:[0-9a-f]{12}_[0-9a-f]{12}|[0-9a-f]{24})")


def _value(rng: random.Random, depth: int = 0) -> Any:
    kinds = ["int", "float", "str", "bool", "null"] + (["list", "dict"] if depth < 3 else [])
    kind = rng.choice(kinds)
    if kind == "int":
        return rng.randint(-(10**12), 10**12)
    if kind == "float":
        return rng.choice([rng.uniform(-1, 1), rng.uniform(-1e-5, 1e-5), 1e300 * rng.random(), 0.1])
    if kind == "str":
        alphabet = 'ab "\\/\t\n\x00é中😀\u2028'
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "list":
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f"k{i}{_value(rng, 3)!s:.3}": _value(rng, depth + 1) for i in range(rng.randint(0, 4))}


def _spelled(rng: random.Random, body: dict[str, Any]) -> bytes:
    """``body`` as a server may send it: compact or spaced, escaped or raw UTF-8, with a trailing newline."""
    text = json.dumps(
        body,
        ensure_ascii=rng.random() < 0.5,
        separators=rng.choice([(",", ":"), (", ", ": ")]),
        indent=None,
    )
    return (rng.choice(["", " ", "\t"]) + text + rng.choice(["", "\n", "\r\n", " "])).encode()


def _read(result: BatchResult, content: bytes) -> BatchResult:
    result.keep_answer(content)
    return result


def _without_id(line: dict[str, Any]) -> dict[str, Any]:
    assert ID.fullmatch(line["id"]), line["id"]
    return {key: value for key, value in line.items() if key != "id"}


@pytest.mark.parametrize("seed", range(40))
def test_a_line_written_from_the_answers_bytes_reads_back_as_the_line_encoded_from_its_body(
    seed: int,
) -> None:
    rng = random.Random(seed)
    body = {"object": "list", "data": [_value(rng) for _ in range(rng.randint(0, 3))], "extra": _value(rng)}
    content = _spelled(rng, body)
    custom_id = "".join(rng.choice('r1 "\\é\n') for _ in range(rng.randint(1, 6)))
    result = _read(
        BatchResult(
            custom_id,
            200,
            rng.choice([None, "req_1", 'req "2"']),
            json.loads(content),
            fingerprint=rng.choice([None, "0123456789ab"]),
        ),
        content,
    )
    written = result.output_bytes()
    assert written.endswith(b"\n") and written.count(b"\n") == 1  # one JSONL line
    assert _without_id(json.loads(written)) == _without_id(result.output_line())
    assert content.strip() in written  # the answer as it came, not encoded again


@pytest.mark.parametrize(
    "content",
    [
        b'{\n  "object": "list",\n  "data": []\n}',  # pretty-printed: it would span lines
        b'{"object":"list",\r"data":[]}',
        '{"object": "list", "data": []}'.encode("utf-16-le"),  # not UTF-8
    ],
    ids=["newlines", "carriage-return", "utf-16"],
)
def test_an_answer_that_cannot_sit_on_one_line_as_it_came_is_encoded_again(content: bytes) -> None:
    result = _read(BatchResult("r1", 200, "req_1", {"object": "list", "data": []}), content)
    written = result.output_bytes()
    assert written.count(b"\n") == 1 and content not in written
    assert _without_id(json.loads(written)) == _without_id(result.output_line())


def test_a_body_replaced_after_the_answer_was_read_is_the_one_written() -> None:
    content = b'{"object":"list","data":[{"embedding":[0.5]}]}'
    result = _read(BatchResult("r1", 200, "req_1", json.loads(content)), content)
    result.body = {"object": "list", "data": []}
    assert json.loads(result.output_bytes())["response"]["body"] == {"object": "list", "data": []}
    # a result made from it with another body (a packed request's lines) does not carry its answer
    part = replace(result, custom_id="r2", body={"object": "list", "data": [1]})
    assert json.loads(part.output_bytes())["response"]["body"] == {"object": "list", "data": [1]}


def test_failures_and_results_without_an_answer_read_are_encoded_from_their_fields(tmp_path: Path) -> None:
    results = [
        BatchResult("r1", error={"code": "timeout", "message": "Request timed out"}),
        _read(BatchResult("r2", 500, "req_2", {"error": {"message": "boom"}}, error=None), b'{"x":1}'),
        BatchResult("r3", 200, None, {"object": "list", "data": []}),
    ]
    results[1].body = {
        "error": {"message": "boom"}
    }  # a refusal's body is the redacted parse, never its bytes
    with OutputWriter(tmp_path / "out.jsonl") as writer:
        for result in results:
            writer.write(result)
    lines = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [_without_id(line) for line in lines] == [_without_id(r.output_line()) for r in results]
