"""Jupyter notebooks: edit cell ``source`` strings in place inside the JSON text.

The JSON is never re-serialised. We locate each source string token, decode it with a map from
decoded characters back to raw offsets (escapes such as ``\\n`` or ``\\u00e9`` stay as written), run
the Python rules over all code cells joined into one module (so an import in cell 1 resolves a call
in cell 5) and the text rules over markdown/raw cells, then splice escaped replacements into the
raw token. Outputs, metadata, indentation and key order are untouched byte for byte.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

from . import _python
from ._edits import Edit, Lines
from ._pysource import UnsupportedSourceError
from ._report import Finding
from ._rules import Hit, KeyMode, in_comment, key_hits, review_bare, url_hits

_TOKEN = re.compile(r'(?P<s>"(?:[^"\\]|\\.)*")|(?P<p>[{}\[\]:,])|(?P<lit>[^\s{}\[\]:,"]+)', re.S)
_ESC = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_MAGIC = re.compile(r"^([ \t]*)[%!]", re.M)


class NotebookError(ValueError):
    """Not a notebook we can edit safely (bad JSON, unexpected layout)."""


@dataclass
class _Piece:
    raw_start: int  # offset of the opening quote in the file text
    value: str
    offs: list[int]  # raw offset (from raw_start) of each decoded char, plus the closing quote


@dataclass
class _Cell:
    index: int
    kind: str
    pieces: list[_Piece] = field(default_factory=list)
    listed: bool = True  # source stored as a list of lines (the usual layout), not one string

    @property
    def code(self) -> str:
        return "".join(p.value for p in self.pieces)


def _decode(tok: str) -> tuple[str, list[int]]:
    out: list[str] = []
    offs: list[int] = []
    i, n = 1, len(tok) - 1
    while i < n:
        offs.append(i)
        c = tok[i]
        if c != "\\":
            out.append(c)
            i += 1
        elif tok[i + 1] == "u":
            code = int(tok[i + 2 : i + 6], 16)
            i += 6
            if 0xD800 <= code < 0xDC00 and tok.startswith("\\u", i):
                low = int(tok[i + 2 : i + 6], 16)
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                i += 6
            out.append(chr(code))
        else:
            out.append(_ESC[tok[i + 1]])
            i += 2
    offs.append(n)
    return "".join(out), offs


def _source_pieces(text: str) -> dict[int, list[_Piece]]:
    """Source string tokens per cell index, found by walking the JSON tokens with a path stack."""
    stack: list[list[Any]] = []  # [is_array, current key or index, expecting_key]
    found: dict[int, list[_Piece]] = {}
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        tok = m.group()
        if kind == "p":
            if tok in "{[":
                stack.append([tok == "[", 0 if tok == "[" else None, tok == "{"])
            elif tok in "}]":
                stack.pop()
            elif tok == ",":
                top = stack[-1]
                if top[0]:
                    top[1] += 1
                else:
                    top[2] = True
            continue
        if kind == "s" and stack and not stack[-1][0] and stack[-1][2]:
            stack[-1][1] = json.loads(tok)
            stack[-1][2] = False
            continue
        if kind == "s":
            path = [frame[1] for frame in stack]
            if len(path) in (3, 4) and path[0] == "cells" and path[2] == "source":
                value, offs = _decode(tok)
                found.setdefault(path[1], []).append(_Piece(m.start(), value, offs))
    return found


def _escape(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)[1:-1]


def _separator(text: str, cell: _Cell, piece: _Piece, lines: Lines) -> str:
    """What separates two items of this source list in the file (comma and indentation)."""
    i = cell.pieces.index(piece)
    if i + 1 < len(cell.pieces):
        return text[piece.raw_start + piece.offs[-1] + 1 : cell.pieces[i + 1].raw_start]
    if i > 0:
        prev = cell.pieces[i - 1]
        return text[prev.raw_start + prev.offs[-1] + 1 : piece.raw_start]
    line_start = lines.start(lines.line_of(piece.raw_start))
    nl = "\r\n" if text[piece.raw_start :].split("\n", 1)[0].endswith("\r") else "\n"
    return "," + nl + text[line_start : piece.raw_start]


def _text_hits(code: str, *, prose: bool, keys: KeyMode, rewrite_realtime: bool) -> list[Hit]:
    urls = [
        review_bare(h) if prose or in_comment(code, h.start) else h
        for h in url_hits(code, rewrite_realtime=rewrite_realtime)
    ]
    return [*urls, *key_hits(code, mode=keys, check_value=True)]


def rewrite(
    text: str,
    *,
    keys: KeyMode = "rename",
    rewrite_realtime: bool = False,
    base_url_env: str | None = None,
    sdk: bool = False,
) -> tuple[list[Edit[str]], list[Finding]]:
    """Edits on the notebook's JSON text and findings with file line numbers."""
    try:
        nb = json.loads(text)
        cells = nb["cells"]
    except (ValueError, KeyError, TypeError) as exc:
        raise NotebookError(f"not a notebook: {exc}") from exc
    pieces = _source_pieces(text)
    model = [
        _Cell(i, str(c.get("cell_type", "")), pieces.get(i, []), isinstance(c.get("source"), list))
        for i, c in enumerate(cells)
    ]
    for cell, raw in zip(model, cells, strict=True):
        src = raw.get("source", "")
        if cell.code != ("".join(src) if isinstance(src, list) else src):
            raise NotebookError(f"cell {cell.index}: could not locate its source in the JSON text")
    lines = Lines(text)
    edits: list[Edit[str]] = []
    findings: list[Finding] = []

    def to_raw(cell: _Cell, offset: int) -> tuple[_Piece, int]:
        pos = 0
        for i, p in enumerate(cell.pieces):
            last = i == len(cell.pieces) - 1
            if offset < pos + len(p.value) or (offset == pos + len(p.value) and last):
                return p, offset - pos
            pos += len(p.value)
        raise NotebookError(f"cell {cell.index}: edit outside its source")

    def add(cell: _Cell, start: int, end: int, new: str) -> None:
        piece, local = to_raw(cell, start)
        if local + end - start > len(piece.value):
            raise NotebookError(f"cell {cell.index}: edit crosses a source line")
        a = piece.raw_start + piece.offs[local]
        b = piece.raw_start + piece.offs[local + end - start]
        if "\n" in new and cell.listed:
            # keep one line per list item, as Jupyter writes them: close the string at each new line
            # break and open the next one with the list's own separator (",\n    " usually)
            sep = _separator(text, cell, piece, lines)
            head, *rest = new.split("\n")
            escaped = _escape(head) + "".join(f'\\n"{sep}"{_escape(part)}' for part in rest)
        else:
            escaped = _escape(new)
        edits.append((a, b, escaped))

    def line_of(cell: _Cell, offset: int) -> int:
        piece, local = to_raw(cell, offset)
        return lines.line_of(piece.raw_start + piece.offs[min(local, len(piece.offs) - 1)])

    code_cells = [c for c in model if c.kind == "code" and c.pieces and not c.code.lstrip().startswith("%%")]
    for cell in model:
        if cell.pieces and cell not in code_cells:
            prose = cell.kind != "code"  # markdown and raw cells; %%bash and friends are scripts
            for h in _text_hits(cell.code, prose=prose, keys=keys, rewrite_realtime=rewrite_realtime):
                findings.append(
                    (line_of(cell, h.start), h.kind, "review" if h.new is None else "rewrite", h.message)
                )
                if h.new is not None:
                    add(cell, h.start, h.end, h.new)
    _code_cells(
        code_cells,
        add,
        line_of,
        findings,
        keys=keys,
        rewrite_realtime=rewrite_realtime,
        base_url_env=base_url_env,
        sdk=sdk,
    )
    return edits, sorted(findings)


