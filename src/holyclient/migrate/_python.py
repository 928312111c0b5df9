"""Python sources: find positions with the stdlib parser and return edits on the original text.

* ``tokenize`` gives every string literal (f-strings included) and comment; URL and key rules run
  inside those spans only, so code that merely looks like a host name is never touched.
* ``ast`` gives client constructors (resolved through :mod:`._pynames`), module-level openai<1.0 use
  and Azure branches. ``col_offset`` is a UTF-8 byte offset within the line; :class:`._pysource.Pos` maps it
  back to a character offset.

Nothing is regenerated: the caller splices the edits into the original bytes.
"""

from __future__ import annotations

import ast
from typing import Any

from . import _pynames as pn
from ._edits import Edit, indent_of, newline_of
from ._frameworks import configure
from ._incomplete import env_var_read, kwargs_message, reaches_relay, runtime_message
from ._models import model_finding, unserved
from ._pylegacy import module_level
from ._pysource import Pos, UnsupportedSourceError, token_spans, worth_parsing
from ._report import Finding
from ._rules import (
    BASE_URL,
    NEW_KEY,
    OLD_KEY,
    SECRET_MESSAGE,
    Hit,
    KeyMode,
    env_message,
    is_openai_base,
    key_hits,
    review_bare,
    secret_like,
    url_hits,
)
from ._sdk import switch


