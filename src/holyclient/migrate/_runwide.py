"""The proof's checks beyond single sinks: each file's own scope (a raw URL beside the keys it reads),
environment files (a HolySheep variable fed from an OpenAI secret), ``--sdk`` handoffs to frameworks,
the run-wide defaults (openai's module client, the Agents SDK's default client and trace exporter), and
the agreement of code and the environment files that serve it."""

from __future__ import annotations

import os

from . import _provenance as pv
from ._facts import OPENAI_KEY, OPENAI_URL, Facts, Sink
from ._follow import resolve
from ._rules import BASE_URL, NEW_KEY
from ._sinkcheck import MARK_OK, Eval, judge_sink, why
from ._spellings import leaves
from ._world import World


# -- a file's own scope ------------------------------------------------------------------------------
def scope(world: World, path: str, facts: Facts) -> list[Eval]:
    if not (facts.raw_relay or facts.raw_openai):
        return []
    out = []
    for sk in facts.keys:
        r = resolve(sk.source, pv.KEY, world, path)
        ident = (path, "scope", sk.line)
        sig = (frozenset(r.classes), bool(facts.raw_relay), bool(facts.raw_openai))
        literal = (
            r.why.get(pv.OPENAI) == "a literal key" or r.why.get(pv.OTHER) == "another vendor's literal key"
        )
        bad_relay = facts.raw_relay and r.classes - pv.SAFE_KEYS - {pv.OTHER}
        bad_openai = facts.raw_openai and pv.HS in r.classes
        if not (bad_relay or bad_openai) or (sk.line in facts.marked and not literal):
            out.append(Eval(ident, path, sk.line, "scope", "", False, sig, r.files))
            continue
        if bad_relay:
            lines = _lines(facts.raw_relay)
            if literal:
                kind = "openai-key-beside-url"
                message = (
                    f"a literal OpenAI key is set here, and {lines} of this file point at HolySheep: the key would "
                    f"go with them; fix: replace it with a HolySheep key read from {NEW_KEY} (or delete it), then "
                    "run migrate again"
                )
            else:
                kind = "key-source"
                message = (
                    f"{sk.what} is read here, and {lines} of this file point at HolySheep: {why(r, (pv.OPENAI, pv.UNKNOWN))} "
                    f"is not known to be a HolySheep key; fix: read the key from {NEW_KEY}, or {MARK_OK} once it "
                    "can only hold a HolySheep key"
                )
        else:
            kind = "holysheep-key-elsewhere"
            message = (
                f"{sk.what} holds the HolySheep key, and {_lines(facts.raw_openai)} of this file still point at "
                "api.openai.com (a realtime endpoint, or a URL migrate left): the key would go there; fix: point "
                "them at the relay (--rewrite-realtime), or keep OpenAI's key for them"
            )
        out.append(Eval(ident, path, sk.line, kind, message, True, sig, r.files | {path}))
    return out


def _lines(numbers: list[int]) -> str:
    unique = sorted(set(numbers))
    return ("line " if len(unique) == 1 else "lines ") + ", ".join(str(n) for n in unique[:6])


def env_file(world: World, path: str, facts: Facts) -> list[Eval]:
    """A HolySheep key variable set from an OpenAI source (``HOLYSHEEP_API_KEY: ${{ secrets.OPENAI_KEY }}``)."""
    out = []
    for name, sets in facts.env_sets.items():
        if pv.key_of_name(name) != pv.HS or not pv.is_key_name(name):
            continue
        for line, src in sets:
            r = resolve(src, pv.KEY, world, path)
            ident = (path, "scope", line)
            if r.classes <= pv.SAFE_KEYS or line in facts.marked:
                continue
            out.append(
                Eval(
                    ident,
                    path,
                    line,
                    "key-source",
                    f"{name} is set from {why(r, (pv.OPENAI, pv.OTHER, pv.UNKNOWN))}, which is not a HolySheep key: the "
                    f"relay would get it; fix: set {name} from a HolySheep key (a secret named {NEW_KEY})",
                    True,
                    (frozenset(r.classes), "env"),
                    r.files | {path},
                )
            )
    return out


