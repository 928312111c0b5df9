"""Recognise a JSON document given where JSONL is expected, and say how to convert it.

A JSON array (``[{...}, {...}]``) or pretty-printed objects fed to ``holyclient batch`` would otherwise
be answered "line 1: not valid JSON" (or "expected a JSON object, got a list"), which does not tell a
newcomer that the format is one request per line. Only the first two non-blank lines are read.
"""

from __future__ import annotations

import shlex
from pathlib import Path


def not_jsonl(path: Path) -> str | None:
    """``FILE:LINE: ...`` saying the input is JSON rather than JSONL, with a ``jq`` line that fixes it."""
    try:
        with path.open("rb") as file:
            lines = [(number, raw) for number, raw in enumerate(file, 1) if raw.strip()][:2]
    except OSError:
        return None  # the reader reports it with its own wording
    if not lines:
        return None
    number, first = lines[0]
    head = first.removeprefix(b"\xef\xbb\xbf").strip()
    following = lines[1][1] if len(lines) > 1 else b""
    if head.startswith(b"["):
        what, program = "a JSON array", ".[]"
    elif head == b"{" and following[:1].isspace() and following.strip().startswith(b'"'):
        what, program = "pretty-printed JSON", "."
    else:
        return None
    target = path.with_suffix(".jsonl") if path.suffix != ".jsonl" else path.with_suffix(".lines.jsonl")
    fix = f"jq -c {shlex.quote(program)} {shlex.quote(str(path))} > {shlex.quote(str(target))}"
    return f"{path}:{number}: the input is {what}, but batch reads JSONL, one request per line; convert it: {fix}"
