"""Griffe extension: Sphinx roles in docstrings become mkdocstrings cross-references, and defaults
that name a constant show its value.

The source keeps the roles (``:class:`~holyclient.Client```) that read well in an editor; on the API
reference page each becomes ``[`Client`][holyclient.Client]`` when its target is rendered there, and
plain code otherwise (a private module, a helper not on the page), so ``mkdocs build --strict`` never
meets a link it cannot resolve. A default written as ``max_retries: int = DEFAULT_MAX_RETRIES`` says
nothing on a page that does not show the constant: the signature shows ``= 2`` instead.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|meth|func|data|attr|mod|exc|obj):`(~?)([\w.]+)(?:\(\))?`")
LITERAL = re.compile(r"-?[\d_.]+(?:e-?\d+)?|True|False|None|'[^']{0,30}'|\"[^\"]{0,30}\"")
PAGE = Path(__file__).resolve().parents[1] / "reference" / "python.md"


def _rendered_roots() -> set[str]:
    return {
        line[4:].strip() for line in PAGE.read_text(encoding="utf-8").splitlines() if line.startswith("::: ")
    }


class RolesToReferences(griffe.Extension):
    """Rewrite every docstring of the package once it is loaded."""

    def __init__(self) -> None:
        super().__init__()
        self.roots = _rendered_roots()

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _walk(pkg):
            if isinstance(obj, griffe.Function):
                _show_constant_defaults(pkg, obj)
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = ROLE.sub(
                    lambda m, o=obj: self._reference(pkg, o, m), obj.docstring.value
                )

    def _reference(self, pkg: griffe.Module, obj: griffe.Object, match: re.Match[str]) -> str:
        short, target = match.group(1), match.group(2).lstrip(".")
        shown = target.rsplit(".", 1)[-1] if short else target
        for path in _candidates(pkg, obj, target):
            if self._rendered(path) and _exists(pkg, path):
                return f"[`{shown}`][{path}]"
        return f"`{shown}`"

    def _rendered(self, path: str) -> bool:
        if "._" in path:
            return False
        return any(path == root or path.startswith(root + ".") for root in self.roots)


def _walk(obj: griffe.Object) -> list[griffe.Object]:
    found = [obj]
    for member in obj.members.values():
        if not member.is_alias and member.is_kind(
            {griffe.Kind.MODULE, griffe.Kind.CLASS, griffe.Kind.FUNCTION, griffe.Kind.ATTRIBUTE}
        ):
            found.extend(_walk(member))  # type: ignore[arg-type]
    return found


def _candidates(pkg: griffe.Module, obj: griffe.Object, target: str) -> list[str]:
    """Where ``target`` may live, nearest first: the object, its class, its module, the package."""
    scopes = []
    scope: Any = obj
    while scope is not None:
        scopes.append(scope.path)
        scope = scope.parent
    paths = [target] if target.startswith(pkg.name + ".") else []
    paths += [f"{scope_path}.{target}" for scope_path in scopes]
    # a public name re-exported by a package face: holyclient.batch.BatchRunner, holyclient.Client
    paths += [f"{pkg.name}.{target}"]
    return paths


def _exists(pkg: griffe.Module, path: str) -> bool:
    """The target is on the page as a heading: a module, class or function (not a constant)."""
    try:
        found = pkg[path.removeprefix(pkg.name + ".")]
        # undocumented module constants get no heading on the page: nothing to link to
        return not found.is_attribute
    except Exception:  # KeyError, or an alias that does not resolve
        return False


def _show_constant_defaults(pkg: griffe.Module, function: griffe.Function) -> None:
    for parameter in function.parameters:
        default = parameter.default
        if not isinstance(default, griffe.ExprName) or not default.name.isupper():
            continue
        try:
            constant = pkg[default.canonical_path.removeprefix(pkg.name + ".")]
        except Exception:  # not ours, or not resolvable: keep the name
            continue
        value = str(constant.value) if constant.is_attribute and constant.value is not None else ""
        if LITERAL.fullmatch(value):  # a number, a short string, True/False/None; not NOT_GIVEN's object
            parameter.default = value
