"""What ``holyclient calibrate`` reads: requests by ``custom_id``, and what the relay billed for each.

Billed counts come from a ``holyclient batch`` output file (OpenAI Batch API output lines: ``custom_id``
and ``response.body.usage.prompt_tokens``) or a ``holyclient compare --json`` report (``requests[i]``
with ``custom_id`` and each side's ``prompt_tokens``; the side's model is the report's, or the request's).
A result that does not belong to its input -- an unknown ``custom_id``, or another model than the one
asked for -- is refused with the file, line and field: calibrating on the wrong pair of files would
silently fit nonsense.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._request_files import InputError, read_requests


@dataclass(frozen=True)
class Billed:
    """One billed request: where its bill was read, its ``custom_id``, model and billed prompt tokens."""

    source: str
    custom_id: str
    model: str | None
    prompt_tokens: int


def read_inputs(path: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """``custom_id -> (source, body)`` of an input file.

    Raises:
        InputError: a request without a ``custom_id``, or one that appears twice.
    """
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for request in read_requests(path):
        if request.custom_id is None:
            raise InputError(
                f"{request.source}: custom_id: missing; calibrate pairs requests with their results by "
                "custom_id (use a batch input file)"
            )
        if request.custom_id in out:
            raise InputError(
                f"{request.source}: custom_id: {request.custom_id!r} appears twice "
                f"(first at {out[request.custom_id][0]})"
            )
        out[request.custom_id] = (request.source, request.body)
    return out


def read_billed(path: str) -> Iterator[Billed]:
    """The billed results of a batch output file or a compare report (failed results are skipped).

    Raises:
        InputError: unreadable file, invalid JSON, or a field of the wrong shape.
    """
    try:
        text = Path(path).read_text("utf-8-sig")
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file of results") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot open: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        at = Path(path).read_bytes()[: exc.start].count(b"\n") + 1
        raise InputError(f"{path}:{at}: not UTF-8 text") from None
    if not text.strip():
        raise InputError(f"{path}: empty file: expected batch output lines or a compare report")
    report = _compare_report(text)
    if report is not None:
        yield from _from_report(path, report)
        return
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}:{exc.colno}: invalid JSON: {exc.msg}") from None
        billed = _from_output_line(value, f"{path}:{number}")
        if billed is not None:
            yield billed


def _compare_report(text: str) -> dict[str, Any] | None:
    if not text.lstrip().startswith("{") or "\n{" in text.strip():
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    if isinstance(value, dict) and isinstance(value.get("requests"), list) and "new" in value:
        return value
    return None


def _from_output_line(value: Any, where: str) -> Billed | None:
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected a batch output line (a JSON object)")
    custom_id = value.get("custom_id")
    if not isinstance(custom_id, str):
        raise InputError(f"{where}: custom_id: missing; expected a holyclient batch output line")
    response = value.get("response")
    if value.get("error") is not None or not isinstance(response, dict):
        return None
    status = response.get("status_code")
    body = response.get("body")
    if not (isinstance(status, int) and 200 <= status < 300) or not isinstance(body, dict):
        return None
    usage = body.get("usage")
    if usage is None:
        return None
    prompt = usage.get("prompt_tokens", usage.get("input_tokens")) if isinstance(usage, dict) else None
    if isinstance(prompt, bool) or not isinstance(prompt, int) or prompt < 0:
        raise InputError(
            f"{where}: response.body.usage.prompt_tokens: expected a non-negative integer, got {prompt!r}"
        )
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise InputError(f"{where}: response.body.model: expected a string, got {model!r}")
    return Billed(where, custom_id, model, prompt)


def _from_report(path: str, report: dict[str, Any]) -> Iterator[Billed]:
    for i, item in enumerate(report["requests"]):
        where = f"{path}:1: requests[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("custom_id"), str):
            raise InputError(f"{where}.custom_id: missing; expected a holyclient compare --json report")
        for side in ("old", "new"):
            result = item.get(side)
            if not isinstance(result, dict) or result.get("error") is not None:
                continue
            prompt = result.get("prompt_tokens")
            if prompt is None:
                continue
            if isinstance(prompt, bool) or not isinstance(prompt, int) or prompt < 0:
                raise InputError(
                    f"{where}.{side}.prompt_tokens: expected a non-negative integer, got {prompt!r}"
                )
            endpoint = report.get(side)
            model = endpoint.get("model") if isinstance(endpoint, dict) else None
            yield Billed(
                f"{where}.{side}", item["custom_id"], model if isinstance(model, str) else None, prompt
            )
