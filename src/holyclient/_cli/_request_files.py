"""Read request bodies from the files ``holyclient estimate`` accepts, streaming, with exact error places.

Accepted, per file (``-`` is stdin):

* a JSON array of chat messages (one request);
* one chat request body (``{"model", "messages", ...}``) or embeddings body (``{"model", "input"}``),
  pretty-printed or not;
* JSONL: one body per line, or one OpenAI Batch API input line per line
  (``{"custom_id", "method", "url", "body"}``); blank lines are skipped.

JSONL is read line by line, so memory does not grow with the file. A file is JSONL when its first
non-blank line is a complete JSON object on its own.
"""

from __future__ import annotations

import codecs
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

from .._core import kind, messages_problem
from ._argtypes import MAX_TOKENS

#: Larger ``max_tokens`` / ``max_completion_tokens`` values are typos, not requests: no model writes
#: ten million tokens in one answer, and pricing them would print nonsense such as $8e17.
MAX_OUTPUT_TOKENS = MAX_TOKENS
#: The API's own limit on ``n``.
MAX_CHOICES = 128


class InputError(Exception):
    """Bad input; the message starts with ``file:line[:column]``."""


@dataclass(frozen=True)
class Request:
    source: str  # "file:line"
    custom_id: str | None
    body: dict[str, Any]


def read_requests(path: str, progress: Callable[[int], None] | None = None) -> Iterator[Request]:
    """Yield the requests of one file in order.

    Raises:
        InputError: unreadable file, invalid JSON or UTF-8, or an object of the wrong shape.
    """
    name = "<stdin>" if path == "-" else path
    if path != "-" and os.path.isdir(path):
        raise InputError(f"{name}: is a directory, not a file of requests")
    if path == "-" and sys.stdin is None:  # started with stdin closed (`<&-`)
        raise InputError(f"{name}: standard input is closed")
    try:
        stream: IO[bytes] | IO[str] = (
            getattr(sys.stdin, "buffer", sys.stdin) if path == "-" else open(path, "rb")  # noqa: SIM115
        )
    except OSError as exc:
        raise InputError(f"{name}: cannot open: {exc.strerror or exc}") from exc
    try:
        yield from _read(decoded_lines(stream, name), name, progress)
    finally:
        if path != "-":
            stream.close()


def decoded_lines(stream: IO[bytes] | IO[str], name: str) -> Iterator[str]:
    """The lines of a byte stream as text: a UTF-8 BOM at the start is dropped (Windows editors write
    one), and bytes that are not UTF-8 are reported with their line, which a text stream cannot do.

    Raises:
        InputError: ``name:LINE: not UTF-8 text``.
    """
    lines: Iterable[bytes | str] = stream
    for lineno, raw in enumerate(lines, 1):
        if isinstance(raw, str):  # a text stream handed in for stdin (tests, embedding programs)
            line = raw
        elif lineno == 1 and raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            raise InputError(
                f"{name}:1: not UTF-8 text (UTF-16, as Windows PowerShell's > writes it); save the file as UTF-8"
            )
        else:
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"{name}:{lineno}: not UTF-8 text ({exc.reason} at byte {exc.start + 1} of the line); "
                    "save the file as UTF-8"
                ) from None
        if lineno == 1:
            line = line.removeprefix("\ufeff")
        yield line


def file_size(path: str) -> int | None:
    if path == "-":
        return None
    try:
        return os.path.getsize(path)
    except OSError:
        return None