class _Rewriter:
    def __init__(
        self,
        text: str,
        *,
        keys: KeyMode,
        rewrite_realtime: bool,
        base_url_env: str | None = None,
        sdk: bool = False,
    ) -> None:
        self.text = text
        self.sdk = sdk
        self.base_url_env = base_url_env
        self.keys = keys
        self.rewrite_realtime = rewrite_realtime
        self.pos = Pos(text)
        self.lines = self.pos.lines
        self.nl = newline_of(text)
        self.tree = ast.parse(text)
        # one walk, nodes bucketed by type: walking a large module costs more than parsing it
        self.calls: list[ast.Call] = []
        self.ifs: list[ast.If] = []
        self.assigns: list[ast.Assign] = []
        self.attributes: list[ast.Attribute] = []
        self.dicts: list[ast.Dict] = []
        self.exprs: list[ast.Expr] = []
        self.constants: list[ast.Constant] = []
        self.secret_names: list[tuple[int, int]] = []  # "OPENAI_API_KEY" literals bound to a literal value
        imports: list[ast.Import | ast.ImportFrom] = []
        buckets: dict[type, list[Any]] = {
            ast.Call: self.calls,
            ast.If: self.ifs,
            ast.Assign: self.assigns,
            ast.Attribute: self.attributes,
            ast.Dict: self.dicts,
            ast.Expr: self.exprs,
            ast.Constant: self.constants,
            ast.Import: imports,
            ast.ImportFrom: imports,
        }
        for node in ast.walk(self.tree):
            bucket = buckets.get(type(node))
            if bucket is not None:
                bucket.append(node)
        self.names = pn.Names(imports)
        self.edits: list[Edit[str]] = []
        self.findings: list[Finding] = []
        self.excluded: list[tuple[int, int]] = []  # Azure / other-vendor spans: keys stay as they are
        self.os_expr: str | None = None
        self.env_spans: list[tuple[int, int]] = []  # whole base-URL literals read from --base-url-env
        self.azure_file = False

    def line(self, offset: int) -> int:
        return self.lines.line_of(offset)

    def hit(self, h: Hit) -> None:
        if h.kind == "key" and h.new is not None and any(a <= h.start < b for a, b in self.secret_names):
            h = Hit(h.start, h.end, None, "key-value", SECRET_MESSAGE)
        if h.new is None:
            self.findings.append((self.line(h.start), h.kind, "review", h.message))
        elif self.text[h.start : h.end] != h.new:
            self.edits.append((h.start, h.end, h.new))
            self.findings.append((self.line(h.start), h.kind, "rewrite", h.message))

    def in_excluded(self, offset: int) -> bool:
        return any(a <= offset < b for a, b in self.excluded)

    def run(self) -> None:
        self.collect_exclusions()
        self.collect_secret_bindings()
        low = self.text.lower()
        spans = (
            token_spans(self.text, self.lines)
            if "api.openai.com" in low or OLD_KEY in self.text
            else iter(())
        )
        # docstrings and other bare string statements are prose, like comments
        prose = {
            self.pos.node(e)[0]
            for e in self.exprs
            if isinstance(e.value, ast.Constant) and isinstance(e.value.value, str)
        }
        prose_lines = {e.lineno for e in self.exprs if isinstance(e.value, ast.Constant)}
        self.env_literals(prose)
        for kind, start, end in spans:
            if self.in_excluded(start) or any(a <= start < b for a, b in self.env_spans):
                continue
            for h in url_hits(self.text, start, end, rewrite_realtime=self.rewrite_realtime):
                self.hit(review_bare(h) if kind == "comment" or start in prose else h)
            if not self.azure_file:
                # comments too: notebook shell magics (``!curl ... $OPENAI_API_KEY``) arrive as comments,
                # and a ``# OPENAI_API_KEY=sk-...`` comment is reported rather than renamed
                for h in key_hits(self.text, start, end, mode=self.keys, check_value=kind == "comment"):
                    self.hit(h)
        for node in self.constants:
            if isinstance(node.value, str) and node.lineno not in prose_lines:
                self.findings.extend(model_finding(node.lineno, name) for _, name in unserved(node.value))
        for call in self.calls:
            self.constructor(call)
        module_level(self)
        configure(self)
        if self.sdk and not self.azure_file:
            switch(self)

    def base_url(self) -> str:
        """The base URL expression to write: the literal, or ``os.environ.get(NAME, literal)``."""
        if self.base_url_env is None:
            return f'"{BASE_URL}"'
        return f'{self.os_environ()}.get("{self.base_url_env}", "{BASE_URL}")'

    def env_literals(self, prose: set[int]) -> None:
        """With ``--base-url-env``: each plain literal that is OpenAI's whole base URL reads NAME instead."""
        if self.base_url_env is None:
            return
        for node in self.constants:
            start, end = self.pos.node(node)
            segment = self.text[start:end]
            if (
                isinstance(node.value, str)
                and is_openai_base(node.value)
                and segment[:1] in "'\""
                and segment[1:-1] == node.value  # one plain token: no prefix, escapes or concatenation
                and start not in prose
                and not self.in_excluded(start)
            ):
                self.env_spans.append((start, end))
                self.edits.append((start, end, self.base_url()))
                self.findings.append(
                    (self.line(start), "base-url-env", "rewrite", env_message(self.base_url_env))
                )

    # -- Azure and other vendors --------------------------------------------------------------
    def collect_secret_bindings(self) -> None:
        """``{"OPENAI_API_KEY": "sk-..."}``, ``os.environ["OPENAI_API_KEY"] = "sk-..."`` and
        ``getenv("OPENAI_API_KEY", "sk-...")``: renaming the name would hand the OpenAI secret
        to HolySheep, so these names are reported instead."""
        pairs: list[tuple[ast.expr | None, ast.expr]] = []
        for d in self.dicts:
            pairs.extend(zip(d.keys, d.values, strict=True))
        for a in self.assigns:
            pairs.extend((t.slice, a.value) for t in a.targets if isinstance(t, ast.Subscript))
        for c in self.calls:
            if (
                len(c.args) == 2
                and isinstance(c.func, ast.Attribute)
                and c.func.attr in ("setdefault", "putenv", "get", "getenv")
            ):
                pairs.append((c.args[0], c.args[1]))
        for name, value in pairs:
            if (
                isinstance(name, ast.Constant)
                and name.value == OLD_KEY
                and isinstance(value, ast.Constant)
                and isinstance(value.value, str)
                and secret_like(value.value)
            ):
                self.secret_names.append(self.pos.node(name))

    def collect_exclusions(self) -> None:
        for branch in self.ifs:
            if pn.mentions_azure(branch.test):
                # `!= "azure"` puts Azure in the else branch
                block = branch.orelse if pn.negated(branch.test) else branch.body
                if block:
                    self.excluded.append((self.pos.node(block[0])[0], self.pos.node(block[-1])[1]))
        for call in self.calls:
            q = self.names.qualname(call.func)
            if pn.is_azure_call(call, q) or self.other_vendor(call, pn.target_for(q)):
                self.excluded.append(self.pos.node(call))
        settings: list[tuple[ast.expr, ast.expr]] = [(t, a.value) for a in self.assigns for t in a.targets]
        settings.extend(
            (c.args[0], c.args[1])
            for c in self.calls
            if len(c.args) == 2
            and isinstance(c.func, ast.Attribute)
            and c.func.attr in ("setdefault", "putenv")
        )
        for target, value in settings:
            if not self.in_excluded(self.pos.node(target)[0]) and pn.sets_azure_type(target, value):
                self.azure_file = True

    def other_vendor(self, call: ast.Call, target: pn.Target | None) -> bool:
        if target is None:
            return False
        for k in call.keywords:
            if (
                k.arg in target.base_kws
                and isinstance(k.value, ast.Constant)
                and isinstance(k.value.value, str)
            ):
                return "api.openai.com" not in k.value.value.lower() and "holysheep" not in k.value.value
        return False

    # -- client constructors ------------------------------------------------------------------
    def constructor(self, call: ast.Call) -> None:
        q = self.names.qualname(call.func)
        target = pn.target_for(q)
        start, end = self.pos.node(call)
        if target is None or self.in_excluded(start) or pn.is_azure_call(call, q):
            return
        line = self.line(start)
        name = q.rpartition(".")[2] if q else "client"
        kwargs = {k.arg: k.value for k in call.keywords if k.arg}
        has_star = any(k.arg is None for k in call.keywords)
        self.literal_key(line, f"{name}()", next((kwargs[k] for k in target.key_kws if k in kwargs), None))
        if self.sdk and target is pn.SDK:
            return  # --sdk: holyclient's client, which reads HOLYSHEEP_BASE_URL and the key itself
        base = next((kwargs[k] for k in target.base_kws if k in kwargs), None)
        if base is not None:
            self.runtime_base(line, f"{name}()", base)
            return
        if has_star:
            self.findings.append(
                (line, "kwargs-constructor", "incomplete", kwargs_message(name, self.base_url_env))
            )
            return
        new = [f"{target.base_kw}={self.base_url()}"]
        what = f"{name}() had no base URL: added {target.base_kw}"
        key = next((kwargs[k] for k in target.key_kws if k in kwargs), None)
        if isinstance(key, ast.Constant) and key.value is None:
            self.findings.append(
                (
                    line,
                    "implicit-key",
                    "review",
                    f"{name}(api_key=None) reads OPENAI_API_KEY from the environment; pass a HolySheep key",
                )
            )
        elif key is None:
            if self.keys == "rename":
                new.append(f'{target.key_kw}={self.os_environ()}["{NEW_KEY}"]')
                what += f" and {target.key_kw} from {NEW_KEY}"
            else:
                self.findings.append(
                    (
                        line,
                        "implicit-key",
                        "review",
                        f"{name}() reads OPENAI_API_KEY from the environment; pass a HolySheep key",
                    )
                )
        self.add_arguments(call, start, end, new)
        self.findings.append((line, "constructor", "rewrite", what))

    def literal_key(self, line: int, what: str, value: ast.expr | None) -> None:
        """A key written into the source is an OpenAI key: it must be replaced, and we never show it."""
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and secret_like(value.value):
            self.findings.append(
                (
                    line,
                    "hardcoded-key",
                    "review",
                    f"{what} is given a literal API key; replace it with a HolySheep key",
                )
            )

    def runtime_base(self, line: int, what: str, value: ast.expr) -> None:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return  # a literal: the token pass rewrote it if it was OpenAI's
        literals = [
            n.value for n in ast.walk(value) if isinstance(n, ast.Constant) and isinstance(n.value, str)
        ]
        if isinstance(value, (ast.JoinedStr, ast.BinOp)) and any("://" in s for s in literals):
            return
        if reaches_relay(literals, self.base_url_env):
            return  # os.environ.get("HOLYSHEEP_BASE_URL", "https://api.holysheep.ai/v1"): written by us
        src = (ast.get_source_segment(self.text, value) or "...").replace("\n", " ")
        src = src if len(src) <= 60 else src[:57] + "..."
        self.findings.append(
            (line, "runtime-url", "incomplete", runtime_message(what, src, env_var_read(value)))
        )

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


def rewrite(
    text: str,
    *,
    keys: KeyMode = "rename",
    rewrite_realtime: bool = False,
    base_url_env: str | None = None,
    sdk: bool = False,
) -> tuple[list[Edit[str]], list[Finding]]:
    """Edits (character offsets into ``text``) and findings for one Python source.

    Raises:
        SyntaxError: the source does not parse; the caller reports and skips the file.
        UnsupportedSourceError: positions could not be mapped safely.
    """
    if not worth_parsing(text):
        return [], []
    if text.count("\r") != text.count("\r\n"):
        raise UnsupportedSourceError("bare carriage-return line breaks")
    r = _Rewriter(text, keys=keys, rewrite_realtime=rewrite_realtime, base_url_env=base_url_env, sdk=sdk)
    r.run()
    return r.edits, sorted(r.findings)
