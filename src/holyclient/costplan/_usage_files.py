"""Usage exports in, :class:`UsageRow` rows out.

Three shapes are read:

* pages of the OpenAI Usage API (``GET /v1/organization/usage/completions`` and ``.../embeddings``,
  ``group_by=model``, ``bucket_width=1d``): ``{"object": "page", "data": [bucket...]}`` where each bucket
  has ``start_time``, ``end_time`` and ``results`` carrying ``input_tokens``, ``input_cached_tokens``,
  ``output_tokens``, ``num_model_requests`` and ``model``. A file may hold one page, a JSON array of
  pages, or one page per line (JSONL). holyclient's own export (:func:`usage_export`) is such a page,
  whose results also carry the prompt-cache writes (``input_cache_write_tokens``, of which
  ``input_cache_write_long_tokens`` at the long retention);
* a CSV with the header ``date,model,requests,input_tokens,cached_input_tokens,output_tokens``.

Errors name the file and the bucket (or CSV line), so a malformed export can be found and fixed.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._exceptions import HolyClientError

CSV_HEADER = ("date", "model", "requests", "input_tokens", "cached_input_tokens", "output_tokens")
#: Result objects with token counts; other usage kinds (images, moderations, ...) are skipped.
TOKEN_RESULTS = ("organization.usage.completions.result", "organization.usage.embeddings.result")
#: The name used for results of an export not grouped by model (``model`` is null).
UNGROUPED = "(no model: export not grouped by model)"
DAY = 86_400


class UsageFileError(HolyClientError, ValueError):
    """A usage export cannot be read; the message names the file and the bucket or line."""


@dataclass(frozen=True)
class UsageRow:
    """One model's usage over one bucket (usually a day). ``input_tokens`` includes the cached ones
    (reads) and the ones written to the prompt cache (``cache_write_input_tokens``, of which
    ``cache_write_long_input_tokens`` at the long retention: holyclient's export carries them)."""

    start: int  # epoch seconds, UTC
    end: int
    model: str
    requests: int
    input_tokens: int
    cached_input_tokens: int
    output_tokens: int
    cache_write_input_tokens: int = 0
    cache_write_long_input_tokens: int = 0


@dataclass
class Workload:
    """Rows read from one or more files, and the period they cover."""

    rows: list[UsageRow] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # result object -> count (not token usage)
    batch_results: int = 0  # results with "batch": true (OpenAI bills the Batch API at half price)

    @property
    def start(self) -> int:
        return min(r.start for r in self.rows)

    @property
    def end(self) -> int:
        return max(r.end for r in self.rows)

    @property
    def days(self) -> float:
        """Length of the period covered, in days (first bucket's start to last bucket's end)."""
        return (self.end - self.start) / DAY


def _day(epoch: int) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d")


def read_usage_files(paths: Iterable[str]) -> Workload:
    """Read every file into one workload.

    Raises:
        UsageFileError: a file is missing, empty or malformed (the message names file and bucket/line).
    """
    workload = Workload()
    for path in paths:
        _read_one(path, workload)
    if not workload.rows:
        raise UsageFileError(
            f"{', '.join(paths)}: no token usage found (no completions or embeddings results)"
        )
    return workload


def _read_one(path: str, workload: Workload) -> None:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UsageFileError(f"{path}: cannot open: No such file") from None
    except IsADirectoryError:
        raise UsageFileError(f"{path}: is a directory") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageFileError(f"{path}: cannot read: {exc}") from None
    stripped = text.strip()
    if not stripped:
        raise UsageFileError(f"{path}: empty file")
    if stripped[0] not in "[{":
        _read_csv(path, text, workload)
        return
    try:
        doc = json.loads(stripped)
    except RecursionError:
        raise UsageFileError(f"{path}: not JSON: nested too deeply") from None
    except json.JSONDecodeError as exc:
        lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        if len(lines) < 2:  # one document, broken: say where
            raise UsageFileError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from None
        pages, where = _jsonl(path, lines)
    else:
        pages = doc if isinstance(doc, list) else [doc]
        where = [f"page {i + 1}" for i in range(len(pages))]
    for page, place in zip(pages, where, strict=True):
        _read_page(path, place, page, workload)


def _jsonl(path: str, lines: list[tuple[int, str]]) -> tuple[list[Any], list[str]]:
    pages, where = [], []
    for number, line in lines:
        try:
            pages.append(json.loads(line))
        except RecursionError:
            raise UsageFileError(f"{path}:{number}: not JSON: nested too deeply") from None
        except json.JSONDecodeError as exc:
            raise UsageFileError(f"{path}:{number}: not JSON: {exc.msg}") from None
        where.append(f"line {number}")
    return pages, where


def _read_page(path: str, place: str, page: Any, workload: Workload) -> None:
    if isinstance(page, Mapping) and "models" in page and "total_cost_usd" in page:
        raise UsageFileError(
            f"{path}: {place}: a usage snapshot (client.usage.totals()) has no period; "
            "save client.usage.export() instead"
        )
    if not isinstance(page, Mapping) or not isinstance(page.get("data"), list):
        raise UsageFileError(
            f'{path}: {place}: expected a usage page {{"object": "page", "data": [buckets]}}'
        )
    for index, bucket in enumerate(page["data"]):
        label = f"{path}: {place}, bucket {index}"
        if not isinstance(bucket, Mapping):
            raise UsageFileError(f"{label}: expected an object with start_time, end_time, results")
        start, end = bucket.get("start_time"), bucket.get("end_time")
        for name, value in (("start_time", start), ("end_time", end)):
            if not _count(value):
                raise UsageFileError(f"{label}: field {name}: expected epoch seconds, got {value!r}")
        assert isinstance(start, int) and isinstance(end, int)
        label += f" ({_day(start)})"
        if end <= start:
            raise UsageFileError(f"{label}: field end_time: {end} is not after start_time {start}")
        results = bucket.get("results")
        if not isinstance(results, list):
            raise UsageFileError(f"{label}: field results: expected a list, got {type(results).__name__}")
        for i, result in enumerate(results):
            row = _result(f"{label}: results[{i}]", result, start, end, workload)
            if row is not None:
                workload.rows.append(row)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _result(label: str, result: Any, start: int, end: int, workload: Workload) -> UsageRow | None:
    if not isinstance(result, Mapping):
        raise UsageFileError(f"{label}: expected an object")
    kind = result.get("object")
    if kind not in TOKEN_RESULTS:
        workload.skipped[str(kind)] = workload.skipped.get(str(kind), 0) + 1
        return None
    numbers: dict[str, int] = {}
    for name in _RESULT_FIELDS:
        value = result.get(name, None if name in ("input_tokens", "num_model_requests") else 0)
        if value is None and name not in ("input_tokens", "num_model_requests"):
            value = 0
        if not _count(value):
            raise UsageFileError(f"{label}: field {name}: expected a whole number >= 0, got {value!r}")
        numbers[name] = value
    if numbers["input_cached_tokens"] > numbers["input_tokens"]:
        raise UsageFileError(
            f"{label}: field input_cached_tokens: {numbers['input_cached_tokens']} exceeds "
            f"input_tokens {numbers['input_tokens']}"
        )
    written = numbers["input_cache_write_tokens"]
    if numbers["input_cached_tokens"] + written > numbers["input_tokens"]:
        raise UsageFileError(
            f"{label}: field input_cache_write_tokens: {written} written and "
            f"{numbers['input_cached_tokens']} cached exceed input_tokens {numbers['input_tokens']}"
        )
    if numbers["input_cache_write_long_tokens"] > written:
        raise UsageFileError(
            f"{label}: field input_cache_write_long_tokens: {numbers['input_cache_write_long_tokens']} "
            f"exceeds input_cache_write_tokens {written}"
        )
    if result.get("batch") is True:
        workload.batch_results += 1
    model = result.get("model")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise UsageFileError(f"{label}: field model: expected a model name or null, got {model!r}")
    return UsageRow(
        start,
        end,
        model or UNGROUPED,
        numbers["num_model_requests"],
        numbers["input_tokens"],
        numbers["input_cached_tokens"],
        numbers["output_tokens"],
        written,
        numbers["input_cache_write_long_tokens"],
    )


#: The token fields of a completions or embeddings result (the last two are holyclient's own export's).
_RESULT_FIELDS = (
    "input_tokens",
    "num_model_requests",
    "input_cached_tokens",
    "output_tokens",
    "input_cache_write_tokens",
    "input_cache_write_long_tokens",
)


def _read_csv(path: str, text: str, workload: Workload) -> None:
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None or tuple(h.strip().lower() for h in header) != CSV_HEADER:
        raise UsageFileError(
            f"{path}:1: header: expected {','.join(CSV_HEADER)}, got {','.join(header or [])}"
        )
    for row in reader:
        number = reader.line_num
        if not row or not "".join(row).strip():
            continue
        if len(row) != len(CSV_HEADER):
            raise UsageFileError(f"{path}:{number}: expected {len(CSV_HEADER)} fields, got {len(row)}")
        try:
            day = dt.datetime.strptime(row[0].strip(), "%Y-%m-%d").replace(tzinfo=dt.UTC)
        except ValueError:
            raise UsageFileError(
                f"{path}:{number}: field date: expected YYYY-MM-DD, got {row[0]!r}"
            ) from None
        model = row[1].strip()
        if not model:
            raise UsageFileError(f"{path}:{number}: field model: empty")
        values: list[int] = []
        for name, cell in zip(CSV_HEADER[2:], row[2:], strict=True):
            cell = cell.strip().replace("_", "")
            if not (cell.isascii() and cell.isdigit()):  # '1²' and '١٢' pass isdigit() alone
                raise UsageFileError(
                    f"{path}:{number}: field {name}: expected a whole number >= 0, got {cell!r}"
                )
            values.append(int(cell))
        requests, inputs, cached, outputs = values
        if cached > inputs:
            raise UsageFileError(
                f"{path}:{number}: field cached_input_tokens: {cached} exceeds input_tokens {inputs}"
            )
        start = int(day.timestamp())
        workload.rows.append(UsageRow(start, start + DAY, model, requests, inputs, cached, outputs))
