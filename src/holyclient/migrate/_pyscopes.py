"""Scopes of a Python module for :mod:`._pyflow`: what each name is bound to in each function, class
and the module (assignments, parameters with their defaults, ``d["k"] = v`` stores, config parsers and
the files they read, ``self.x`` of each class, relative imports), and which scope each call is in."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from ._pynames import Names


@dataclass
class Scope:
    """One function, class or the module: what each name is bound to inside it."""

    kind: str  # "module" | "function" | "class"
    name: str
    parent: Scope | None
    binds: dict[str, list[ast.expr | None]] = field(default_factory=dict)  # None: bound opaquely
    params: dict[str, ast.expr | None] = field(default_factory=dict)  # name -> default
    stores: dict[str, list[tuple[str, ast.expr]]] = field(default_factory=dict)  # name["k"] = v
    opened: set[str] = field(default_factory=set)  # dicts changed in ways migrate cannot see
    config_files: dict[str, str] = field(default_factory=dict)  # parser name -> file it read
    global_names: set[str] = field(default_factory=set)
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # local -> (module, name or "")
    cls: Scope | None = None  # the class of a method

    positional: list[str] = field(default_factory=list)  # a function's positional parameters, in order

    def bind(self, name: str, value: ast.expr | None) -> None:
        self.binds.setdefault(name, []).append(value)


class Scopes:
    """What every name of one module is bound to, scope by scope (the tables :class:`~._pyflow.Flow`
    translates names with)."""

    def __init__(self, tree: ast.Module, names: Names) -> None:
        self.names = names
        self.module = Scope("module", "", None)
        self.scope_of: dict[int, Scope] = {}  # id(node) -> the scope it is evaluated in
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.self_attrs: dict[int, dict[str, list[tuple[ast.expr, Scope]]]] = {}  # id(class scope) ->
        self.relative: dict[str, tuple[str, str]] = {}  # local -> (".mod", name) for relative imports
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                mod = "." * node.level + (node.module or "")
                for a in node.names:
                    if a.name != "*":
                        self.relative[a.asname or a.name] = (mod, a.name)
        self._build(tree.body, self.module)

    # -- scopes -----------------------------------------------------------------------------------
    def _build(self, body: list[ast.stmt], scope: Scope) -> None:
        for stmt in body:
            self._stmt(stmt, scope)

    def _stmt(self, stmt: ast.stmt, scope: Scope) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope.bind(stmt.name, None)
            if scope.kind == "module":
                self.functions[stmt.name] = stmt
            inner = Scope("function", f"{scope.name}.{stmt.name}".lstrip("."), scope)
            inner.cls = scope if scope.kind == "class" else None
            args = stmt.args
            positional = [*args.posonlyargs, *args.args]
            defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(
                args.defaults
            )
            for arg, d in zip(positional, defaults, strict=True):
                inner.params[arg.arg] = d
                inner.positional.append(arg.arg)
            for arg, kd in zip(args.kwonlyargs, args.kw_defaults, strict=True):
                inner.params[arg.arg] = kd
            for extra in (args.vararg, args.kwarg):
                if extra is not None:
                    inner.params[extra.arg] = None
            self.scope_of[id(stmt)] = inner
            for deco in stmt.decorator_list:
                self._expr_scopes(deco, scope)
            self._build(stmt.body, inner)
            return
        if isinstance(stmt, ast.ClassDef):
            scope.bind(stmt.name, None)
            inner = Scope("class", f"{scope.name}.{stmt.name}".lstrip("."), scope)
            self.scope_of[id(stmt)] = inner
            self.self_attrs[id(inner)] = {}
            self._build(stmt.body, inner)
            return
        if isinstance(stmt, (ast.Global, ast.Nonlocal)):
            scope.global_names.update(stmt.names)
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                self._bind_target(target, stmt.value, scope)
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
            self._bind_target(stmt.target, stmt.value if isinstance(stmt, ast.AnnAssign) else None, scope)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            self._bind_target(stmt.target, None, scope)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    self._bind_target(item.optional_vars, item.context_expr, scope)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)) and scope.kind != "module":
            # module-level imports are the Names table's; a function's own import shadows them there
            for a in stmt.names:
                if a.name == "*":
                    continue
                if isinstance(stmt, ast.Import):
                    scope.imports[a.asname or a.name.split(".")[0]] = (
                        (a.asname and a.name) or a.name.split(".")[0],
                        "",
                    )
                else:
                    mod = "." * stmt.level + (stmt.module or "")
                    scope.imports[a.asname or a.name] = (mod, a.name)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self._effect(stmt.value, scope)
        elif isinstance(stmt, ast.Try):
            for handler in stmt.handlers:
                if handler.name:
                    scope.bind(handler.name, None)
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.stmt):
                self._stmt(child, scope)
            elif isinstance(child, ast.expr):
                self._expr_scopes(child, scope)
            elif isinstance(child, ast.withitem):
                self._expr_scopes(child.context_expr, scope)
            elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                for s in child.body:
                    self._stmt(s, scope)

    def _expr_scopes(self, expr: ast.expr, scope: Scope) -> None:
        """Record the scope of every call and lambda inside ``expr`` (walrus targets bind here)."""
        for node in ast.walk(expr):
            if isinstance(node, ast.Call):
                self.scope_of[id(node)] = scope
            elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                scope.bind(node.target.id, node.value)
            elif isinstance(node, ast.comprehension):
                for n in ast.walk(node.target):
                    if isinstance(n, ast.Name):
                        scope.bind(n.id, None)

    def _bind_target(self, target: ast.expr, value: ast.expr | None, scope: Scope) -> None:
        home = self.module if isinstance(target, ast.Name) and target.id in scope.global_names else scope
        if isinstance(target, ast.Name):
            home.bind(target.id, value)
            if isinstance(value, ast.Call) and self._qual(value.func) in (
                "configparser.ConfigParser",
                "configparser.RawConfigParser",
            ):
                home.config_files.setdefault(target.id, "")
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._bind_target(elt.value if isinstance(elt, ast.Starred) else elt, None, scope)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            key = string(target.slice)
            if key is None or value is None:
                scope.opened.add(target.value.id)
            else:
                scope.stores.setdefault(target.value.id, []).append((key, value))
        elif (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and scope.cls is not None
            and value is not None
        ):
            self.self_attrs[id(scope.cls)].setdefault(target.attr, []).append((value, scope))

    def _effect(self, call: ast.Call, scope: Scope) -> None:
        """``parser.read("settings.ini")``, ``d.update(...)``: calls that change what a name holds."""
        func = call.func
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
            return
        name = func.value.id
        if func.attr in ("read", "read_file") and call.args:
            file = string(call.args[0])
            if file is None and isinstance(call.args[0], ast.Call) and call.args[0].args:
                file = string(call.args[0].args[0])  # read_file(open("x.ini"))
            for s in chain(scope):
                if name in s.config_files:
                    s.config_files[name] = file or "?"
                    break
        elif func.attr in ("update", "setdefault", "pop", "clear", "__setitem__"):
            scope.opened.add(name)

    # -- names -------------------------------------------------------------------------------------
    def _qual(self, expr: ast.expr) -> str | None:
        return self.names.qualname(expr)

    def _file_of(self, expr: ast.expr, scope: Scope) -> str | None:
        """The file named by ``open("x")``, ``Path("x").read_text()``, ``os.path.join(HERE, "x")``,
        ``Path(__file__).parent / "x"`` or a ``with open(...) as f``: its last literal part."""
        if isinstance(expr, ast.Constant):
            return string(expr)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
            return string(expr.right)
        if isinstance(expr, ast.Call):
            callee = self._qual(expr.func) or getattr(expr.func, "id", "")
            if expr.args and callee in ("open", "io.open", "pathlib.Path", "Path", "os.path.join"):
                return self._file_of(expr.args[-1] if callee == "os.path.join" else expr.args[0], scope)
            if isinstance(expr.func, ast.Attribute):
                return self._file_of(expr.func.value, scope)
        if isinstance(expr, ast.Name):
            for s in chain(scope):
                for value in s.binds.get(expr.id, []):
                    if value is not None and value is not expr:
                        return self._file_of(value, s)
        return None


def chain(scope: Scope) -> Iterator[Scope]:
    s: Scope | None = scope
    while s is not None:
        yield s
        s = s.parent


def string(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