# -- --sdk: a client handed to a framework -------------------------------------------------------------
def _clients(src: pv.Src, world: World, origin: str, depth: int = 0) -> set[str]:
    if depth > 12:
        return set()
    out: set[str] = set()
    for leaf in leaves(src):
        if isinstance(leaf, pv.Client):
            out.add(leaf.sdk)
        elif isinstance(leaf, pv.Const) and not leaf.keys:
            for value, path in world.constant(origin, leaf.module, leaf.name) or []:
                out |= _clients(value, world, path, depth + 1)
    return out


def handoffs(world: World, path: str, facts: Facts) -> list[Eval]:
    out = []
    for h in facts.handoffs:
        sdks = _clients(h.value, world, path)
        ident = (path, "handoff", h.line, h.target)
        if "holyclient" not in sdks:
            out.append(Eval(ident, path, h.line, "sdk", "", False, (frozenset(sdks),)))
            continue
        files = {
            p
            for p, f in list(world.facts.items())
            if f.lang == "python" and any(s.sdk == "holyclient" for s in f.sinks)
        }
        out.append(
            Eval(
                ident,
                path,
                h.line,
                "sdk-handoff",
                f"{h.target}() is handed a client that --sdk would make holyclient's, and it needs a genuine openai "
                "client (`Client().as_openai()` gives one)",
                True,
                (frozenset(sdks),),
                files,
                sdk=True,
            )
        )
    return out


# -- the run-wide defaults: openai's module client, the Agents SDK ----------------------------------------
def module_client(world: World) -> list[Eval]:
    bases = [pv.At(src, p) for p, f in list(world.facts.items()) for _, src in f.module_base]
    keys = [pv.At(src, p) for p, f in list(world.facts.items()) for _, src in f.module_key]
    url: pv.Src = pv.Fallback(pv.one_of(bases), OPENAI_URL) if bases else OPENAI_URL
    key: pv.Src = pv.Fallback(pv.one_of(keys), OPENAI_KEY) if keys else OPENAI_KEY
    out = []
    for path, f in list(world.facts.items()):
        lines = [n for n, _ in f.module_base] + [n for n, _ in f.module_key] + f.module_uses
        if not (f.module_uses or f.module_base):
            continue
        # a second pass can give the module client HolySheep's key after the base URL this file sets
        keyable = not keys and bool(f.module_base)
        line = f.module_base[0][0] if keyable else min(lines)
        sink = Sink(line, "the openai module client (openai.chat...)", url, key, can_key=keyable)
        out.append(judge_sink(world, path, f, sink, "module"))
    return out


def agents(world: World) -> list[Eval]:
    out: list[Eval] = []
    defaults = [
        (p, line, what, src) for p, f in list(world.facts.items()) for line, what, src in f.agents_default
    ]
    has_client = any(what == "client" for _, _, what, _ in defaults)
    key_srcs = [pv.At(src, p) for p, _, what, src in defaults if what == "key"]
    default_key: pv.Src = pv.one_of(key_srcs) if key_srcs else OPENAI_KEY
    for p, line, what, src in defaults:
        if what == "key":
            sink = Sink(
                line, "set_default_openai_key() (the Agents SDK's default client)", OPENAI_URL, pv.At(src, p)
            )
            out.append(judge_sink(world, p, world.facts[p], sink, "agents"))
    for path, f in list(world.facts.items()):
        if f.agents_lines and not has_client:
            sink = Sink(
                f.agents_lines[0], "this Agent (the Agents SDK's default client)", OPENAI_URL, default_key
            )
            e = judge_sink(world, path, f, sink, "agents")
            if e.bad and e.kind == "still-openai":
                e.kind = "agents-default-client"
                e.message = (
                    "this Agent runs on the Agents SDK's default client, which calls api.openai.com; fix: at start-up "
                    f'call set_default_openai_client(AsyncOpenAI(base_url="{BASE_URL}", api_key=os.environ["{NEW_KEY}"]), '
                    "use_for_tracing=False)"
                )
            out.append(e)
    out.extend(_tracing(world))
    return out


