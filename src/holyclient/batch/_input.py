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
import math
import threading
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._constants import ACCEPTED_URLS, CHAT_COMPLETIONS_URL
from .._core import kind
from ._bodies import InputLineError, check_body, with_default_model
from ._types import BatchRequest, request_fingerprint

__all__ = [
    "IdSet",
    "InputLineError",
    "InputReport",
    "input_versions",
    "iter_requests",
    "parse_line",
    "validate_input",
]

_SORT_CHUNK = 16384


def version_key(custom_id: str, fingerprint: str | None) -> str:
    """One request as sent: its ``custom_id`` and its body's fingerprint (a changed body, a new key)."""
    return f"{custom_id}\x00{fingerprint}"


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

    @classmethod
    def from_sorted(cls, digests: array[int]) -> IdSet:
        ids = cls()
        ids._digests = digests
        return ids

    def __len__(self) -> int:
        return len(self._digests)

    def digest(self) -> str:
        """16 hex digits naming the whole set (equal sets, equal digests): which batch a shard lease is for."""
        return hashlib.blake2b(self._digests.tobytes(), digest_size=8).hexdigest()

    def __contains__(self, custom_id: object) -> bool:
        if not isinstance(custom_id, str) or not self._digests:
            return False
        value = digest(custom_id)
        index = bisect_left(self._digests, value)
        return index < len(self._digests) and self._digests[index] == value


class _Reader:
    """``json.loads`` noting the non-finite numbers a line holds, with one decoder per thread (the hooks
    given to ``json.loads`` made it build a decoder and its scanner for every line)."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self._decoder = json.JSONDecoder(parse_constant=self._constant, parse_float=self._number)

    def _constant(self, name: str) -> float:
        self.seen.append(name)
        return float(name)

    def _number(self, text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            self.seen.append(text)
        return value

    def loads(self, text: str | bytes) -> Any:
        """``json.loads(text)``; :attr:`seen` then holds this line's non-finite numbers."""
        self.seen.clear()
        if isinstance(text, str):
            if text.startswith("\ufeff"):  # as json.loads refuses it
                raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        else:
            text = text.decode(json.detect_encoding(text), "surrogatepass")
        return self._decoder.decode(text)


_READERS = threading.local()


def parse_line(
    text: str | bytes, line_number: int, default_model: str | None = None, *, position: int | None = None
) -> BatchRequest:
    """Parse one input line: a Batch API request, or a bare chat request body.

    A bare body's ``custom_id`` is its ``position`` among the input's non-blank lines (so a blank line
    inserted before resuming does not shift every id); ``line_number`` when no position is given.

    Raises:
        InputLineError: naming the field at fault.
    """
    return _parse(text, line_number, default_model, position)[0]


