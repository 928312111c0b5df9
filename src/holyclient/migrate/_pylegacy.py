"""openai<1.0 and the module-level client (``openai.api_key = ...``; ``openai.ChatCompletion.create``):
the part of the Python rewriter that configures the ``openai`` module itself. Split from
:mod:`._python` to keep each module small; it works on that module's rewriter state, seen through
:class:`RewriterState` so that this module needs nothing from :mod:`._python`."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Protocol

from . import _pynames as pn
from ._edits import indent_of
from ._rules import NEW_KEY

if TYPE_CHECKING:
    from ._edits import Edit, Lines
    from ._pysource import Pos
    from ._report import Finding
    from ._rules import KeyMode


class RewriterState(Protocol):
    """What :func:`module_level` reads and extends of the Python rewriter (``_python._Rewriter``)."""

    text: str
    keys: KeyMode
    pos: Pos
    lines: Lines
    nl: str
    tree: ast.Module
    assigns: list[ast.Assign]
    attributes: list[ast.Attribute]
    names: pn.Names
    edits: list[Edit[str]]
    findings: list[Finding]
    azure_file: bool

    def line(self, offset: int) -> int: ...
    def in_excluded(self, offset: int) -> bool: ...
    def base_url(self, slash: bool = False) -> str: ...
    def os_environ(self) -> str: ...
    def literal_key(self, line: int, what: str, value: ast.expr | None) -> None: ...
    def reaches_relay(self, line: int, value: ast.expr) -> bool: ...


def module_level(self: RewriterState) -> None:
    """openai<1.0 (``openai.ChatCompletion.create``) or a module-level client used without a base URL:
    set ``openai.api_base`` / ``openai.base_url`` (and the key) after the import."""
    alias = next((local for local, q in self.names.bound.items() if q == "openai"), None)
    if alias is None or self.azure_file:
        return
    used: set[str] = set()
    configured: set[str] = set()
    for attr_node in self.attributes:
        if self.names.qualname(attr_node.value) != "openai":
            continue
        if isinstance(attr_node.ctx, ast.Store):
            # configuration inside an Azure branch says nothing about the other path
            if not self.in_excluded(self.pos.node(attr_node)[0]):
                configured.add(attr_node.attr)
        elif attr_node.attr in pn.V0_RESOURCES:
            used.add("v0")
        elif attr_node.attr in pn.V1_RESOURCES:
            used.add("v1")
    base_assign: ast.Assign | None = None
    for node in self.assigns:
        targets = [
            t.attr
            for t in node.targets
            if isinstance(t, ast.Attribute) and self.names.qualname(t.value) == "openai"
        ]
        start = self.pos.node(node)[0]
        if {"api_base", "base_url"} & set(targets) and not self.in_excluded(start):
            base_assign = node
        if "api_key" in targets:
            self.literal_key(self.line(start), "openai.api_key", node.value)
    if (
        base_assign is not None
        and "api_key" not in configured
        and self.keys == "rename"
        and self.reaches_relay(base_assign.lineno, base_assign.value)
    ):
        # the module client reads OPENAI_API_KEY by default: beside a base URL pointed at the relay,
        # it is given HolySheep's key
        indent = indent_of(self.text[self.lines.start(base_assign.lineno) : self.pos.node(base_assign)[0]])
        eol = self.lines.end(base_assign.end_lineno or base_assign.lineno)
        self.edits.append((eol, eol, f'{self.nl}{indent}{alias}.api_key = {self.os_environ()}["{NEW_KEY}"]'))
        self.findings.append(
            (
                base_assign.lineno,
                "module-base",
                "rewrite",
                f"module-level openai: set {alias}.api_key from {NEW_KEY}",
            )
        )
    if not used or configured & {"api_base", "base_url"}:
        return
    attr = "api_base" if "v0" in used else "base_url"
    imp = self.names.import_of[alias]
    top = [s for s in self.tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
    anchor: ast.stmt = top[-1] if imp in self.tree.body else imp
    indent = indent_of(self.text[self.lines.start(anchor.lineno) : self.pos.node(anchor)[0]])
    # the module client uses base_url as it is given: without a trailing slash, "chat/completions" would be
    # joined onto "v1" (openai's own clients add the slash; its module-level one does not)
    new = [f"{alias}.{attr} = {self.base_url(slash=attr == 'base_url')}"]
    if "api_key" not in configured:
        if self.keys == "rename":
            new.append(f'{alias}.api_key = {self.os_environ()}["{NEW_KEY}"]')
        else:
            self.findings.append(
                (
                    anchor.lineno,
                    "implicit-key",
                    "review",
                    "module-level openai reads OPENAI_API_KEY; set a HolySheep key",
                )
            )
    eol = self.lines.end(anchor.end_lineno or anchor.lineno)
    self.edits.append((eol, eol, "".join(f"{self.nl}{indent}{n}" for n in new)))
    self.findings.append(
        (
            anchor.lineno,
            "module-base",
            "rewrite",
            f"module-level openai used without a base URL: set {alias}.{attr}",
        )
    )
