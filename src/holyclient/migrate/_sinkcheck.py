"""Judging one sink: its base URL and key followed through the run (``_follow``), the verdict
(``_provenance.verdict``), and a site that says why and how to finish it (never a value)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from . import _provenance as pv
from ._facts import OPENAI_KEY, OPENAI_URL, Facts, Sink
from ._follow import Resolved, resolve
from ._incomplete import kwargs_message
from ._report import Finding
from ._rules import BASE_URL, MARK, NEW_KEY
from ._world import World

_FIX_KEY = f'pass api_key=os.environ["{NEW_KEY}"] (or read a HolySheep key from wherever it comes from)'
MARK_OK = f"mark the line `# {MARK}`"


@dataclass
class Eval:
    """One judged site."""

    ident: tuple[object, ...]
    path: str
    line: int
    kind: str
    message: str
    bad: bool
    sig: tuple[object, ...] = ()
    files: set[str] = field(default_factory=set)
    action: str = "incomplete"  # for a bad eval; "review" for what is listed only
    sdk: bool = False  # fixed by withdrawing --sdk from the files involved
    repair: tuple[str, str] | None = None  # (file, hint): a second pass that can complete the site

    def finding(self) -> Finding:
        return (self.line, self.kind, "incomplete" if self.bad else "review", self.message)


def judge_sink(world: World, path: str, facts: Facts, sink: Sink, ident_kind: str = "sink") -> Eval:
    u = resolve(sink.url, pv.URL, world, path)
    k = resolve(sink.key, pv.KEY, world, path)
    ident = (path, ident_kind, sink.line, sink.label)
    sig = (frozenset(u.classes), frozenset(k.classes))
    files = u.files | k.files
    v = pv.verdict(u.classes, k.classes)
    if v.ok:
        return Eval(ident, path, sink.line, "sink", "", False, sig, files)
    literal = k.why.get(pv.OPENAI) == "a literal key"
    if sink.line in facts.marked and not literal:
        return Eval(ident, path, sink.line, "sink", "", False, sig, files)
    if _same_record(u, k) and not v.key_risk:
        return Eval(
            ident,
            path,
            sink.line,
            "own-provider",
            f"{sink.label}: base URL and key both come from {_record_name(u)}, the app's own provider "
            "configuration: check that its rows never pair an OpenAI key with the relay's URL",
            False,
            sig,
            files,
            action="review",
        )
    if sink.maybe and not v.key_risk and not sink.star:
        return Eval(
            ident,
            path,
            sink.line,
            "framework",
            f"{sink.label} model is computed at run time: if it is an OpenAI model, pass its base URL "
            f"({BASE_URL}) and api_key from {NEW_KEY}",
            False,
            sig,
            files,
            action="review",
        )
    kind, message = _describe(sink, v.reason, u, k, literal, world.declared)
    return Eval(
        ident,
        path,
        sink.line,
        kind,
        message,
        True,
        sig,
        files,
        repair=_repair(world, path, sink, v.reason, u, k),
    )


def _repair(
    world: World, path: str, sink: Sink, reason: str, u: Resolved, k: Resolved
) -> tuple[str, str] | None:
    """A second pass that completes a site the run points at the relay through another file (an env file,
    a module, a config file): the constructor gets HolySheep's key."""
    if reason != "key-to-relay" or not u.classes <= pv.RELAY_HOSTS or k.why.get(pv.OPENAI) == "a literal key":
        return None
    if sink.can_key:
        return path, f"key:{sink.line}"
    return None


def _same_record(u: Resolved, k: Resolved) -> bool:
    """URL and key both read from one record migrate cannot follow (a provider row, a parameter)."""
    if not (u.records and u.records & k.records):
        return False
    return all("record" in _leaf_kind(w) for c, w in (*u.why.items(), *k.why.items()) if c == pv.UNKNOWN)


def _leaf_kind(why: str) -> str:
    return "record" if why and " " not in why else why


def _record_name(u: Resolved) -> str:
    return sorted(u.records)[0].rpartition(":")[2]


def _describe(
    sink: Sink, reason: str, u: Resolved, k: Resolved, literal: bool, declared: frozenset[str]
) -> tuple[str, str]:
    label = sink.label
    url_why = why(u, (pv.UNKNOWN, pv.OPENAI, pv.OTHER, pv.RELAY))
    key_why = why(k, (pv.OPENAI, pv.OTHER, pv.UNKNOWN, pv.HS))
    if sink.star and not literal:
        base_url_env = next(iter(sorted(declared)), None)
        return "kwargs-constructor", kwargs_message(label.rstrip("()"), base_url_env, url_why, key_why)
    if literal and reason in ("key-to-relay", "still-openai"):
        return (
            "openai-key-beside-url",
            f"{label} is given a literal OpenAI key: migrate never points it at HolySheep; fix: replace the key "
            f"with a HolySheep key read from {NEW_KEY} (or delete it), then run migrate again",
        )
    if reason == "key-to-relay":
        return (
            "key-source",
            f"{label} would reach the relay with {key_why}, which is not a HolySheep key; fix: {_FIX_KEY}, then "
            "run migrate again",
        )
    if reason == "key-unknown":
        return (
            "key-source",
            f"{label} would reach the relay with a key from {key_why}, which migrate cannot tell is HolySheep's; "
            f"fix: {_FIX_KEY}, or {MARK_OK} once it can only hold a HolySheep key",
        )
    if reason in ("holysheep-key-to-openai", "holysheep-key-unknown-url", "holysheep-key-elsewhere"):
        return (
            "holysheep-key-elsewhere",
            f"{label} would send the HolySheep key ({key_why}) to a base URL from {url_why}, not only to the "
            f"relay; fix: make the base URL {BASE_URL} (or read HOLYSHEEP_BASE_URL), or {MARK_OK} once it can "
            "only point at the relay",
        )
    if reason == "still-openai" and not sink.src:
        return "still-openai", f"{label} still calls api.openai.com ({url_why}); fix: {_still_fix(sink)}"
    src = f" ({sink.src})" if sink.src else ""
    return (
        "runtime-url",
        f"{label} base URL is computed at run time{src}: it comes from {url_why}; fix: make it {BASE_URL} (or "
        f"read HOLYSHEEP_BASE_URL), then mark the line `# {MARK}`",
    )


def _still_fix(sink: Sink) -> str:
    if sink.url == OPENAI_URL and sink.key == OPENAI_KEY:
        return (
            f"it reads OPENAI_BASE_URL and OPENAI_API_KEY: set them to {BASE_URL} and a HolySheep key in the app's "
            f"environment (a migrated .env does), or configure it with base_url= and api_key= from {NEW_KEY}"
        )
    return f"give it base_url={BASE_URL!r} and api_key from {NEW_KEY}, then run migrate again"


def why(r: Resolved, order: Iterable[str]) -> str:
    for cls in order:
        if cls in r.classes and r.why.get(cls):
            return r.why[cls]
    return "a value migrate cannot follow"
