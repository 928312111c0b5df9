"""Where the Python rewriter inserts text: arguments after a call's last one (in its layout), items in
a dict literal, ``import`` statements after the docstring and ``__future__`` imports, and the module's
own name for ``os.environ``. A mixin of ``_python._Rewriter``, kept apart to keep modules small."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ._edits import indent_of

if TYPE_CHECKING:
    from ._edits import Edit, Lines
    from ._pynames import Names
    from ._pysource import Pos


class Inserts:
    """Needs the rewriter's ``text``, ``tree``, ``pos``, ``lines``, ``nl``, ``names``, ``edits`` and
    ``os_expr``."""

    text: str
    tree: ast.Module
    pos: Pos
    lines: Lines
    nl: str
    names: Names
    edits: list[Edit[str]]
    os_expr: str | None

    def line(self, offset: int) -> int:
        return self.lines.line_of(offset)

    def add_arguments(self, call: ast.Call, start: int, end: int, new: list[str]) -> None:
        open_ = self.text.index("(", self.pos.node(call.func)[1])
        self.add_items([*call.args, *call.keywords], open_, end, new)

    def add_items(self, items: list[Any], open_: int, end: int, new: list[str]) -> None:
        """Add ``new`` after the last of ``items`` (arguments, or a dict's keys and values) of the
        bracket opened at ``open_`` and closed at ``end - 1``: on its own line when the items are
        one a line, else on the same line."""
        text = self.text
        close = end - 1
        if not items:
            self.edits.append((open_ + 1, open_ + 1, ", ".join(new)))
            return
        spans = [self.pos.node(i) for i in items]
        last_start, last_end = max(spans, key=lambda s: s[1])
        after = text[last_end:close].lstrip()
        comma = after.startswith(",")
        last_line = self.line(last_start)
        first_on_line = not text[self.lines.start(last_line) : last_start].strip()
        if first_on_line and self.line(close) > self.line(last_end):
            indent = indent_of(text[self.lines.start(last_line) : last_start])
            where = self.line(text.index(",", last_end)) if comma else self.line(last_end)
            if not comma:
                self.edits.append((last_end, last_end, ","))
            body = ",".join(f"{self.nl}{indent}{n}" for n in new) + ("," if comma else "")
            eol = self.lines.end(where)
            self.edits.append((eol, eol, body))
        else:
            self.edits.append((last_end, last_end, "".join(f", {n}" for n in new)))

    def os_environ(self) -> str:
        """``os.environ`` under the module's own name for it, importing ``os`` once if needed."""
        if self.os_expr is None:
            environ = self.names.local_for("os.environ")
            os_name = self.names.local_for("os")
            if environ:
                self.os_expr = environ
            elif os_name:
                self.os_expr = f"{os_name}.environ"
            else:
                self.insert_import_os()
                self.os_expr = "os.environ"
        return self.os_expr

    def insert_import_os(self) -> None:
        self.insert_import("import os")

    def insert_import(self, statement: str) -> None:
        """``statement`` on its own line before the module's first statement after its docstring and
        ``__future__`` imports."""
        body = self.tree.body
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and stmt is body[0]:
                continue  # docstring
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
                continue
            lineno = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
            at = self.lines.start(lineno)
            self.edits.append((at, at, f"{statement}{self.nl}"))
            return
