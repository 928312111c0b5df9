"""What the proof (:mod:`._proof`) knows of one file: its sinks, the names it binds, the variables it
sets, its config keys and the keys and URLs in its own scope. The extractors (``_pysinks`` for Python and
notebooks, ``_filefacts`` for everything else) make one of these from a file's text, before and after the
rewrite; the proof never reads the rewriters' findings. No field holds a value (see ``_provenance``)."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from . import _provenance as pv

#: the environment variables a client's own defaults read
OPENAI_URL: pv.Src = pv.Env("OPENAI_BASE_URL", pv.Lit(pv.OPENAI, pv.NONE))
OPENAI_KEY: pv.Src = pv.Env("OPENAI_API_KEY")
OPENAI_API_BASE: pv.Src = pv.Env("OPENAI_API_BASE", OPENAI_URL)
HOLY_URL: pv.Src = pv.Env("HOLYSHEEP_BASE_URL", pv.Lit(pv.RELAY, pv.NONE))
HOLY_KEY: pv.Src = pv.Env("HOLYSHEEP_API_KEY")


@dataclass(frozen=True)
class Sink:
    """A place that sends ``key`` to ``url``: a client constructor, the module client, a config entry."""

    line: int
    label: str  # how the report names it: "OpenAI()", "openai module client", "Agent('openai:...')"
    url: pv.Src
    key: pv.Src
    kind: str = "client"  # "client" | "tracing" (telemetry: a site that reaches OpenAI is only listed)
    star: bool = False  # built from **kwargs migrate could not read
    maybe: bool = False  # may not be an OpenAI client at all (a model string migrate cannot read)
    sdk: str = "openai"
    src: str = ""  # the URL's source text, for the report
    can_key: bool = False  # a Python constructor given no key: a second pass can give it HolySheep's


@dataclass(frozen=True)
class Handoff:
    """A client handed to a framework, which needs a genuine openai client (``--sdk``)."""

    line: int
    target: str
    value: pv.Src


@dataclass(frozen=True)
class ScopeKey:
    """A key the file's own scope holds or reads (``what`` names it, never its value)."""

    line: int
    source: pv.Src
    what: str


@dataclass
class Facts:
    path: str
    lang: str  # "python" | "env" | "config" | "js" | "text"
    sinks: list[Sink] = field(default_factory=list)
    constants: dict[str, pv.Src] = field(default_factory=dict)
    env_sets: dict[str, list[tuple[int, pv.Src]]] = field(default_factory=dict)
    config: pv.Src | None = None  # the parsed tree of a config file (a Table)
    raw_relay: list[int] = field(default_factory=list)  # lines of relay URLs no sink reads
    raw_openai: list[int] = field(default_factory=list)
    keys: list[ScopeKey] = field(default_factory=list)
    key_reads: set[str] = field(default_factory=set)  # variables read as keys (explicitly or by default)
    handoffs: list[Handoff] = field(default_factory=list)
    module_base: list[tuple[int, pv.Src]] = field(default_factory=list)  # openai.base_url = ...
    module_key: list[tuple[int, pv.Src]] = field(default_factory=list)  # openai.api_key = ...
    module_uses: list[int] = field(default_factory=list)  # lines using the openai module client
    agents_default: list[tuple[int, str, pv.Src]] = field(default_factory=list)  # ("key"|"client", src)
    agents_tracing: list[tuple[int, str, pv.Src]] = field(default_factory=list)  # ("key"|"off", src)
    agents_lines: list[int] = field(default_factory=list)  # Agent(...) on the default client
    uses_agents: int = 0  # line of the first import only the OpenAI Agents SDK exports (0: none)
    subclasses: dict[str, str] = field(default_factory=dict)  # class name -> the client class it extends
    marked: set[int] = field(default_factory=set)  # lines marked `holyclient-migrate: ok`


def line_mapper(before: bytes, edits: list[tuple[int, int, bytes]]) -> Callable[[int], int]:
    """Line of the rewritten file -> line of the file as it was (a line migrate added: the line it
    was added at), so that every site names a line of the file as the user last saw it."""
    marks: list[tuple[int, int]] = [
        (1, 1)
    ]  # (after line, before line) at the start of each unchanged stretch
    pos, after_line, before_line = 0, 1, 1
    for start, end, new in sorted(edits):
        gap = before.count(b"\n", pos, start)
        after_line += gap
        before_line += gap
        before_line += before.count(b"\n", start, end)
        after_line += new.count(b"\n")
        marks.append((after_line, before_line))
        pos = end

    def to_before(line: int) -> int:
        i = bisect.bisect_right(marks, (line, 1 << 62)) - 1
        after, before_at = marks[max(i, 0)]
        return before_at + (line - after)

    return to_before


def remap(facts: Facts, to_before: Callable[[int], int]) -> Facts:
    """``facts`` with every line moved through ``to_before``."""
    f = to_before
    return replace(
        facts,
        sinks=[replace(s, line=f(s.line)) for s in facts.sinks],
        env_sets={k: [(f(line), v) for line, v in vs] for k, vs in facts.env_sets.items()},
        raw_relay=[f(n) for n in facts.raw_relay],
        raw_openai=[f(n) for n in facts.raw_openai],
        keys=[replace(k, line=f(k.line)) for k in facts.keys],
        handoffs=[replace(h, line=f(h.line)) for h in facts.handoffs],
        module_base=[(f(n), v) for n, v in facts.module_base],
        module_key=[(f(n), v) for n, v in facts.module_key],
        module_uses=[f(n) for n in facts.module_uses],
        agents_default=[(f(n), k, v) for n, k, v in facts.agents_default],
        agents_tracing=[(f(n), k, v) for n, k, v in facts.agents_tracing],
        agents_lines=[f(n) for n in facts.agents_lines],
        marked={f(n) for n in facts.marked},
    )