def _parse(
    text: str | bytes, line_number: int, default_model: str | None, position: int | None
) -> tuple[BatchRequest, str]:
    """The request, and the prefix that names its body's fields in messages (``"body."`` or ``""``)."""
    if isinstance(text, bytes) and text.startswith(b"\xef\xbb\xbf"):
        text = text[3:]  # a UTF-8 BOM (Windows editors write one)
    reader = getattr(_READERS, "reader", None)
    if reader is None:
        reader = _READERS.reader = _Reader()
    seen = reader.seen  # non-finite numbers the parser met (NaN, Infinity, 1e309)
    try:
        data = reader.loads(text)
    except UnicodeDecodeError as exc:
        raise InputLineError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except ValueError as exc:
        raise InputLineError(f"not valid JSON ({exc})") from None
    except RecursionError:
        raise InputLineError("not valid JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise InputLineError(f"expected a JSON object, got {kind(data)}")
    if not ("custom_id" in data or "body" in data or "url" in data or "method" in data):
        bare_id = str(position if position is not None else line_number)
        return BatchRequest(bare_id, check_body(data, default_model, "", bool(seen))), ""
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        raise InputLineError("field 'custom_id' must be a non-empty string")
    method = data.get("method", "POST")
    if method != "POST":
        raise InputLineError(f"field 'method' must be \"POST\", got {method!r}")
    url = data.get("url", CHAT_COMPLETIONS_URL)
    if url not in ACCEPTED_URLS:
        raise InputLineError(f"field 'url': unsupported url {url!r} (supported: {', '.join(ACCEPTED_URLS)})")
    if "body" not in data:
        raise InputLineError("field 'body' is missing")
    body = check_body(data["body"], default_model, "body.", bool(seen), url)
    return BatchRequest(custom_id, body, url), "body."


def _lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """``(line number, position among non-blank lines, line)`` of each non-blank line."""
    position = 0
    with path.open("rb") as file:
        for number, raw in enumerate(file, 1):
            if raw.strip():
                position += 1
                yield number, position, raw


@dataclass
class InputReport:
    """What a validation pass found.

    Attributes:
        requests: valid requests.
        problems: ``(line, message)``, at most ``max_problems`` of them (``problem_count`` counts all).
        models: requests per model.
        ids: the valid requests' ``custom_id`` values.
        versions: each valid request's ``custom_id`` with its body's fingerprint (:func:`version_key`);
            ``None`` when not collected.
    """

    requests: int = 0
    problems: list[tuple[int, str]] = field(default_factory=list)
    problem_count: int = 0
    models: dict[str, int] = field(default_factory=dict)
    ids: IdSet = field(default_factory=IdSet)
    versions: IdSet | None = field(default_factory=IdSet)

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
    check: Callable[[BatchRequest, str], None] | None = None,
    versions: bool = True,
) -> InputReport:
    """Validate every line of ``path`` (one pass, plus one more only if duplicates are suspected).

    Args:
        on_request: called with each valid :class:`BatchRequest` (the dry run's cost estimate).
        check: more checks of a parsed request (model known, prompt fits), called with the request and
            the prefix naming its body's fields (``"body."`` or ``""``); raises ``InputLineError``.
        versions: also collect :attr:`InputReport.versions` (``None`` otherwise): only a resume needs
            them, and fingerprinting every body costs as much as sending it on a fast endpoint
            (:func:`input_versions` collects them later, when a resume turns out to need them).
    """
    report = InputReport()
    digests: array[int] = array("Q")
    kept: array[int] | None = array("Q") if versions else None
    for number, position, raw in _lines(path):
        try:
            request, prefix = _parse(raw, number, default_model, position)
            if check is not None:
                check(request, prefix)
        except InputLineError as exc:
            report.add_problem(number, str(exc), max_problems)
            continue
        report.requests += 1
        model = str(request.body.get("model"))
        report.models[model] = report.models.get(model, 0) + 1
        digests.append(digest(request.custom_id))
        if kept is not None:
            kept.append(_version(request))
        if on_request is not None:
            on_request(request)
    ordered = _sorted_array(digests)
    del digests
    suspects = {ordered[i] for i in range(1, len(ordered)) if ordered[i] == ordered[i - 1]}
    report.ids = IdSet.from_sorted(ordered)
    report.versions = IdSet(kept) if kept is not None else None
    del kept
    if suspects:
        _report_duplicates(path, default_model, suspects, report, max_problems)
    report.problems.sort()
    return report


def _version(request: BatchRequest) -> int:
    return digest(version_key(request.custom_id, request_fingerprint(request.body)))


def input_versions(path: Path, default_model: str | None = None) -> IdSet:
    """The :attr:`InputReport.versions` of an input that passed :func:`validate_input`."""
    return IdSet(_version(request) for request in iter_requests(path, default_model, validated=True))


def _report_duplicates(
    path: Path, default_model: str | None, suspects: set[int], report: InputReport, limit: int
) -> None:
    first_line: dict[str, int] = {}
    for number, position, raw in _lines(path):
        try:
            request = parse_line(raw, number, default_model, position=position)
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
    path: Path, default_model: str | None = None, skip: IdSet | None = None, *, validated: bool = False
) -> Iterator[BatchRequest]:
    """The requests of an input, read lazily, leaving out those whose ``custom_id`` is in ``skip``.

    Args:
        validated: the file passed :func:`validate_input` (and has not changed since): read each line
            as it was accepted, without checking it again (the checks cost as much as the sending).
    """
    for number, position, raw in _lines(path):
        if validated:
            request = _trusted(raw, default_model, position)
        else:
            request = parse_line(raw, number, default_model, position=position)
        if skip is None or request.custom_id not in skip:
            yield request


def _trusted(raw: bytes, default_model: str | None, position: int) -> BatchRequest:
    """A line :func:`parse_line` accepted, read again: the same request, without the checks."""
    data = json.loads(raw.removeprefix(b"\xef\xbb\xbf"))
    if not ("custom_id" in data or "body" in data or "url" in data or "method" in data):
        return BatchRequest(str(position), with_default_model(data, default_model, CHAT_COMPLETIONS_URL))
    url = data.get("url", CHAT_COMPLETIONS_URL)
    return BatchRequest(data["custom_id"], with_default_model(data["body"], default_model, url), url)