def _code_cells(
    cells: list[_Cell],
    add: Any,
    line_of: Any,
    findings: list[Finding],
    *,
    keys: KeyMode,
    rewrite_realtime: bool,
    base_url_env: str | None = None,
    sdk: bool = False,
) -> None:
    """All code cells as one module (magics masked as comments, same length); per cell on failure."""
    groups = [cells]
    masked = {c.index: _MAGIC.sub(r"\1#", c.code) for c in cells}
    try:
        ast.parse("\n".join(masked[c.index] for c in cells))
    except SyntaxError:
        groups = [[c] for c in cells]
    for group in groups:
        joined, starts = "", []
        for c in group:
            starts.append(len(joined))
            joined += masked[c.index] + ("" if masked[c.index].endswith("\n") else "\n")
        try:
            edits, found = _python.rewrite(
                joined, keys=keys, rewrite_realtime=rewrite_realtime, base_url_env=base_url_env, sdk=sdk
            )
        except (SyntaxError, UnsupportedSourceError) as exc:
            findings.append(
                (
                    line_of(group[0], 0),
                    "parse-error",
                    "error",
                    f"cell {group[0].index} skipped: {exc.__class__.__name__}: {exc}",
                )
            )
            continue
        jl = Lines(joined)

        def locate(offset: int, group: list[_Cell] = group, starts: list[int] = starts) -> tuple[_Cell, int]:
            i = max(k for k, s in enumerate(starts) if s <= offset)
            return group[i], offset - starts[i]

        for start, end, new in edits:
            cell, local = locate(start)
            add(cell, local, local + end - start, new)
        for line, kind, action, message in found:
            cell, local = locate(jl.start(line))
            findings.append((line_of(cell, local), kind, action, message))


