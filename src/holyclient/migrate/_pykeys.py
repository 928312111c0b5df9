"""Where the Python rewriter gives a client HolySheep's key: a constructor whose base URL migrate points at
the relay (a literal, a module constant, or a line the proof names) and that reads OpenAI's key by
default; and literal keys, which are reported and never shown. A mixin of ``_python._Rewriter``."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from . import _provenance as pv
from ._pyinserts import Inserts
from ._rules import NEW_KEY, secret_like

if TYPE_CHECKING:
    from ._report import Finding
    from ._rules import KeyMode


class Keys(Inserts):
    """Needs the rewriter's findings, assignments, key mode and the lines the proof names (``key_lines``)."""

    findings: list[Finding]
    assigns: list[ast.Assign]
    keys: KeyMode
    key_lines: set[int]

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

    def reaches_relay(self, line: int, value: ast.expr) -> bool:
        return line in self.key_lines or self.rewritten_url(value)

    def rewritten_url(self, value: ast.expr) -> bool:
        """Whether the base URL expression holds a URL literal that ends up the relay's (OpenAI's is
        rewritten by the token pass), also through module-level names it reads: its key must then be
        HolySheep's (the provenance model's class of each literal decides)."""
        exprs: list[ast.expr] = [value]
        names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
        for a in self.assigns:
            if any(isinstance(t, ast.Name) and t.id in names for t in a.targets):
                exprs.append(a.value)
        return any(
            isinstance(n, ast.Constant)
            and isinstance(n.value, str)
            and pv.url_class(n.value) in (pv.OPENAI, pv.RELAY)
            for e in exprs
            for n in ast.walk(e)
        )

    def key_beside_rewritten_url(
        self,
        call: ast.Call,
        start: int,
        end: int,
        line: int,
        name: str,
        base: ast.expr,
        key: ast.expr | None,
        key_kw: str,
        has_star: bool,
    ) -> None:
        """A constructor given a base URL that migrate points at the relay and no key reads OpenAI's key
        by default (``OPENAI_API_KEY``): it is given HolySheep's."""
        if key is not None or has_star or self.keys != "rename":
            return
        if not self.rewritten_url(base) and line not in self.key_lines:
            return
        self.add_arguments(call, start, end, [f'{key_kw}={self.os_environ()}["{NEW_KEY}"]'])
        self.findings.append(
            (
                line,
                "constructor",
                "rewrite",
                f"{name}() had a base URL and no key: added {key_kw} from {NEW_KEY}",
            )
        )