def _tracing(world: World) -> list[Eval]:
    """The Agents SDK exports traces to api.openai.com with the key it is given, else OPENAI_API_KEY."""
    users = sorted(p for p, f in list(world.facts.items()) if f.uses_agents)
    if not users:
        return []
    entries = [
        (p, line, what, src) for p, f in list(world.facts.items()) for line, what, src in f.agents_tracing
    ]
    if any(what == "off" for _, _, what, _ in entries):
        return []
    keys: list[pv.Src] = []
    for p, _, what, src in entries:
        if what == "key":
            keys.append(pv.At(src, p))
        else:
            keys.extend(
                pv.At(c.key, p) for c in leaves(src) if isinstance(c, pv.Client) and c.key is not None
            )
    key: pv.Src = pv.one_of(keys) if keys else OPENAI_KEY
    path = users[0]
    line = min([n for p, n, _, _ in entries if p == path] or [world.facts[path].uses_agents])
    k = resolve(key, pv.KEY, world, path)
    ident = (path, "tracing")
    if pv.HS in k.classes:
        return [
            Eval(
                ident,
                path,
                line,
                "agents-tracing",
                f"the Agents SDK would export traces to api.openai.com with the HolySheep key ({why(k, (pv.HS,))}); "
                "fix: call set_tracing_disabled(True), or set_tracing_export_api_key() with an OpenAI key",
                True,
                (frozenset(k.classes),),
                k.files | {path},
            )
        ]
    return [
        Eval(
            ident,
            path,
            line,
            "agents-tracing",
            "the Agents SDK still exports traces (prompts included) to api.openai.com with OPENAI_API_KEY: call "
            "set_tracing_disabled(True) if they should not go to OpenAI",
            False,
            (frozenset(k.classes),),
            k.files,
            action="review",
        )
    ]


def consistency(world: World) -> list[Eval]:
    """The key names code reads must be set by the environment files that set the ones it read before.

    Judged on the names: an env file that sets ``OPENAI_API_KEY`` but not ``HOLYSHEEP_API_KEY`` while the
    code it serves reads only ``HOLYSHEEP_API_KEY`` would start the app without a key (a compose file whose
    literal key migrate rightly left alone, say)."""
    out = []
    served_by: dict[str, dict[str, Facts]] = {}
    for p, g in list(world.facts.items()):
        if g.lang in ("python", "js") and g.key_reads:
            for provider in world.providers_for(p):
                served_by.setdefault(provider, {})[p] = g
    for path, f in list(world.facts.items()):
        if f.lang != "env":
            continue
        served = served_by.get(path, {})
        reads = {n for g in served.values() for n in g.key_reads if pv.key_of_name(n) in (pv.HS, pv.OPENAI)}
        sets = {n for n in f.env_sets if pv.is_key_name(n) and pv.key_of_name(n) in (pv.HS, pv.OPENAI)}
        # the code reads a HolySheep key name the file does not set while the file sets an OpenAI one (or
        # the other way round): one side was renamed, the other not
        missing = {n for n in reads - sets if any(pv.key_of_name(m) != pv.key_of_name(n) for m in sets)}
        stale = {m for m in sets if any(pv.key_of_name(m) != pv.key_of_name(n) for n in missing)}
        if not missing:
            continue
        line = min(line for n in stale for line, _ in f.env_sets[n])
        readers = {p for p, g in served.items() if g.key_reads & missing}
        out.append(
            Eval(
                (path, "consistency", line),
                path,
                line,
                "env-consistency",
                f"{os.path.basename(path)} sets {', '.join(sorted(stale))} but not {', '.join(sorted(missing))}, "
                f"which the code reads: the app would start without a key; fix: set {', '.join(sorted(missing))} "
                "there to a HolySheep key",
                True,
                (frozenset(stale), frozenset(missing)),
                readers | {path},
            )
        )
    return out