def validate(before: str, after: str) -> None:
    """Still JSON, same cells, nothing but ``source`` changed, and code cells that parsed still parse."""
    old, new = json.loads(before), json.loads(after)
    if len(old["cells"]) != len(new["cells"]):
        raise NotebookError("cell count changed")
    for a, b in zip(old["cells"], new["cells"], strict=True):
        if {k: v for k, v in a.items() if k != "source"} != {k: v for k, v in b.items() if k != "source"}:
            raise NotebookError("a cell changed outside its source")
    if {k: v for k, v in old.items() if k != "cells"} != {k: v for k, v in new.items() if k != "cells"}:
        raise NotebookError("notebook metadata changed")
    for a, b in zip(old["cells"], new["cells"], strict=True):
        if a.get("cell_type") == "code" and _parses(a) and not _parses(b):
            raise NotebookError(f"a code cell would no longer parse: {_code(b)[:60]!r}")


def _code(cell: dict[str, Any]) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _parses(cell: dict[str, Any]) -> bool:
    code = _code(cell)
    if code.lstrip().startswith("%%"):
        return True
    try:
        ast.parse(_MAGIC.sub(r"\1#", code))
    except SyntaxError:
        return False
    return True


def code_view(text: str, code: bool = True) -> tuple[str, Any]:
    """The notebook's code cells as one module (magics masked as comments) -- or, with ``code=False``,
    its other cells (markdown, raw, ``%%`` scripts) as one text -- and a function from a line of that text
    to the line of the notebook file it came from: the proof reads notebooks as Python and prose.

    Raises:
        NotebookError: not a notebook.
    """
    try:
        cells = json.loads(text)["cells"]
    except (ValueError, KeyError, TypeError) as exc:
        raise NotebookError(f"not a notebook: {exc}") from exc
    pieces = _source_pieces(text)
    lines = Lines(text)
    joined: list[str] = []
    where: list[int] = []  # file line of each joined line
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict) or i not in pieces:
            continue
        source = "".join(p.value for p in pieces[i])
        is_code = cell.get("cell_type") == "code" and not source.lstrip().startswith("%%")
        if not source or is_code != code:
            continue
        masked = _MAGIC.sub(r"\1#", source) if code else source
        new_line = True
        for piece in pieces[i]:
            file_line = lines.line_of(piece.raw_start)
            for ch in piece.value:
                if new_line:
                    where.append(file_line)
                    new_line = False
                if ch == "\n":
                    new_line = True
        joined.append(masked if masked.endswith("\n") else masked + "\n")
    source = "".join(joined)

    def to_file(line: int) -> int:
        return where[line - 1] if 0 < line <= len(where) else 1

    return source, to_file
