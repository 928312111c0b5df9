"""Batch input: parse and validate OpenAI Batch API input lines, lazily, in bounded memory.

The whole file is validated before anything is sent (bad JSON, unsupported URL, missing fields,
duplicate ``custom_id``), then read again lazily to send. Sets of ``custom_id`` (for duplicates and
for resume) are held as sorted arrays of 64-bit digests -- 8 bytes an id instead of ~90 for a Python
string in a set -- so a 100,000-line batch costs under a megabyte. Duplicates found by digest are
confirmed on the real strings; a resume skip trusts the digest (a false match has odds of about
``ids in input x ids in output / 2**64``: below one in a billion for a million-line batch).
"""

from __future__ import annotations

import hashlib
import heapq
import json
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._types import CHAT_COMPLETIONS_URL, BatchRequest

_ACCEPTED_URLS = (CHAT_COMPLETIONS_URL,)
_SORT_CHUNK = 16384


class InputLineError(ValueError):
    """One input line is not a valid batch request."""


def digest(custom_id: str) -> int:
    return int.from_bytes(hashlib.blake2b(custom_id.encode(), digest_size=8).digest(), "little")


def _sorted_array(values: array[int]) -> array[int]:
    """Sort an array of digests without materialising it as one list of Python ints."""
    chunks = [array("Q", sorted(values[i : i + _SORT_CHUNK])) for i in range(0, len(values), _SORT_CHUNK)]
    return array("Q", heapq.merge(*chunks))


class IdSet:
    """A compact, immutable set of ``custom_id`` values (by 64-bit digest)."""

    def __init__(self, digests: Iterable[int] = ()) -> None:
        self._digests = _sorted_array(array("Q", digests))

    def __len__(self) -> int:
        return len(self._digests)

    def __contains__(self, custom_id: object) -> bool:
        if not isinstance(custom_id, str):
            return False
        value = digest(custom_id)
        index = bisect_left(self._digests, value)
        return index < len(self._digests) and self._digests[index] == value


def _check_body(body: Any, default_model: str | None) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise InputLineError("field 'body' must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise InputLineError("field 'body.messages' must be a non-empty list")
    if not all(isinstance(message, dict) for message in messages):
        raise InputLineError("field 'body.messages' must be a list of objects")
    if body.get("stream"):
        raise InputLineError("field 'body.stream' is not supported in a batch")
    model = body.get("model")
    if model is None and default_model:
        return {**body, "model": default_model}
    elif not isinstance(model, str) or not model:
        raise InputLineError("field 'body.model' is missing (give it in each line or with --model)")
    checked: dict[str, Any] = body
    return checked


def parse_line(text: str | bytes, line_number: int, default_model: str | None = None) -> BatchRequest:
    """Parse one input line: a Batch API request, or a bare chat request body (``custom_id`` = line number).

    Raises:
        InputLineError: naming the field at fault.
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputLineError(f"not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InputLineError("expected a JSON object")
    if not any(key in data for key in ("custom_id", "body", "url", "method")):
        return BatchRequest(str(line_number), _check_body(data, default_model))
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        raise InputLineError("field 'custom_id' must be a non-empty string")
    method = data.get("method", "POST")
    if method != "POST":
        raise InputLineError(f"field 'method' must be \"POST\", got {method!r}")
    url = data.get("url", CHAT_COMPLETIONS_URL)
    if url not in _ACCEPTED_URLS:
        raise InputLineError(f"unsupported url {url!r} (supported: {', '.join(_ACCEPTED_URLS)})")
    if "body" not in data:
        raise InputLineError("field 'body' is missing")
    return BatchRequest(custom_id, _check_body(data["body"], default_model), url)


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    with path.open("rb") as file:
        for number, raw in enumerate(file, 1):
            if raw.strip():
                yield number, raw


@dataclass
class InputReport:
    """What a validation pass found.

    Attributes:
        requests: valid requests.
        problems: ``(line, message)``, at most ``max_problems`` of them (``problem_count`` counts all).
        models: requests per model.
    """

    requests: int = 0
    problems: list[tuple[int, str]] = field(default_factory=list)
    problem_count: int = 0
    models: dict[str, int] = field(default_factory=dict)

    def add_problem(self, line: int, message: str, limit: int) -> None:
        self.problem_count += 1
        if len(self.problems) < limit:
            self.problems.append((line, message))


def validate_input(
    path: Path,
    default_model: str | None = None,
    *,
    max_problems: int = 20,
    on_request: Any = None,
) -> InputReport:
    """Validate every line of ``path`` (one pass, plus one more only if duplicates are suspected).

    Args:
        on_request: called with each valid :class:`BatchRequest` (the dry run's cost estimate).
    """
    report = InputReport()
    digests: array[int] = array("Q")
    for number, raw in _lines(path):
        try:
            request = parse_line(raw, number, default_model)
        except InputLineError as exc:
            report.add_problem(number, str(exc), max_problems)
            continue
        report.requests += 1
        model = str(request.body.get("model"))
        report.models[model] = report.models.get(model, 0) + 1
        digests.append(digest(request.custom_id))
        if on_request is not None:
            on_request(request)
    ordered = _sorted_array(digests)
    del digests
    suspects = {ordered[i] for i in range(1, len(ordered)) if ordered[i] == ordered[i - 1]}
    del ordered
    if suspects:
        _report_duplicates(path, default_model, suspects, report, max_problems)
    report.problems.sort()
    return report


def _report_duplicates(
    path: Path, default_model: str | None, suspects: set[int], report: InputReport, limit: int
) -> None:
    first_line: dict[str, int] = {}
    for number, raw in _lines(path):
        try:
            request = parse_line(raw, number, default_model)
        except InputLineError:
            continue
        if digest(request.custom_id) not in suspects:
            continue
        first = first_line.setdefault(request.custom_id, number)
        if first != number:
            report.add_problem(
                number, f"duplicate custom_id {request.custom_id!r} (first on line {first})", limit
            )


def iter_requests(
    path: Path, default_model: str | None = None, skip: IdSet | None = None
) -> Iterator[BatchRequest]:
    """The requests of a validated input, read lazily, leaving out those whose ``custom_id`` is in ``skip``."""
    for number, raw in _lines(path):
        request = parse_line(raw, number, default_model)
        if skip is None or request.custom_id not in skip:
            yield request


def body_model(body: Mapping[str, Any]) -> str:
    return str(body.get("model") or "unknown")
