"""The proof's facts of a JavaScript / TypeScript file: each client constructor's ``baseURL`` and
``apiKey`` as sources (a literal, ``process.env.NAME``, ``process.env.NAME ?? "..."``, a top-level
``const``), the default ``openai`` provider of ``@ai-sdk/openai``, and the keys the file reads."""

from __future__ import annotations

import re

from . import _js
from . import _provenance as pv
from ._edits import Lines
from ._facts import OPENAI_KEY, OPENAI_URL, Facts, ScopeKey, Sink

_ENV = re.compile(r"process\.env(?:\.([A-Za-z_$][\w$]*)|\[\s*[\"']([\w$]+)[\"']\s*\])")
_STRING = re.compile(r"""^(["'`])([^"'`$]*)\1$""")
_CONST = r"(?:const|let|var)\s+{}\s*(?::\s*[\w<>\[\]|]+\s*)?=\s*(.+?);?\s*$"
_AISDK_URL: pv.Src = pv.Env("OPENAI_BASE_URL", pv.Lit(pv.OPENAI, pv.NONE))


def _value(text: str, expr: str, depth: int = 0) -> pv.Src:
    """A JS expression (masked of nothing: the original text) as a source."""
    e = expr.strip().rstrip(",").strip()
    if not e or e in ("undefined", "null"):
        return pv.NO_VALUE
    for op in ("??", "||"):
        if op in e:
            left, _, right = e.partition(op)
            first = _value(text, left, depth + 1)
            rest = _value(text, right, depth + 1)
            if isinstance(first, pv.Env) and first.default is None:
                return pv.Env(first.name, rest)
            return pv.one_of([first, rest])
    if m := _STRING.match(e):
        return pv.literal(m.group(2))
    if m := _ENV.fullmatch(e):
        return pv.Env(m.group(1) or m.group(2))
    if re.fullmatch(r"[A-Za-z_$][\w$]*", e) and depth < 4:
        found = re.search(_CONST.format(re.escape(e)), text, re.M)
        if found:
            return _value(text, found.group(1), depth + 1)
        return pv.Record(e)
    return pv.Unknown(e[:60])


def _prop(text: str, own: str, first: int, names: tuple[str, ...]) -> str | None:
    for prop in names:
        if re.search(
            r"(?<![\w$])" + re.escape(prop) + r"\s*[:,}]|(?<![\w$])" + re.escape(prop) + r"\s*$", own
        ):
            value = _js.masked_value(text, own, first, prop)
            return value if value.strip() else prop  # shorthand `{ apiKey }`
    return None


def extract(path: str, raw: bytes) -> Facts:
    text = raw.decode("latin-1")
    lines = Lines(text)
    facts = Facts(path, "js")
    masked = _js.mask(text)
    consumed: list[tuple[int, int]] = []
    for start, paren, kind in _js.constructors(text, masked):
        close = _js._close(masked, paren)
        if close < 0:
            continue
        line = lines.line_of(start)
        first = paren + 1 + len(masked[paren + 1 :]) - len(masked[paren + 1 :].lstrip())
        url_default = _AISDK_URL if kind is _js._AISDK else OPENAI_URL
        label = f"{kind.label}()"
        if masked[first] == ")":
            facts.sinks.append(Sink(line, label, url_default, OPENAI_KEY))
            continue
        if masked[first] != "{":
            facts.sinks.append(
                Sink(line, label, pv.Unknown("options from a variable"), pv.Unknown("options"), star=True)
            )
            continue
        obj_end = _js._close(masked, first)
        own = _js._top_level(masked, first + 1, obj_end)
        consumed.append((first, obj_end))
        if "..." in own:
            facts.sinks.append(
                Sink(line, label, pv.Unknown("{...spread}"), pv.Unknown("{...spread}"), star=True)
            )
            continue
        if kind is _js._LANGCHAIN:
            conf = _prop(text, own, first, ("configuration",))
            base = None
            if conf is not None:
                m = re.search(r"(?<![\w$])baseURL\s*:\s*([^,}]+)", conf)
                base = m.group(1) if m else None
        else:
            base = _prop(text, own, first, kind.base_props)
        key = _prop(text, own, first, kind.key_props)
        url_src: pv.Src = pv.Fallback(_value(text, base), url_default) if base is not None else url_default
        given = _value(text, key) if key is not None else None
        key_src: pv.Src = pv.Fallback(given, OPENAI_KEY) if given is not None else OPENAI_KEY
        facts.sinks.append(Sink(line, label, url_src, key_src, src=(base or "").strip()[:60]))
        # the names the app must set: the given key's, not the client's fallback when it is undefined
        # (the sink's own judgment still weighs that fallback)
        facts.key_reads.update(_names(given) if given is not None else ())
    for at, name in _js.default_providers(text):
        facts.sinks.append(
            Sink(
                lines.line_of(at), f"the default `{name}` provider of @ai-sdk/openai", _AISDK_URL, OPENAI_KEY
            )
        )
        facts.key_reads.add("OPENAI_API_KEY")
    for m in _ENV.finditer(text):
        name = m.group(1) or m.group(2)
        if pv.is_key_name(name) and not _js_comment(masked, m.start()):
            facts.keys.append(ScopeKey(lines.line_of(m.start()), pv.Env(name, required=True), name))
            facts.key_reads.add(name)
    comments = [m.span() for m in _js._LITERAL.finditer(text) if m.group().startswith(("//", "/*"))]
    for m in re.finditer(r"""(["'`])((?:https?|wss?)://[^"'`\s]+)\1""", text) if "://" in text else ():
        if any(a <= m.start() < b for a, b in (*comments, *consumed)):
            continue
        cls = pv.url_class(m.group(2))
        if cls == pv.RELAY:
            facts.raw_relay.append(lines.line_of(m.start()))
        elif cls == pv.OPENAI:
            facts.raw_openai.append(lines.line_of(m.start()))
    for m in re.finditer(r"""(["'`])(sk-[A-Za-z0-9_-]{8,})\1""", text) if "sk-" in text else ():
        lit = pv.literal(m.group(2))
        if lit.key not in (pv.NONE, pv.PLACEHOLDER) and not any(a <= m.start() < b for a, b in comments):
            facts.keys.append(ScopeKey(lines.line_of(m.start()), lit, "a literal key"))
    if any(s.key == OPENAI_KEY for s in facts.sinks):
        facts.key_reads.add("OPENAI_API_KEY")
    return facts


def _js_comment(masked: str, offset: int) -> bool:
    """Masked text is blank where the original has a comment or string: a `process.env` read inside
    either is not code."""
    return masked[offset : offset + 11] != "process.env"[: len(masked[offset : offset + 11])]


def _names(src: pv.Src) -> list[str]:
    if isinstance(src, pv.Env):
        return [src.name, *(_names(src.default) if src.default is not None else [])]
    if isinstance(src, pv.Fallback):
        return _names(src.primary) + _names(src.default)
    if isinstance(src, pv.OneOf):
        return [n for o in src.options for n in _names(o)]
    return []
