"""JavaScript / TypeScript client constructors: ``new OpenAI({...})`` from ``openai``,
``createOpenAI({...})`` from ``@ai-sdk/openai`` and ``new ChatOpenAI({...})`` from ``@langchain/openai``.

No JS parser ships with Python, so this is a small lexer: comments and string/template literals
are masked (same length), brackets are matched on the masked text, and imports decide which local
names are the SDK's. The text is the file decoded as latin-1, so character offsets are byte offsets.
Anything we cannot read with confidence is reported for review instead of edited.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import _provenance as pv
from ._edits import Edit, Lines, indent_of, newline_of
from ._report import Finding
from ._rules import BASE_URL, NEW_KEY, KeyMode, secret_like

_LITERAL = re.compile(
    r"//[^\n]*|/\*.*?\*/|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`(?:[^`\\]|\\.)*`", re.S
)
_FROM = r"""\s*(?:from\s*|=\s*require\(\s*)["']{}["']"""  # `from "m"` or `= require("m")`
_REQUIRE = r"""\s*=\s*require\(\s*["']{}["']"""


@dataclass(frozen=True)
class _Kind:
    label: str
    base_new: str  # property text inserted, with {q} for the quote
    base_props: tuple[str, ...]
    key_new: str
    key_props: tuple[str, ...]


_SDK = _Kind(
    "OpenAI", "baseURL: {q}" + BASE_URL + "{q}", ("baseURL",), f"apiKey: process.env.{NEW_KEY}", ("apiKey",)
)
_AISDK = _Kind(
    "createOpenAI",
    "baseURL: {q}" + BASE_URL + "{q}",
    ("baseURL",),
    f"apiKey: process.env.{NEW_KEY}",
    ("apiKey",),
)
_LANGCHAIN = _Kind(
    "ChatOpenAI",
    "configuration: {{ baseURL: {q}" + BASE_URL + "{q} }}",
    ("configuration",),
    f"apiKey: process.env.{NEW_KEY}",
    ("apiKey", "openAIApiKey"),
)


def mask(text: str) -> str:
    """Comments and string literals blanked out (newlines kept), so brackets and names are code only."""
    return _LITERAL.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def _imported(text: str, module: str, export: str) -> set[str]:
    """Local names bound to ``export`` of ``module`` (``default`` for the default export)."""
    if f'"{module}"' not in text and f"'{module}'" not in text:
        return set()  # every spelling below names the module in quotes: one substring test skips them
    src = re.escape(module)
    names: set[str] = set()
    if export == "default":
        names.update(re.findall(r"import\s+([\w$]+)\s*(?:,\s*\{[^}]*\})?" + _FROM.format(src), text))
        names.update(
            re.findall(
                r"(?:const|let|var)\s+([\w$]+)" + _REQUIRE.format(src),
                text,
            )
        )
    for group in re.findall(
        r"(?:import\s*(?:[\w$]+\s*,\s*)?|(?:const|let|var)\s*)\{([^}]*)\}" + _FROM.format(src), text
    ):
        for spec in group.split(","):
            m = re.match(r"\s*([\w$]+)\s*(?:(?:as|:)\s*([\w$]+))?\s*$", spec)
            if m and m.group(1) == export:
                names.add(m.group(2) or m.group(1))
    for ns in re.findall(r"import\s+\*\s+as\s+([\w$]+)" + _FROM.format(src), text):
        names.add(f"{ns}.{'OpenAI' if export == 'default' else export}")
    return names


def _close(masked: str, open_: int) -> int:
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth = 0
    for i in range(open_, len(masked)):
        c = masked[i]
        if c in pairs:
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _top_level(masked: str, start: int, end: int) -> str:
    """``masked[start:end]`` with nested bracket contents blanked: only this object's own keys remain."""
    out, depth = [], 0
    for c in masked[start:end]:
        if c in "([{":
            depth += 1
        out.append(c if depth == 0 else " ")
        if c in ")]}":
            depth -= 1
    return "".join(out)


@dataclass
class _File:
    text: str
    keys: KeyMode
    base_url_env: str | None = None
    masked: str = ""
    lines: Lines = field(init=False)
    quote: str = '"'
    nl: str = "\n"
    edits: list[Edit[str]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    excluded: list[tuple[int, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.masked = mask(self.text)
        self.lines = Lines(self.text)
        single = len(re.findall(r"from\s+'", self.text)) > len(re.findall(r'from\s+"', self.text))
        self.quote = "'" if single else '"'
        self.nl = newline_of(self.text)

    def base_prop(self, kind: _Kind) -> str:
        """The baseURL property to add, reading ``process.env.NAME`` first with ``--base-url-env``."""
        prop = kind.base_new.format(q=self.quote)
        if self.base_url_env is None:
            return prop
        literal = f"{self.quote}{BASE_URL}{self.quote}"
        return prop.replace(literal, f"process.env.{self.base_url_env} ?? {literal}")


def rewrite(
    text: str, *, keys: KeyMode = "rename", base_url_env: str | None = None
) -> tuple[list[Edit[str]], list[Finding], list[tuple[int, int]]]:
    """Edits for constructors, findings, and spans of other-vendor clients (keys stay there)."""
    f = _File(text, keys, base_url_env)
    for start, paren, kind in constructors(text, f.masked):
        _constructor(f, start, paren, kind)
    return f.edits, f.findings, f.excluded


def constructors(text: str, masked: str) -> list[tuple[int, int, _Kind]]:
    """``(start, opening paren, kind)`` of each client constructor: ``new OpenAI(``, ``createOpenAI(``,
    ``new ChatOpenAI(`` ..., by the names the file imports them under."""
    calls: list[tuple[str, _Kind]] = []
    for name in _imported(text, "openai", "default") | _imported(text, "openai", "OpenAI"):
        calls.append((r"\bnew\s+" + re.escape(name) + r"\s*\(", _SDK))
    for name in _imported(text, "@ai-sdk/openai", "createOpenAI"):
        calls.append((r"(?<![\w$.])" + re.escape(name) + r"\s*\(", _AISDK))
    for export in ("ChatOpenAI", "OpenAIEmbeddings"):
        for name in _imported(text, "@langchain/openai", export):
            calls.append((r"\bnew\s+" + re.escape(name) + r"\s*\(", _LANGCHAIN))
    found = []
    for pattern, kind in calls:
        for m in re.finditer(pattern, masked):
            found.append((m.start(), m.end() - 1, kind))
    return sorted(found, key=lambda c: c[0])


def default_providers(text: str) -> list[tuple[int, str]]:
    """``(offset, name)`` of the first use of @ai-sdk/openai's default ``openai`` provider."""
    out = []
    for name in _imported(text, "@ai-sdk/openai", "openai"):
        m = re.search(r"\b" + re.escape(name) + r"\b", text)
        out.append((m.start() if m else 0, name))
    return out


def _literal(text: str, own: str, first: int, prop: str) -> re.Match[str] | None:
    """The string literal assigned to ``prop`` in the object starting at ``first``, if it is one."""
    vm = re.compile(r"(?<![\w$])" + prop + r"\s*:").search(own)
    value = text[first + 1 + vm.end() :].lstrip() if vm else ""
    return re.match(r"""(["'`])([^"'`]*)\1""", value)


def masked_value(text: str, own: str, first: int, prop: str) -> str:
    """The source of ``prop``'s value in the object at ``first``, up to the next top-level ``,`` or ``}``."""
    vm = re.compile(r"(?<![\w$])" + prop + r"\s*:").search(own)
    if vm is None:
        return ""
    stop = own.find(",", vm.end())
    start = first + 1 + vm.end()
    return text[start : first + 1 + (stop if stop >= 0 else len(own))]


def _constructor(f: _File, start: int, paren: int, kind: _Kind) -> None:
    text, masked, lines = f.text, f.masked, f.lines
    if _close(masked, paren) < 0:
        return
    first = paren + 1 + len(masked[paren + 1 :]) - len(masked[paren + 1 :].lstrip())
    line = lines.line_of(start)
    if masked[first] == ")":
        props = [f.base_prop(kind)] + ([kind.key_new] if f.keys == "rename" else [])
        f.edits.append((paren + 1, first, "{ " + ", ".join(props) + " }"))
        f.findings.append((line, "constructor", "rewrite", f"{kind.label}() had no baseURL: added one"))
        return
    if masked[first] != "{":
        return  # options from a variable: the proof lists it
    obj_end = _close(masked, first)
    own = _top_level(masked, first + 1, obj_end)
    if "..." in own:
        return  # {...spread}: the proof lists it
    found = {
        p
        for p in (*kind.base_props, *kind.key_props)
        if re.search(r"(?<![\w$])" + p + r"\s*[:,}]|(?<![\w$])" + p + r"\s*$", own)
    }
    for key in found & set(kind.key_props):
        if (lit := _literal(text, own, first, key)) is not None and secret_like(lit.group(2)):
            f.findings.append(
                (
                    line,
                    "hardcoded-key",
                    "review",
                    f"{kind.label}() is given a literal {key}; use a HolySheep key",
                )
            )
    base = next((p for p in kind.base_props if p in found), None)
    if base is not None:
        lit = _literal(text, own, first, base)
        value = text[first:obj_end] if kind is _LANGCHAIN else masked_value(text, own, first, base)
        if lit is not None and "api.openai.com" not in lit.group(2) and "holysheep" not in lit.group(2):
            f.excluded.append((first, obj_end))  # another vendor: its key variable is its own
        elif (
            f.keys == "rename"
            and not found & set(kind.key_props)
            and any(
                pv.url_class(u) in (pv.OPENAI, pv.RELAY)
                for u in re.findall(r"(?:https?|wss?)://[^\s\"'`]+", value)
            )
        ):
            # a baseURL migrate points at the relay, and no apiKey: the SDK would read OPENAI_API_KEY
            _add_props(f, first, obj_end, [kind.key_new])
            f.findings.append(
                (line, "constructor", "rewrite", f"{kind.label}() had a baseURL and no apiKey: added one")
            )
        return
    props = [f.base_prop(kind)]
    if f.keys == "rename" and not found & set(kind.key_props):
        props.append(kind.key_new)
    _add_props(f, first, obj_end, props)
    f.findings.append((line, "constructor", "rewrite", f"{kind.label}() had no baseURL: added one"))


def _add_props(f: _File, first: int, obj_end: int, props: list[str]) -> None:
    """Add ``props`` to the object literal ``{`` at ``first`` ... ``}`` at ``obj_end``, in its layout."""
    text, lines = f.text, f.lines
    body = text[first + 1 : obj_end]
    body_start = first + 1 + len(body) - len(body.lstrip())
    if not body.strip():
        f.edits.append((first + 1, obj_end, " " + ", ".join(props) + " "))
    elif lines.line_of(first) < lines.line_of(body_start):  # one property per line: add lines after "{"
        indent = indent_of(text[lines.start(lines.line_of(body_start)) :])
        eol = lines.end(lines.line_of(first))
        f.edits.append((eol, eol, "".join(f"{f.nl}{indent}{p}," for p in props)))
    else:
        f.edits.append((body_start, body_start, "".join(f"{p}, " for p in props)))