def _read(stream: Iterator[str], name: str, progress: Callable[[int], None] | None) -> Iterator[Request]:
    lineno = 0
    first = ""
    for line in stream:
        lineno += 1
        if line.strip():
            first = line
            break
    if not first:
        raise InputError(f"{name}: empty input (expected JSON or JSONL requests)")
    try:
        value = _loads(first, f"{name}:{lineno}")
        jsonl = isinstance(value, dict)
    except json.JSONDecodeError:
        jsonl = False
    if not jsonl:
        # One JSON document, possibly over many lines: read it whole (it is one request).
        text = first + "".join(stream)
        try:
            doc = _loads(text, f"{name}:{lineno}")
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{name}:{exc.lineno + lineno - 1}:{exc.colno}: invalid JSON: {exc.msg}"
            ) from exc
        yield from _document(doc, name, lineno)
        return
    yield _request(value, f"{name}:{lineno}")
    consumed = len(first)
    for line in stream:
        lineno += 1
        consumed += len(line)
        if not line.strip():
            continue
        try:
            value = _loads(line, f"{name}:{lineno}")
        except json.JSONDecodeError as exc:
            raise InputError(f"{name}:{lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
        yield _request(value, f"{name}:{lineno}")
        if progress is not None:
            progress(consumed)


def _loads(text: str, where: str) -> Any:
    """``json.loads``, with nesting too deep for the parser reported as bad input instead of a crash."""
    try:
        return json.loads(text)
    except RecursionError:
        raise InputError(f"{where}: invalid JSON: nested too deeply") from None


def _document(doc: Any, name: str, lineno: int) -> Iterator[Request]:
    where = f"{name}:{lineno}"
    if isinstance(doc, list):
        if doc and all(isinstance(m, Mapping) and "role" in m for m in doc):
            _check_messages(doc, where, "")
            yield Request(where, None, {"messages": doc})
            return
        if doc and all(isinstance(m, Mapping) and ("messages" in m or "body" in m) for m in doc):
            for i, item in enumerate(doc):
                yield _request(item, f"{where}[{i}]")
            return
        raise InputError(
            f"{where}: expected a JSON array of chat messages (objects with a 'role'), "
            "or an array of request bodies" + ("" if not doc else f"; item [{_first_bad(doc)}] is not one")
        )
    yield _request(doc, where)


def _first_bad(doc: list[Any]) -> int:
    return next((i for i, m in enumerate(doc) if not (isinstance(m, Mapping) and "role" in m)), 0)


def _request(value: Any, where: str) -> Request:
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected a JSON object, got {kind(value)}")
    custom_id = None
    body = value
    if "body" in value and ("custom_id" in value or "url" in value or "method" in value):
        body = value["body"]
        if not isinstance(body, dict):
            raise InputError(f"{where}: field 'body' must be an object, got {kind(body)}")
        cid = value.get("custom_id")
        custom_id = str(cid) if cid is not None else None
        url = value.get("url")
        if url is not None and not (
            isinstance(url, str) and url.rstrip("/").endswith(("/chat/completions", "/embeddings"))
        ):
            raise InputError(
                f"{where}: field 'url' is {url!r}; only /v1/chat/completions and /v1/embeddings can be estimated"
            )
        prefix = "body."
    else:
        prefix = ""
    if "messages" in body:
        _check_messages(body["messages"], where, prefix)
        for key in ("tools", "functions"):
            if key in body and body[key] is not None and not isinstance(body[key], list):
                raise InputError(f"{where}: field '{prefix}{key}' must be a list, got {kind(body[key])}")
        for key in ("max_tokens", "max_completion_tokens", "n"):
            v = body.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise InputError(f"{where}: field '{prefix}{key}' must be a non-negative integer, got {v!r}")
            limit = MAX_CHOICES if key == "n" else MAX_OUTPUT_TOKENS
            if isinstance(v, int) and v > limit:
                raise InputError(
                    f"{where}: field '{prefix}{key}' is {v:,}, more than the API allows ({limit:,})"
                )
    elif "input" not in body:
        raise InputError(
            f"{where}: expected a chat request (field '{prefix}messages'), an embeddings request "
            f"(field '{prefix}input') or an OpenAI Batch line (field 'body'); found "
            + (", ".join(repr(k) for k in list(body)[:8]) or "an empty object")
        )
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise InputError(f"{where}: field '{prefix}model' must be a string, got {kind(model)}")
    return Request(where, custom_id, body)


def _check_messages(messages: Any, where: str, prefix: str) -> None:
    """The batch reader's check (:mod:`holyclient._core._message_checks`), an empty list allowed: estimating a
    request's overhead alone is harmless."""
    if (problem := messages_problem(messages, prefix, allow_empty=True)) is not None:
        raise InputError(f"{where}: {problem}")
