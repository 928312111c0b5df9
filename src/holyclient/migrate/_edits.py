"""Edits spliced into the original text: line bookkeeping, overlap checks and the char->byte mapping
that keeps everything outside an edit byte for byte (encoding, BOM, CRLF, tabs, trailing spaces)."""

from __future__ import annotations

import bisect
import itertools
from typing import AnyStr

Edit = tuple[int, int, AnyStr]  # replace [start, end) with the text; start == end inserts


class UnsafeEditError(ValueError):
    """Edits overlap or do not map back onto the original bytes; the file is skipped."""


class Lines:
    """Line starts of a text split at ``\\n`` only (as ``tokenize`` and ``git apply`` see lines)."""

    def __init__(self, s: str) -> None:
        self._s = s
        self.starts = [0]
        i = s.find("\n")
        while i >= 0:
            self.starts.append(i + 1)
            i = s.find("\n", i + 1)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def start(self, lineno: int) -> int:
        return self.starts[lineno - 1]

    def end(self, lineno: int) -> int:
        """Offset of the line break ending ``lineno`` (``\\r\\n`` or ``\\n``), or the end of the text."""
        if lineno < len(self.starts):
            stop = self.starts[lineno] - 1
            return stop - 1 if stop > self.starts[lineno - 1] and self._s[stop - 1] == "\r" else stop
        return len(self._s)


def newline_of(s: str) -> str:
    """The file's dominant line break, so inserted lines match it."""
    return "\r\n" if s.count("\r\n") * 2 > s.count("\n") else "\n"


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def check(edits: list[Edit[AnyStr]]) -> list[Edit[AnyStr]]:
    """Sort edits and refuse overlaps (insertions at one point keep the order they were made in)."""
    ordered = sorted(edits, key=lambda e: (e[0], e[1]))
    for (s1, e1, _), (s2, _e2, _) in itertools.pairwise(ordered):
        if s2 < e1 or (s1 < e1 and s2 == s1):
            raise UnsafeEditError(f"overlapping edits at offsets {s1} and {s2}")
    return ordered


def splice(s: AnyStr, edits: list[Edit[AnyStr]]) -> AnyStr:
    parts = []
    pos = 0
    for start, end, new in check(edits):
        parts.append(s[pos:start])
        parts.append(new)
        pos = end
    parts.append(s[pos:])
    return s[:0].join(parts)


def to_bytes(raw: bytes, skip: int, text: str, encoding: str, edits: list[Edit[str]]) -> list[Edit[bytes]]:
    """Map edits on ``text`` (``raw[skip:]`` decoded) to edits on ``raw``.

    Each untouched stretch is re-encoded and compared with the original bytes, so a codec that does
    not round-trip can never corrupt the file: we raise and the file is skipped instead.
    """
    out: list[Edit[bytes]] = []
    cpos, bpos = 0, skip
    for start, end, new in check(edits):
        keep = text[cpos:start].encode(encoding)
        old = text[start:end].encode(encoding)
        if raw[bpos : bpos + len(keep) + len(old)] != keep + old:
            raise UnsafeEditError(f"{encoding} does not round-trip near offset {start}")
        bpos += len(keep)
        out.append((bpos, bpos + len(old), new.encode(encoding)))
        bpos += len(old)
        cpos = end
    return out
