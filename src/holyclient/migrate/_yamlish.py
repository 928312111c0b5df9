"""Enough YAML to read a config file's keys without PyYAML (the codemod is standard library only):
block mappings and sequences by indentation, plain and quoted scalars, one-line ``[...]`` / ``{...}``
flow collections, comments; block scalars (``|``, ``>``) are skipped. The first document only.
Anything it cannot read raises ValueError, and the file is then treated as text."""

from __future__ import annotations

import re
from typing import Any

_KEY = re.compile(
    r"""^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s#'"{\[][^:#]*?))[ \t]*:(?:[ \t]+|$)(.*)$"""
)


def _strip_comment(line: str) -> str:
    quote = ""
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def _scalar(text: str) -> Any:
    t = text.strip()
    if not t or t in ("~", "null", "Null", "NULL"):
        return None
    if t[0] == '"' and t.endswith('"') and len(t) >= 2:
        return t[1:-1].replace('\\"', '"')
    if t[0] == "'" and t.endswith("'") and len(t) >= 2:
        return t[1:-1].replace("''", "'")
    if t[0] == "[" and t.endswith("]"):
        inner = t[1:-1].strip()
        return [_scalar(p) for p in _split(inner)] if inner else []
    if t[0] == "{" and t.endswith("}"):
        out: dict[str, Any] = {}
        for part in _split(t[1:-1]):
            k, sep, v = part.partition(":")
            if sep:
                out[str(_scalar(k))] = _scalar(v)
        return out
    return t


def _split(text: str) -> list[str]:
    parts, depth, quote, start = [], 0, "", 0
    for i, c in enumerate(text):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_yaml(text: str) -> Any:
    """The first document of ``text`` as dicts, lists and strings."""
    rows: list[tuple[int, str]] = []
    skip_above: int | None = None
    started = False
    for raw in text.splitlines():
        if raw.strip() == "---":
            if started:
                break
            continue
        if raw.strip() == "...":
            break
        line = _strip_comment(raw.replace("\t", "  "))
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if skip_above is not None:
            if indent > skip_above:
                continue
            skip_above = None
        started = True
        rows.append((indent, line.strip()))
        if line.rstrip().endswith(("|", ">", "|-", ">-", "|+", ">+")):
            skip_above = indent
    if not rows:
        return None
    value, end = _block(rows, 0, rows[0][0])
    if end != len(rows):
        raise ValueError("unexpected indentation")
    return value


def _block(rows: list[tuple[int, str]], i: int, indent: int) -> tuple[Any, int]:
    if rows[i][1].startswith("- ") or rows[i][1] == "-":
        return _sequence(rows, i, indent)
    return _mapping(rows, i, indent)


def _sequence(rows: list[tuple[int, str]], i: int, indent: int) -> tuple[list[Any], int]:
    out: list[Any] = []
    while i < len(rows) and rows[i][0] == indent and (rows[i][1].startswith("- ") or rows[i][1] == "-"):
        body = rows[i][1][1:].strip()
        if not body:
            if i + 1 < len(rows) and rows[i + 1][0] > indent:
                value, i = _block(rows, i + 1, rows[i + 1][0])
                out.append(value)
            else:
                out.append(None)
                i += 1
            continue
        if (_KEY.match(body) and not body.startswith(("[", "{", '"', "'"))) or (
            _KEY.match(body) and body[0] in "\"'"
        ):
            # "- key: value" opens a mapping whose other keys sit at the item's content column
            inner_indent = indent + 2
            sub = [(inner_indent, body)]
            j = i + 1
            while j < len(rows) and rows[j][0] > indent:
                sub.append(rows[j])
                j += 1
            value, _ = _mapping(sub, 0, inner_indent)
            out.append(value)
            i = j
            continue
        out.append(_scalar(body))
        i += 1
    return out, i


def _mapping(rows: list[tuple[int, str]], i: int, indent: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    while i < len(rows) and rows[i][0] == indent:
        m = _KEY.match(rows[i][1])
        if m is None:
            raise ValueError(f"not a mapping entry: {rows[i][1][:40]!r}")
        key = m.group(1) if m.group(1) is not None else m.group(2) if m.group(2) is not None else m.group(3)
        rest = m.group(4).strip()
        i += 1
        if rest and rest not in ("|", ">", "|-", ">-", "|+", ">+"):
            out[key] = _scalar(rest)
        elif i < len(rows) and rows[i][0] > indent:
            out[key], i = _block(rows, i, rows[i][0])
        elif i < len(rows) and rows[i][0] == indent and rows[i][1].startswith("- "):
            out[key], i = _sequence(rows, i, indent)  # a list at the key's own indentation
        else:
            out[key] = None if not rest else ""
    if i < len(rows) and rows[i][0] > indent:
        raise ValueError("unexpected indentation")
    return out, i
