"""The sinks of a Python module: every client spelling migrate knows, with the base URL and key each
one is given or falls back to, read with :mod:`._pyflow` (the proof's view, separate from the rewriters).

One table, :data:`SPELLINGS`, says for each client class which keywords carry its base URL and key,
what it reads when they are missing, and which keywords hand it a client instead; the rewriters'
tables (``_pynames``, ``_frameworks``) are checked against it by a test.
"""

from __future__ import annotations

import ast

from . import _provenance as pv
from ._facts import (
    OPENAI_KEY,
    OPENAI_URL,
    Facts,
    Handoff,
    Sink,
)
from ._pyflow import Flow
from ._pynames import (
    V0_RESOURCES,
    V1_RESOURCES,
    Names,
    is_azure_call,
    mentions_azure,
    negated,
    sets_azure_type,
)
from ._pyraw import own_scope
from ._pyscopes import Scope
from ._rules import MARK
from ._spellings import AGENTS_ONLY, FRAMEWORKS, Spelling, leaves, spelling_for


class _Extractor:
    def __init__(self, path: str, text: str) -> None:
        self.text = text
        self.tree = ast.parse(text)
        imports = [n for n in ast.walk(self.tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        self.names = Names(imports)
        self.flow = Flow(self.tree, self.names, text, self._client_of)
        self.facts = Facts(path, "python")
        self.excluded: list[tuple[int, int]] = []  # Azure branches: (first line, last line)
        self.azure_file = False
        self.local_classes: dict[str, Spelling] = {}  # subclasses of client classes defined here
        self.super_inits: dict[str, bool] = {}  # subclass -> its __init__ passes its own arguments on
        self.consumed: set[int] = set()  # id() of URL literals a sink reads

    def run(self) -> Facts:
        f = self.facts
        f.marked = {i + 1 for i, line in enumerate(self.text.split("\n")) if MARK in line}
        agents = [
            self.names.import_of[local].lineno
            for local, q in self.names.bound.items()
            if q in {f"agents.{n}" for n in AGENTS_ONLY}
        ]
        f.uses_agents = min(agents) if agents else 0
        self._exclusions()
        self._subclasses()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Attribute):
                self._module_client(node)
            elif isinstance(node, ast.Assign):
                self._assign(node)
        own_scope(self)
        f.constants = self.flow.module_constants()
        return f

    # -- where migrate leaves things alone -----------------------------------------------------------
    def _exclusions(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.If) and mentions_azure(node.test):
                block = node.orelse if negated(node.test) else node.body
                if block:
                    self.excluded.append((block[0].lineno, block[-1].end_lineno or block[-1].lineno))
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if sets_azure_type(t, node.value) and not self.in_excluded(t.lineno):
                        self.azure_file = True
            elif (
                isinstance(node, ast.Call)
                and len(node.args) == 2
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("setdefault", "putenv")
                and sets_azure_type(node.args[0], node.args[1])
            ):
                self.azure_file = True

    def in_excluded(self, line: int) -> bool:
        return any(a <= line <= b for a, b in self.excluded)

    def _subclasses(self) -> None:
        for node in self.tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            for base in node.bases:
                spelling = spelling_for(self.names.qualname(base)) or (
                    self.local_classes.get(base.id) if isinstance(base, ast.Name) else None
                )
                if spelling is None:
                    continue
                self.local_classes[node.name] = spelling
                self.facts.subclasses[node.name] = (self.names.qualname(base) or "").rpartition(".")[2]
                init = next(
                    (
                        s
                        for s in node.body
                        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"
                    ),
                    None,
                )
                self.super_inits[node.name] = init is not None

    # -- calls --------------------------------------------------------------------------------------
    def _client_of(self, call: ast.Call, scope: Scope) -> pv.Client | None:
        """The client a constructor call builds, with its key (for handoffs and the Agents' traces)."""
        func = call.func
        spelling = spelling_for(self.names.qualname(func))
        if spelling is None and isinstance(func, ast.Name):
            spelling = self.local_classes.get(func.id)
        if spelling is None:
            return None
        kwargs, star = self._kwargs(call, scope)
        return pv.Client(
            spelling.sdk, self._arg(kwargs, star, spelling.key_kws, scope, spelling.key_default, mark=False)
        )

    def _call(self, call: ast.Call) -> None:
        q = self.names.qualname(call.func)
        scope = self.flow.scope_for(call)
        if isinstance(call.func, ast.Name) and call.func.id in self.local_classes:
            if not self.super_inits[call.func.id]:
                self._constructor(call, self.local_classes[call.func.id], f"{call.func.id}()", scope)
            return
        if self._is_super_init(call):
            cls = self._enclosing_class(scope)
            if cls is not None and cls in self.local_classes:
                self._constructor(
                    call, self.local_classes[cls], f"{cls}.__init__ -> super().__init__()", scope
                )
            return
        if q in ("functools.partial", "partial") and call.args:
            spelling = spelling_for(self.names.qualname(call.args[0]))
            if spelling is not None:
                name = (self.names.qualname(call.args[0]) or "").rpartition(".")[2]
                self._constructor(call, spelling, f"functools.partial({name}, ...)", scope)
            return
        spelling = spelling_for(q)
        if spelling is not None and not is_azure_call(call, q):
            self._constructor(call, spelling, f"{(q or '').rpartition('.')[2]}()", scope)
        self._framework(call, q, scope)
        self._handoffs(call, q, scope)

    def _is_super_init(self, call: ast.Call) -> bool:
        f = call.func
        return (
            isinstance(f, ast.Attribute)
            and f.attr == "__init__"
            and isinstance(f.value, ast.Call)
            and isinstance(f.value.func, ast.Name)
            and f.value.func.id == "super"
        )

    def _enclosing_class(self, scope: Scope) -> str | None:
        cls = scope.cls
        return cls.name.rpartition(".")[2] if cls is not None else None

    def _kwargs(self, call: ast.Call, scope: Scope) -> tuple[dict[str, ast.expr], pv.Src | None]:
        kwargs = {k.arg: k.value for k in call.keywords if k.arg}
        stars = [k.value for k in call.keywords if k.arg is None]
        star: pv.Src | None = None
        if stars:
            star = pv.one_of(self.flow.translate(s, scope) for s in stars)
        return kwargs, star

    def _arg(
        self,
        kwargs: dict[str, ast.expr],
        star: pv.Src | None,
        names: tuple[str, ...],
        scope: Scope,
        default: pv.Src,
        mark: bool = True,
    ) -> pv.Src:
        for name in names:
            if name in kwargs:
                value = kwargs[name]
                if mark:
                    self._consume(value, scope)
                return pv.Fallback(self.flow.translate(value, scope), default)
        if star is not None:
            chained = default
            for n in reversed(names):  # the first keyword the dict holds wins
                picked = pv.pick(star, (n,))
                if any(isinstance(leaf, (pv.Record, pv.Unknown)) for leaf in leaves(star)):
                    picked = pv.one_of([picked, pv.NO_VALUE])  # a dict migrate cannot see may lack it
                chained = pv.Fallback(picked, chained)
            return chained
        return default

    def _consume(self, value: ast.expr, scope: Scope) -> None:
        """The URL literals a sink reads, also through module-level names: they are not raw URLs."""
        for n in ast.walk(value):
            if isinstance(n, ast.Constant):
                self.consumed.add(id(n))
            elif isinstance(n, ast.Name) and n.id in self.flow.module.binds:
                for bound in self.flow.module.binds[n.id]:
                    for c in ast.walk(bound) if bound is not None else ():
                        if isinstance(c, ast.Constant):
                            self.consumed.add(id(c))

    def _constructor(self, call: ast.Call, spelling: Spelling, label: str, scope: Scope) -> None:
        if self.in_excluded(call.lineno):
            return
        kwargs, star = self._kwargs(call, scope)
        if spelling.client_kws and set(spelling.client_kws) & kwargs.keys():
            return  # a client of its own: configured where that client is built
        maybe = False
        if spelling.model == "litellm":
            model = call.args[0] if call.args else kwargs.get("model")
            text = model.value if isinstance(model, ast.Constant) and isinstance(model.value, str) else None
            if text is not None and "/" in text and not text.startswith("openai/"):
                return  # another provider, through litellm
            maybe = text is None
        url = self._arg(kwargs, star, spelling.url_kws, scope, spelling.url_default)
        key = self._arg(kwargs, star, spelling.key_kws, scope, spelling.key_default)
        given = next((kwargs[k] for k in spelling.url_kws if k in kwargs), None)
        self.facts.sinks.append(
            Sink(
                call.lineno,
                label,
                url,
                key,
                star=star is not None,
                maybe=maybe,
                sdk=spelling.sdk,
                src=self.flow.source_text(given) if given is not None else "",
                can_key=star is None and bool(spelling.key_kws) and not set(spelling.key_kws) & kwargs.keys(),
            )
        )
        given_key = next((kwargs[k] for k in spelling.key_kws if k in kwargs), None)
        if given_key is not None:
            self._key_reads(self.flow.translate(given_key, scope))
        elif (
            star is not None
            and isinstance(table := self._table_of(star), pv.Table)
            and ({k for k, _ in table.items} & set(spelling.key_kws))
        ):
            self._key_reads(pv.one_of(pv.pick(table, (k,)) for k in spelling.key_kws))
        else:
            self._key_reads(key)

    def _table_of(self, src: pv.Src) -> pv.Src:
        """A module-level name bound to a dict literal, as that dict."""
        if isinstance(src, pv.Const) and not src.module and not src.keys:
            return self.flow.module_value(src.name)
        return src

    def _key_reads(self, key: pv.Src) -> None:
        for leaf in leaves(key):
            if isinstance(leaf, pv.Env):
                self.facts.key_reads.add(leaf.name)

    # -- frameworks without a constructor of their own -------------------------------------------------
    def _framework(self, call: ast.Call, q: str | None, scope: Scope) -> None:
        f = self.facts
        if q in ("agents.set_default_openai_key", "agents.set_default_openai_client") and call.args:
            what = "key" if q.endswith("_key") else "client"
            value = self.flow.translate(call.args[0], scope)
            f.agents_default.append((call.lineno, what, value))
            tracing = next((k.value for k in call.keywords if k.arg == "use_for_tracing"), None)
            if not (isinstance(tracing, ast.Constant) and tracing.value is False):
                f.agents_tracing.append((call.lineno, what, value))
            if what == "key":
                self._key_reads(value)
        elif q == "agents.set_tracing_export_api_key" and call.args:
            f.agents_tracing.append((call.lineno, "key", self.flow.translate(call.args[0], scope)))
        elif q == "agents.set_tracing_disabled":
            off = (
                call.args[0]
                if call.args
                else next((k.value for k in call.keywords if k.arg == "disabled"), None)
            )
            if isinstance(off, ast.Constant) and off.value is True:
                f.agents_tracing.append((call.lineno, "off", pv.NO_VALUE))
        elif q == "agents.Agent" and f.uses_agents and "model_provider" not in self.text:
            model = next((k.value for k in call.keywords if k.arg == "model"), None)
            if model is None or isinstance(model, ast.Constant):
                f.agents_lines.append(call.lineno)
                f.key_reads.add("OPENAI_API_KEY")
        elif q == "pydantic_ai.Agent" or (q or "").startswith("pydantic_ai.models.openai.OpenAI"):
            model = (
                call.args[0]
                if call.args
                else next((k.value for k in call.keywords if k.arg in ("model", "model_name")), None)
            )
            text = model.value if isinstance(model, ast.Constant) and isinstance(model.value, str) else None
            is_model_class = q != "pydantic_ai.Agent"
            has_provider = any(k.arg == "provider" for k in call.keywords)
            if (text is not None and text.startswith("openai:") and not is_model_class) or (
                is_model_class and not has_provider and text is not None
            ):
                label = (
                    f"Agent({text!r})" if not is_model_class else f"{(q or '').rpartition('.')[2]}({text!r})"
                )
                f.sinks.append(Sink(call.lineno, label, OPENAI_URL, OPENAI_KEY))
                f.key_reads.add("OPENAI_API_KEY")

    def _handoffs(self, call: ast.Call, q: str | None, scope: Scope) -> None:
        if not q or q.split(".")[0] not in FRAMEWORKS:
            return
        values = [*call.args, *(k.value for k in call.keywords if k.arg)]
        for value in values:
            if isinstance(value, (ast.Name, ast.Attribute, ast.Call)):
                src = self.flow.translate(value, scope)
                if any(isinstance(leaf, (pv.Client, pv.Const)) for leaf in leaves(src)):
                    self.facts.handoffs.append(Handoff(call.lineno, q, src))

    def _assign(self, node: ast.Assign) -> None:
        """Mem0 / AutoGen 0.2 config dicts are sinks too (an entry of an OpenAI model or provider)."""
        scope = self.flow.scope_for(node.value) if isinstance(node.value, ast.Call) else self.flow.module
        for d in ast.walk(node.value):
            if isinstance(d, ast.Dict):
                self._config_dict(d, scope)

    def _config_dict(self, d: ast.Dict, scope: Scope) -> None:
        keys = {k.value: v for k, v in zip(d.keys, d.values, strict=True) if isinstance(k, ast.Constant)}
        imported = {q.split(".")[0] for q in self.names.bound.values()}
        provider = keys.get("provider")
        if "mem0" in imported and isinstance(provider, ast.Constant) and provider.value == "openai":
            config = keys.get("config")
            if isinstance(config, ast.Dict):
                table = self.flow.translate(config, scope)
                url = pv.Fallback(pv.pick(table, ("openai_base_url",)), OPENAI_URL)
                key = pv.Fallback(pv.pick(table, ("api_key",)), OPENAI_KEY)
                self.facts.sinks.append(Sink(d.lineno, "Mem0 openai config", url, key))
            return
        model = keys.get("model")
        if (
            "autogen" in imported
            and isinstance(model, ast.Constant)
            and isinstance(model.value, str)
            and model.value.startswith(("gpt-", "o1", "o3", "o4"))
            and "api_key" in keys
            and "api_type" not in keys
        ):
            table = self.flow.translate(d, scope)
            url = pv.Fallback(
                pv.pick(table, ("base_url",)), pv.Fallback(pv.pick(table, ("api_base",)), OPENAI_URL)
            )
            key = pv.Fallback(pv.pick(table, ("api_key",)), OPENAI_KEY)
            self.facts.sinks.append(Sink(d.lineno, "AutoGen config entry", url, key))

    # -- the openai module client -----------------------------------------------------------------------
    def _module_client(self, node: ast.Attribute) -> None:
        if self.names.qualname(node.value) != "openai" or self.azure_file or self.in_excluded(node.lineno):
            return
        f = self.facts
        if isinstance(node.ctx, ast.Load) and node.attr in (V1_RESOURCES | V0_RESOURCES):
            f.module_uses.append(node.lineno)


def extract(path: str, text: str) -> Facts:
    """The proof's facts of one Python source.

    Raises:
        SyntaxError: it does not parse (the caller has reported the file already).
    """
    return _Extractor(path, text).run()
