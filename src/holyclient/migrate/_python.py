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
from ._edits import Edit, newline_of
from ._frameworks import configure
from ._models import model_finding, unserved
from ._pykeys import Keys
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
from ._sdk import switch, unsupported


class _Rewriter(Keys):
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
        self.keep_openai = False  # --sdk withheld from this file (see _sdk.switch)
        self.key_lines: set[int] = set()  # constructors the proof found reach the relay (hints)

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
        self.keep_openai = self.sdk and unsupported(self) is not None
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
        self.client_classes()
        for call in self.calls:
            self.constructor(call)
        module_level(self)
        configure(self)
        if self.sdk and not self.azure_file:
            switch(self)

    def base_url(self, slash: bool = False) -> str:
        """The base URL expression to write: the literal, or ``os.environ.get(NAME, literal)``; with
        ``slash``, one that ends in ``/`` (openai's module-level client joins paths onto it as it is)."""
        if self.base_url_env is None:
            return f'"{BASE_URL}/"' if slash else f'"{BASE_URL}"'
        read = f'{self.os_environ()}.get("{self.base_url_env}", "{BASE_URL}")'
        return f'{read}.rstrip("/") + "/"' if slash else read

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
    def client_classes(self) -> None:
        """Module-level subclasses of a client class, and ``super().__init__(...)`` in their
        ``__init__``: the clients they build are configured where their arguments are given."""
        self.subclasses: dict[str, pn.Target] = {}
        self.super_inits: dict[int, tuple[pn.Target, str]] = {}
        for node in self.tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            for base in node.bases:
                target = pn.target_for(self.names.qualname(base)) or (
                    self.subclasses.get(base.id) if isinstance(base, ast.Name) else None
                )
                if target is None:
                    continue
                init = next(
                    (s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None
                )
                if init is None:
                    self.subclasses[node.name] = target
                    continue
                for n in ast.walk(init):
                    if (
                        isinstance(n, ast.Call)
                        and isinstance(n.func, ast.Attribute)
                        and n.func.attr == "__init__"
                        and isinstance(n.func.value, ast.Call)
                        and isinstance(n.func.value.func, ast.Name)
                        and n.func.value.func.id == "super"
                    ):
                        self.super_inits[id(n)] = (target, f"{node.name}.__init__ -> super().__init__")

    def target_of(self, call: ast.Call) -> tuple[pn.Target | None, str, str | None]:
        """The client class a call builds (also through ``functools.partial`` and subclasses)."""
        q = self.names.qualname(call.func)
        if id(call) in self.super_inits:
            found, name = self.super_inits[id(call)]
            return found, name, q
        if isinstance(call.func, ast.Name) and call.func.id in self.subclasses:
            return self.subclasses[call.func.id], call.func.id, q
        if q in ("functools.partial", "partial") and call.args:
            inner = self.names.qualname(call.args[0])
            partial = pn.target_for(inner)
            if partial is not None:
                return partial, f"functools.partial({(inner or '').rpartition('.')[2]}, ...)", inner
        return pn.target_for(q), (q.rpartition(".")[2] if q else "client"), q

    def constructor(self, call: ast.Call) -> None:
        target, name, q = self.target_of(call)
        start, end = self.pos.node(call)
        if target is None or self.in_excluded(start) or pn.is_azure_call(call, q):
            return
        line = self.line(start)
        kwargs = {k.arg: k.value for k in call.keywords if k.arg}
        has_star = any(k.arg is None for k in call.keywords)
        self.literal_key(line, f"{name}()", next((kwargs[k] for k in target.key_kws if k in kwargs), None))
        if self.sdk and target is pn.SDK and not self.keep_openai:
            return  # --sdk: holyclient's client, which reads HOLYSHEEP_BASE_URL and the key itself
        base = next((kwargs[k] for k in target.base_kws if k in kwargs), None)
        key = next((kwargs[k] for k in target.key_kws if k in kwargs), None)
        if base is not None:
            self.key_beside_rewritten_url(call, start, end, line, name, base, key, target.key_kw, has_star)
            return
        if has_star:
            return  # the proof lists it (kwargs-constructor): its base URL is whatever the dict holds
        new = [f"{target.base_kw}={self.base_url()}"]
        what = f"{name}() had no base URL: added {target.base_kw}"
        if isinstance(key, ast.Constant) and key.value is None and self.keys == "rename":
            # None is the SDK's default: OPENAI_API_KEY, which must not go to the relay
            self.edits.append((*self.pos.node(key), f'{self.os_environ()}["{NEW_KEY}"]'))
            what += f"; {target.key_kw}=None (OPENAI_API_KEY) now reads {NEW_KEY}"
        elif isinstance(key, ast.Constant) and key.value is None:
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


def rewrite(
    text: str,
    *,
    keys: KeyMode = "rename",
    rewrite_realtime: bool = False,
    base_url_env: str | None = None,
    sdk: bool = False,
    hints: frozenset[str] = frozenset(),
) -> tuple[list[Edit[str]], list[Finding]]:
    """Edits (character offsets into ``text``) and findings for one Python source.

    ``hints``: what the proof asked for on a second pass (``"key:LINE"``: the client constructed on
    LINE gets HolySheep's key, because the run points its base URL at the relay in another file).

    Raises:
        SyntaxError: the source does not parse; the caller reports and skips the file.
        UnsupportedSourceError: positions could not be mapped safely.
    """
    if not worth_parsing(text):
        return [], []
    if text.count("\r") != text.count("\r\n"):
        raise UnsupportedSourceError("bare carriage-return line breaks")
    r = _Rewriter(text, keys=keys, rewrite_realtime=rewrite_realtime, base_url_env=base_url_env, sdk=sdk)
    r.key_lines = {int(h[4:]) for h in hints if h.startswith("key:")}
    r.run()
    return r.edits, sorted(r.findings)
