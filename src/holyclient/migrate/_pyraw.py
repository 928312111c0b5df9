"""The module's own scope, for the proof: URL literals no sink reads (raw HTTP calls, constants), the keys
the module holds or reads from the environment, and openai's module-level settings. Works on the sink
extractor's state (``_pysinks``), seen through :class:`ExtractorState`."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Protocol

from . import _provenance as pv
from ._facts import ScopeKey
from ._rules import secret_like

if TYPE_CHECKING:
    from ._facts import Facts
    from ._pyflow import Flow
    from ._pynames import Names


class ExtractorState(Protocol):
    tree: ast.Module
    names: Names
    flow: Flow
    facts: Facts
    consumed: set[int]
    azure_file: bool

    def in_excluded(self, line: int) -> bool: ...


def _module_assign(self: ExtractorState, node: ast.Assign) -> None:
    for t in node.targets:
        if isinstance(t, ast.Attribute) and self.names.qualname(t.value) == "openai":
            value = self.flow.translate(node.value, self.flow.scope_for(node.value))
            if t.attr in ("base_url", "api_base"):
                for n in ast.walk(node.value):
                    self.consumed.add(id(n))
                self.facts.module_base.append((node.lineno, value))
            elif t.attr == "api_key":
                self.facts.module_key.append((node.lineno, value))


def own_scope(self: ExtractorState) -> None:
    """Raw URLs (no sink reads them), the keys the module holds or reads, and openai's module-level
    settings (``openai.base_url = ...``), into ``self.facts``."""
    f = self.facts
    for node in ast.walk(self.tree):
        if isinstance(node, ast.Assign) and not self.azure_file and not self.in_excluded(node.lineno):
            _module_assign(self, node)
    prose = {
        id(s.value)
        for s in ast.walk(self.tree)
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
    }
    for node in ast.walk(self.tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            if self.in_excluded(node.lineno):
                continue
            if "://" in node.value and id(node) not in self.consumed:
                cls = pv.url_class(node.value)
                if cls == pv.RELAY:
                    f.raw_relay.append(node.lineno)
                elif cls == pv.OPENAI:
                    f.raw_openai.append(node.lineno)
            if node.value.startswith("sk-") and secret_like(node.value):
                f.keys.append(ScopeKey(node.lineno, pv.literal(node.value), "a literal key"))
        elif isinstance(node, (ast.Call, ast.Subscript)):
            read = _env_read(self, node)
            if read is not None and pv.is_key_name(read):
                f.keys.append(ScopeKey(node.lineno, pv.Env(read, required=True), read))
                f.key_reads.add(read)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and pv.is_key_name(t.id) and isinstance(node.value, ast.Constant):
                    value = node.value.value
                    if isinstance(value, str) and secret_like(value) and not value.startswith("sk-"):
                        f.keys.append(ScopeKey(node.lineno, pv.literal(value, t.id), f"{t.id} (a literal)"))
    if f.module_uses and not f.module_key:
        f.key_reads.add("OPENAI_API_KEY")  # the module client's default


def _env_read(self: ExtractorState, node: ast.Call | ast.Subscript) -> str | None:
    if isinstance(node, ast.Subscript):
        if self.names.qualname(node.value) == "os.environ":
            s = node.slice
            return s.value if isinstance(s, ast.Constant) and isinstance(s.value, str) else None
        return None
    q = self.names.qualname(node.func) or ""
    if q in ("os.getenv", "os.environ.get") and node.args:
        a = node.args[0]
        return a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
    return None
