"""Following a source through the run: the classes a :data:`~._provenance.Src` can take as a base URL
or a key, read in one file, with the files consulted (the proof takes back the ones the run changed) and
a description of where each class comes from (for the report; never a value)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from ._provenance import (
    HS,
    KEY,
    LOCAL,
    NONE,
    OPENAI,
    OTHER,
    PLACEHOLDER,
    RELAY,
    UNKNOWN,
    URL,
    At,
    Client,
    Config,
    Const,
    Env,
    Fallback,
    Lit,
    OneOf,
    Pick,
    Record,
    Secret,
    Src,
    Table,
    key_of_name,
    pick,
    url_of_name,
)


class Context(Protocol):
    """What :func:`resolve` needs of the run (``_proof.World`` implements it)."""

    declared: frozenset[str]

    def env_values(self, name: str, origin: str) -> list[tuple[Src, str, bool]]: ...
    def constant(self, origin: str, module: str, name: str) -> list[tuple[Src, str]] | None: ...
    def config(self, origin: str, file: str) -> tuple[Src, str] | None: ...


@dataclass
class Resolved:
    """The classes a source can take, the files consulted, and a description of each class's origin."""

    classes: set[str] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    why: dict[str, str] = field(default_factory=dict)
    records: set[str] = field(default_factory=set)

    def add(self, cls: str, why: str) -> None:
        self.classes.add(cls)
        self.why.setdefault(cls, why)

    def merge(self, other: Resolved) -> None:
        for cls in other.classes:
            self.add(cls, other.why.get(cls, ""))
        self.files |= other.files
        self.records |= other.records


_MAX_DEPTH = 24


def resolve(src: Src, role: str, ctx: Context, origin: str) -> Resolved:
    """The classes ``src`` (read in file ``origin``) can take as a base URL (``role="url"``) or a key."""
    out = Resolved()
    _resolve(src, role, ctx, origin, out, set(), 0)
    return out


def _resolve(
    src: Src, role: str, ctx: Context, origin: str, out: Resolved, seen: set[object], depth: int
) -> None:
    if depth > _MAX_DEPTH:
        out.add(UNKNOWN, "a chain of names too long to follow")
        return
    d = depth + 1
    if isinstance(src, Lit):
        cls = src.url if role == URL else src.key
        if role == KEY and src.named and cls != PLACEHOLDER:
            out.add(cls, f"what {src.named} will hold (a placeholder: {_name_why(src.named, cls, role)})")
        else:
            out.add(cls, _lit_why(cls, role))
    elif isinstance(src, OneOf):
        for option in src.options:
            _resolve(option, role, ctx, origin, out, seen, d)
    elif isinstance(src, Fallback):
        inner = Resolved()
        _resolve(src.primary, role, ctx, origin, inner, seen, d)
        if NONE in inner.classes:
            inner.classes.discard(NONE)
            _resolve(src.default, role, ctx, origin, inner, seen, d)
        out.merge(inner)
    elif isinstance(src, At):
        _resolve(src.source, role, ctx, src.origin, out, seen, d)
    elif isinstance(src, Env):
        _env(src, role, ctx, origin, out, seen, d)
    elif isinstance(src, Secret):
        cls = key_of_name(src.name) if role == KEY else url_of_name(src.name, ctx.declared)
        out.add(cls, f"the CI secret {src.name}")
    elif isinstance(src, Const):
        key = ("const", origin, src.module, src.name, src.keys)
        if key in seen:
            return
        seen.add(key)
        found = ctx.constant(origin, src.module, src.name)
        if found is None:
            where = f"{src.module}." if src.module else ""
            out.add(UNKNOWN, f"{where}{src.name}, which migrate cannot find in the run")
            return
        for value, path in found:
            out.files.add(path)
            _resolve(pick(value, src.keys) if src.keys else value, role, ctx, path, out, seen, d)
    elif isinstance(src, Config):
        hit = ctx.config(origin, src.file)
        if hit is None:
            out.add(UNKNOWN, f"{src.file}, a file migrate cannot read")
            return
        value, path = hit
        out.files.add(path)
        _resolve(pick(value, src.keys), role, ctx, path, out, seen, d)
    elif isinstance(src, Pick):
        base = src.source
        if isinstance(base, Const):
            _resolve(Const(base.module, base.name, base.keys + src.keys), role, ctx, origin, out, seen, d)
        elif isinstance(base, Config):
            _resolve(Config(base.file, base.keys + src.keys), role, ctx, origin, out, seen, d)
        elif isinstance(base, (Table, OneOf, Record, Lit, Pick)):
            _resolve(pick(base, src.keys), role, ctx, origin, out, seen, d)
        else:
            out.add(UNKNOWN, "a value read from something migrate cannot follow")
    elif isinstance(src, Table):
        out.add(UNKNOWN, "a dict")
    elif isinstance(src, Record):
        out.add(UNKNOWN, src.root)
        out.records.add(f"{src.scope}:{src.root}")
    elif isinstance(src, Client):
        out.add(UNKNOWN, "a client object")
    else:
        out.add(UNKNOWN, src.what)


def _env(
    src: Env, role: str, ctx: Context, origin: str, out: Resolved, seen: set[object], depth: int
) -> None:
    key = ("env", src.name)
    values = [] if key in seen else ctx.env_values(src.name, origin)
    if values:
        seen.add(key)
        for value, path, _ in values:
            out.files.add(path)
            inner = Resolved()
            _resolve(value, role, ctx, path, inner, seen, depth)
            if NONE in inner.classes and src.default is not None:  # set to nothing: the default applies
                inner.classes.discard(NONE)
                _resolve(src.default, role, ctx, origin, inner, seen, depth)
            for cls in inner.classes:
                out.add(cls, inner.why.get(cls, "") or f"{src.name}, as {path} sets it")
            out.files |= inner.files
            out.records |= inner.records
        seen.discard(key)
        by_name = key_of_name(src.name) if role == KEY else url_of_name(src.name, ctx.declared)
        if by_name != UNKNOWN and any(soft for _, _, soft in values):
            # a .env file does not override the shell: what the name says may still be exported there
            out.add(
                by_name,
                _name_why(src.name, by_name, role) + ", which the shell may export over the .env file",
            )
        return
    cls = key_of_name(src.name) if role == KEY else url_of_name(src.name, ctx.declared)
    out.add(cls, _name_why(src.name, cls, role))
    # the variable may be unset, and then the default applies; a HolySheep key variable is taken to be
    # set wherever the migrated app runs (the one thing migrate asks of its user)
    if not src.required and not (role == KEY and cls == HS):
        if src.default is not None:
            _resolve(src.default, role, ctx, origin, out, seen, depth)
        else:
            out.add(NONE, f"{src.name} unset")


def _lit_why(cls: str, role: str) -> str:
    if role == KEY:
        return {
            OPENAI: "a literal key",
            OTHER: "another vendor's literal key",
            HS: "a HolySheep key",
            PLACEHOLDER: "a placeholder",
        }.get(cls, "")
    return {OPENAI: "api.openai.com", RELAY: "the relay", OTHER: "another host", LOCAL: "a local server"}.get(
        cls, "a literal that is not a URL"
    )


def _name_why(name: str, cls: str, role: str) -> str:
    if cls == UNKNOWN:
        return f"{name}, which no file of the run sets and whose name does not say whose it is"
    what = {HS: "HolySheep's", OPENAI: "OpenAI's", OTHER: "another vendor's", RELAY: "the relay"}[cls]
    return f"{name} ({what} by its name)"
