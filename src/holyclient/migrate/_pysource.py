"""Positions in a Python source: which files need parsing at all, ``ast`` offsets mapped to
character offsets, a node's text, and the spans of string literals and comments from ``tokenize``."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator

from ._edits import Lines

#: a line with its end, split where the parser splits (not at form feeds or other Unicode breaks)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_FSTART = {getattr(tokenize, n) for n in ("FSTRING_START", "TSTRING_START") if hasattr(tokenize, n)}
_FEND = {getattr(tokenize, n) for n in ("FSTRING_END", "TSTRING_END") if hasattr(tokenize, n)}


_LIBRARIES = (
    "openai",
    "langchain",
    "llama_index",
    # frameworks whose OpenAI clients migrate configures (``_frameworks``)
    "pydantic_ai",
    "agents",
    "dspy",
    "haystack",
    "crewai",
    "autogen",
    "semantic_kernel",
    "mem0",
)
#: model names (``_models``): a file naming one is parsed even when it imports no client library
_MODEL_MARKS = ("gpt-", "davinci", "o1-")
_IMPORT_WORD = re.compile(r"\b(?:from|import)\b")


def worth_parsing(text: str) -> bool:
    """Whether the file can hold anything we rewrite or report: an import of a client library (AST
    pass), an OpenAI host / key name (token pass) or a model name. Most files that mention "openai" have neither, and plain
    substring tests are far cheaper than tokenizing, parsing and walking them."""
    low = text.lower()
    if "api.openai.com" in low or "OPENAI_API_KEY" in text or any(m in text for m in _MODEL_MARKS):
        return True
    for lib in _LIBRARIES:
        i = text.find(lib)
        while i >= 0:
            start, end = text.rfind("\n", 0, i) + 1, text.find("\n", i)
            if _IMPORT_WORD.search(text, start, end if end >= 0 else len(text)):
                return True
            i = text.find(lib, end if end >= 0 else len(text))
    return False


class UnsupportedSourceError(ValueError):
    """A source we can parse but cannot map positions in safely (old Mac ``\\r`` line breaks)."""


class Pos:
    """``(lineno, col_offset)`` from ``ast`` (a UTF-8 byte column) -> character offset in the text."""

    def __init__(self, text: str) -> None:
        self.lines = Lines(text)
        self._text = text

    def __call__(self, lineno: int, col: int) -> int:
        start = self.lines.start(lineno)
        line = self._text[start : self.lines.end(lineno)]
        if col and not line.isascii():
            col = len(line.encode("utf-8")[:col].decode("utf-8", "replace"))
        return start + col

    def node(self, node: ast.expr | ast.stmt | ast.keyword) -> tuple[int, int]:
        end_line, end_col = node.end_lineno, node.end_col_offset
        assert end_line is not None and end_col is not None  # always set by ast.parse
        return self(node.lineno, node.col_offset), self(end_line, end_col)


def token_spans(text: str, lines: Lines) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of each string literal (a whole f-string, nested parts included) and comment."""
    depth, fstart = 0, 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in _FSTART:
            depth += 1
            if depth == 1:
                fstart = lines.start(tok.start[0]) + tok.start[1]
        elif tok.type in _FEND:
            depth -= 1
            if depth == 0:
                yield "string", fstart, lines.start(tok.end[0]) + tok.end[1]
        elif depth == 0 and tok.type in (tokenize.STRING, tokenize.COMMENT):
            start = lines.start(tok.start[0]) + tok.start[1]
            yield ("string" if tok.type == tokenize.STRING else "comment"), start, start + len(tok.string)


def source_lines(text: str) -> list[str]:
    """The lines of a module as the parser counts them, each with its end."""
    return _LINE.findall(text)


def segment(lines: list[str], node: ast.expr) -> str | None:
    """``ast.get_source_segment`` over lines split once (that function splits the whole module, in
    Python, on every call): the node's text; its columns are UTF-8 byte offsets."""
    end_line, end_col = node.end_lineno, node.end_col_offset
    if end_line is None or end_col is None or end_line > len(lines):
        return None
    first, last = lines[node.lineno - 1].encode(), lines[end_line - 1].encode()
    if node.lineno == end_line:
        return first[node.col_offset : end_col].decode(errors="replace")
    middle = "".join(lines[node.lineno : end_line - 1])
    return (
        first[node.col_offset :].decode(errors="replace") + middle + last[:end_col].decode(errors="replace")
    )
