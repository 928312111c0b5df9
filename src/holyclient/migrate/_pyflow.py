"""Python expressions as provenance sources (:mod:`._provenance`): where a value comes from.

Flow-insensitive and scope-aware, the way a reader follows a name: a name is every value it is
assigned in its function (then the enclosing ones, then the module); a module-level name is a
:class:`~._provenance.Const` resolved once the whole run is known (other modules may import it); a
parameter, or anything read from a value migrate cannot follow, is a :class:`~._provenance.Record`
named after it. ``self.x`` is every ``self.x = ...`` of the class. Calls migrate knows are followed:
``os.environ`` / ``getenv``, ``dict.get``, Haystack's ``Secret``, ``configparser`` / ``json`` /
``tomllib`` / YAML reads of a named file, and functions of the module (their ``return`` values).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from . import _provenance as pv
from ._pynames import Names
from ._pyscopes import Scope, Scopes, chain, string
from ._pysource import segment, source_lines

_ENV_READS = {"os.getenv", "os.environ.get", "os.environ.setdefault"}
_LOADERS = {
    "json.load",
    "json.loads",
    "tomllib.load",
    "tomllib.loads",
    "tomli.load",
    "yaml.safe_load",
    "yaml.load",
    "yaml.full_load",
    "toml.load",
}
_PASS_THROUGH = {"str", "strip", "rstrip", "get_secret_value", "SecretStr", "resolve_value", "format"}
_MAX_DEPTH = 12


class Flow(Scopes):
    """The translation of one module's expressions into sources, over its scopes."""

    def __init__(
        self,
        tree: ast.Module,
        names: Names,
        text: str,
        client_of: Callable[[ast.Call, Scope], pv.Client | None] | None = None,
    ) -> None:
        super().__init__(tree, names)
        self.calls_to: dict[str, list[ast.Call]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                self.calls_to.setdefault(node.func.id, []).append(node)
        self.client_of = client_of
        self.text = text
        self._lines: list[str] | None = None
        self._active: set[tuple[int, str]] = set()

    def scope_for(self, node: ast.AST) -> Scope:
        return self.scope_of.get(id(node), self.module)

    def lookup(self, name: str, scope: Scope, depth: int) -> pv.Src:
        s: Scope | None = scope
        first = True
        while s is not None:
            if s.kind == "class" and not first:
                s = s.parent  # class bodies are not enclosing scopes of their methods
                continue
            if s.kind == "module":
                return self._module_name(name)
            if name in s.imports:
                mod, orig = s.imports[name]
                return pv.Const(mod, orig) if orig else pv.Unknown(f"the module {mod}")
            if name in s.params and name not in s.binds:
                default = s.params[name]
                record: pv.Src = pv.Record(name, s.name)
                options = [record, *self._arguments(s, name, depth)]
                if default is not None:
                    options.append(self.translate(default, s, depth))
                return pv.one_of(options)
            if name in s.binds:
                return self._bound(name, s, depth)
            first = False
            s = s.parent
        return self._module_name(name)

    def _arguments(self, function: Scope, param: str, depth: int) -> list[pv.Src]:
        """What the module's own calls of a module-level function pass for ``param`` (other modules may
        call it too: the parameter stays a record as well)."""
        fname = function.name
        key = (id(function), "param:" + param)
        if function.parent is not self.module or fname not in self.functions or key in self._active:
            return []
        self._active.add(key)
        try:
            return self._passed(fname, function, param, depth)
        finally:
            self._active.discard(key)

    def _passed(self, fname: str, function: Scope, param: str, depth: int) -> list[pv.Src]:
        out: list[pv.Src] = []
        index = function.positional.index(param) if param in function.positional else -1
        for call in self.calls_to.get(fname, []):
            caller = self.scope_for(call)
            if 0 <= index < len(call.args) and not any(
                isinstance(a, ast.Starred) for a in call.args[: index + 1]
            ):
                out.append(self.translate(call.args[index], caller, depth))
            out.extend(self.translate(k.value, caller, depth) for k in call.keywords if k.arg == param)
        return out

    def _module_name(self, name: str) -> pv.Src:
        if name in self.module.binds or name in self.module.stores:
            return pv.Const("", name)
        if name in self.relative:
            mod, orig = self.relative[name]
            return pv.Const(mod, orig)
        q = self.names.bound.get(name)
        if q is not None and "." in q:
            mod, _, orig = q.rpartition(".")
            return pv.Const(mod, orig)
        return pv.Unknown(name)

    def _bound(self, name: str, scope: Scope, depth: int) -> pv.Src:
        key = (id(scope), name)
        if key in self._active:
            return pv.Unknown(name)
        self._active.add(key)
        try:
            options: list[pv.Src] = []
            for value in scope.binds.get(name, []):
                if value is None:
                    options.append(pv.Record(name, scope.name))
                else:
                    options.append(self.translate(value, scope, depth, name))
            if name in scope.config_files:
                return pv.Config(scope.config_files[name] or "?")
            stores = scope.stores.get(name, [])
            if stores:
                options = [self._with_stores(o, stores, scope, depth, name in scope.opened) for o in options]
            elif name in scope.opened:
                options = [pv.Table(o.items, True) if isinstance(o, pv.Table) else o for o in options]
            return pv.one_of(options) if options else pv.Record(name, scope.name)
        finally:
            self._active.discard(key)

    def _with_stores(
        self, base: pv.Src, stores: list[tuple[str, ast.expr]], scope: Scope, depth: int, opened: bool
    ) -> pv.Src:
        if not isinstance(base, pv.Table):
            return base
        items = list(base.items)
        for key, value in stores:
            # a store may or may not run (it is often behind an `if`): the key may also be missing
            before = [v for k, v in items if k == key]
            items.append((key, pv.one_of([self.translate(value, scope, depth), *(before or [pv.NO_VALUE])])))
        return pv.Table(tuple(items), base.open or opened)

    def module_value(self, name: str) -> pv.Src:
        """What a module-level name is bound to, as a source."""
        return self._bound(name, self.module, 0)

    def module_constants(self) -> dict[str, pv.Src]:
        """Every module-level name bound to something, as a source (other modules may import it)."""
        out: dict[str, pv.Src] = {}
        for name in self.module.binds:
            if name in self.functions:
                continue
            out[name] = self._bound(name, self.module, 0)
        for name, (mod, orig) in self.relative.items():
            out.setdefault(name, pv.Const(mod, orig))
        for name, q in self.names.bound.items():
            if "." in q and name not in out:
                mod, _, orig = q.rpartition(".")
                out[name] = pv.Const(mod, orig)
        return out

    # -- expressions -------------------------------------------------------------------------------
    def source_text(self, node: ast.expr) -> str:
        if self._lines is None:
            self._lines = source_lines(self.text)
        src = (segment(self._lines, node) or "...").replace("\n", " ")
        return src if len(src) <= 60 else src[:57] + "..."

    def translate(self, expr: ast.expr, scope: Scope, depth: int = 0, name: str = "") -> pv.Src:
        """The source of ``expr`` evaluated in ``scope`` (``name``: the variable it is bound to)."""
        if depth > _MAX_DEPTH:
            return pv.Unknown(self.source_text(expr))
        d = depth + 1
        if isinstance(expr, ast.Constant):
            if isinstance(expr.value, str):
                return pv.literal(expr.value, name)
            return pv.NO_VALUE if expr.value is None else pv.Unknown(repr(expr.value)[:20])
        if isinstance(expr, ast.Name):
            return self.lookup(expr.id, scope, d)
        if isinstance(expr, (ast.JoinedStr, ast.BinOp)):
            return self._joined(expr, scope, d)
        if isinstance(expr, ast.IfExp):
            return pv.one_of(
                [self.translate(expr.body, scope, d, name), self.translate(expr.orelse, scope, d, name)]
            )
        if isinstance(expr, ast.BoolOp):
            return pv.one_of(self.translate(v, scope, d, name) for v in expr.values)
        if isinstance(expr, (ast.Await, ast.NamedExpr)):
            return self.translate(expr.value, scope, d, name)
        if isinstance(expr, ast.Dict):
            return self._table(expr, scope, d)
        if isinstance(expr, ast.Attribute):
            return self._attribute(expr, scope, d)
        if isinstance(expr, ast.Subscript):
            if self._qual(expr.value) == "os.environ":
                var = string(expr.slice)
                return pv.Env(var, required=True) if var else pv.Unknown(self.source_text(expr))
            return self._pick(expr.value, string(expr.slice) or "*", scope, d)
        if isinstance(expr, ast.Call):
            return self._call(expr, scope, d)
        return pv.Unknown(self.source_text(expr))

    def _joined(self, expr: ast.JoinedStr | ast.BinOp, scope: Scope, depth: int) -> pv.Src:
        """A built string: its URL is the URL its first part starts; as a key, ``f"{key}"`` is ``key``."""
        parts: list[ast.expr] = []
        if isinstance(expr, ast.JoinedStr):
            parts = list(expr.values)
        elif isinstance(expr.op, (ast.Add, ast.Mod)):
            parts = [expr.left, expr.right]
        if not parts:
            return pv.Unknown(self.source_text(expr))
        first = parts[0]
        if isinstance(first, ast.FormattedValue):
            first = first.value
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return pv.Lit(pv.url_class(first.value), pv.UNKNOWN)
        inner = self.translate(first, scope, depth)
        return (
            inner
            if len(parts) == 1 or isinstance(expr, ast.BinOp) or _url_like(inner)
            else pv.Unknown(self.source_text(expr))
        )

    def _table(self, expr: ast.Dict, scope: Scope, depth: int) -> pv.Table:
        items: list[tuple[str, pv.Src]] = []
        open_ = False
        for k, v in zip(expr.keys, expr.values, strict=True):
            key = string(k) if k is not None else None
            if k is None:
                spread = self.translate(v, scope, depth)
                if isinstance(spread, pv.Table):
                    items.extend(spread.items)
                    open_ = open_ or spread.open
                else:
                    open_ = True
            elif key is not None:
                items.append((key, self.translate(v, scope, depth, key)))
        return pv.Table(tuple(items), open_)

    def _attribute(self, expr: ast.Attribute, scope: Scope, depth: int) -> pv.Src:
        base = expr.value
        if isinstance(base, ast.Name):
            if base.id == "self" and scope.cls is not None:
                found = self.self_attrs.get(id(scope.cls), {}).get(expr.attr)
                if found:
                    return pv.one_of(self.translate(v, s, depth, expr.attr) for v, s in found)
                return pv.Record("self", scope.cls.name)
            q = self.names.bound.get(base.id)
            local = base.id in scope.binds or base.id in scope.params
            if q is not None and not local and ("." not in q or self._is_module_import(base.id)):
                return pv.Const(q, expr.attr)
            if base.id in self.relative and not self._bound_locally(base.id, scope):
                mod, orig = self.relative[base.id]
                return pv.Const(f"{mod}.{orig}" if not mod.endswith(".") else mod + orig, expr.attr)
        return self._pick(base, expr.attr, scope, depth)

    def _is_module_import(self, local: str) -> bool:
        node = self.names.import_of.get(local)
        return isinstance(node, ast.Import) or (
            isinstance(node, ast.ImportFrom) and local[:1].islower() and not any(c.isupper() for c in local)
        )

    def _bound_locally(self, name: str, scope: Scope) -> bool:
        return any(name in s.binds or name in s.params for s in chain(scope) if s.kind != "module")

    def _pick(self, base: ast.expr, key: str, scope: Scope, depth: int) -> pv.Src:
        inner = self.translate(base, scope, depth)
        if isinstance(inner, pv.Unknown) and isinstance(base, ast.Name):
            inner = pv.Record(base.id, scope.name)
        return pv.pick(inner, (key,))

    def _call(self, call: ast.Call, scope: Scope, depth: int) -> pv.Src:
        q = self._qual(call.func) or ""
        func = call.func
        method = (
            func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        )
        args = call.args
        if self.client_of is not None:
            client = self.client_of(call, scope)
            if client is not None:
                return client
        if method in ("with_options", "copy") and isinstance(func, ast.Attribute):
            return self.translate(func.value, scope, depth)
        if method == "as_openai" and isinstance(func, ast.Attribute):
            inner = self.translate(func.value, scope, depth)
            keys = [c.key for c in _flat(inner) if isinstance(c, pv.Client) and c.key is not None]
            return pv.Client("openai", pv.one_of(keys) if keys else None)
        if q in _ENV_READS or (
            method in ("get", "getenv")
            and isinstance(func, ast.Attribute)
            and self._qual(func.value) == "os.environ"
        ):
            var = string(args[0]) if args else None
            if var is None:
                return pv.Unknown(self.source_text(call))
            default = (
                args[1]
                if len(args) > 1
                else next((k.value for k in call.keywords if k.arg == "default"), None)
            )
            return pv.Env(var, self.translate(default, scope, depth, var) if default is not None else None)
        if method in ("from_token",) and args:
            return self.translate(args[0], scope, depth)
        if method == "from_env_var" and args:
            names = [args[0]] if not isinstance(args[0], (ast.List, ast.Tuple)) else list(args[0].elts)
            found = [string(n) for n in names]
            if all(found):
                return pv.one_of(pv.Env(n, required=True) for n in found if n)
            return pv.Unknown(self.source_text(call))
        if q in _LOADERS or (
            method in ("safe_load", "load", "loads")
            and q.split(".")[0] in ("json", "yaml", "tomllib", "tomli", "toml")
        ):
            file = self._file_of(args[0], scope) if args else None
            return pv.Config(file) if file else pv.Unknown(self.source_text(call))
        if (method == "open" and isinstance(func, ast.Name)) or method in ("read_text", "read_bytes", "read"):
            file = self._file_of(call, scope)
            if file:
                return pv.Config(file)
        if method == "get" and isinstance(func, ast.Attribute) and args:
            key = string(args[0])
            base = self.translate(func.value, scope, depth)
            if (
                isinstance(base, pv.Config) and len(args) >= 2 and string(args[1])
            ):  # parser.get(section, option)
                return pv.Config(base.file, (*base.keys, key or "*", (string(args[1]) or "*")))
            if isinstance(base, pv.Unknown) and isinstance(func.value, ast.Name):
                base = pv.Record(func.value.id, scope.name)
            picked = pv.pick(base, (key or "*",))
            default = args[1] if len(args) > 1 else None
            return pv.one_of(
                [picked, self.translate(default, scope, depth) if default is not None else pv.NO_VALUE]
            )
        if method in _PASS_THROUGH:
            if isinstance(func, ast.Attribute) and method in (
                "strip",
                "get_secret_value",
                "format",
                "resolve_value",
            ):
                return self.translate(func.value, scope, depth)
            if isinstance(func, ast.Name) and args:  # str(x), SecretStr(x)
                return self.translate(args[0], scope, depth)
        if (
            isinstance(func, ast.Name)
            and func.id in self.functions
            and not self._bound_locally(func.id, scope)
        ):
            return self._returns(self.functions[func.id], depth)
        return pv.Unknown(self.source_text(call))

    def _returns(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, depth: int) -> pv.Src:
        scope = self.scope_of.get(id(fn), self.module)
        values = [r.value for r in _own_returns(fn) if r.value is not None]
        if not values:
            return pv.NO_VALUE
        return pv.one_of(self.translate(v, scope, depth) for v in values)


def _flat(src: pv.Src) -> list[pv.Src]:
    return list(src.options) if isinstance(src, pv.OneOf) else [src]


def _own_returns(fn: ast.AST) -> Iterator[ast.Return]:
    for child in ast.iter_child_nodes(fn):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(child, ast.Return):
            yield child
        yield from _own_returns(child)


def _url_like(src: pv.Src) -> bool:
    return isinstance(src, pv.Lit) and src.url not in (pv.UNKNOWN, pv.NONE)
