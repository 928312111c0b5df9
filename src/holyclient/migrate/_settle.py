"""Between the rewriters and the report: each file's facts before and after its rewrite (read by the
proof's own extractors), the proof over the whole run (:mod:`._proof`), and its verdict applied to the
results -- a file whose pairing the run may not change goes back to how it was, a file ``--sdk`` may
not switch is rewritten without it, and every site the proof could not complete is reported.
"""

from __future__ import annotations

import codecs
import io
import os
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

from . import _filefacts, _jsfacts, _notebook, _proof, _pysinks, _walk
from ._edits import Edit
from ._facts import Facts, line_mapper, remap
from ._filefacts import is_provider
from ._report import FileResult, Site
from ._rules import MARK, KeyMode
from ._text import JS_SUFFIXES
from ._world import Extra

PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")
#: findings that mean "a literal key is written here": a done mark never silences them
SECRET_KINDS = frozenset({"key-value", "hardcoded-key", "openai-key-beside-url"})

#: (path, data, keys, rewrite_realtime, base_url_env, sdk, hints): one file's rewrite
Args = tuple[str, bytes, KeyMode, bool, "str | None", bool, frozenset[str]]
Rewrite = Callable[
    [str, bytes, KeyMode, bool, "str | None", bool, frozenset[str]], tuple[FileResult, list[Edit[bytes]]]
]


@dataclass
class Job:
    """One file rewritten by a worker, with the proof's facts of it before and after."""

    result: FileResult
    before: Facts
    after: Facts | None
    args: Args


def facts_of(path: str, data: bytes) -> Facts:
    """The proof's facts of one file's bytes (empty for what no extractor can read)."""
    low = path.lower()
    try:
        if low.endswith(PYTHON_SUFFIXES):
            skip = 3 if data.startswith(codecs.BOM_UTF8) else 0
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            text = data[skip:].decode("utf-8" if encoding == "utf-8-sig" else encoding)
            if text.count("\r") != text.count("\r\n"):
                return Facts(path, "python")
            return _pysinks.extract(path, text)
        if low.endswith(".ipynb"):
            text = data.decode("utf-8-sig")
            code, to_file = _notebook.code_view(text)
            facts = remap(_pysinks.extract(path, code), to_file)
            prose, prose_to_file = _notebook.code_view(text, code=False)
            other = remap(_filefacts.extract(path + ".md", prose.encode("utf-8")), prose_to_file)
            facts.keys.extend(other.keys)
            facts.raw_relay.extend(other.raw_relay)
            facts.raw_openai.extend(other.raw_openai)
            facts.marked |= other.marked
            return facts
        if low.endswith(JS_SUFFIXES):
            return _jsfacts.extract(path, data)
        return _filefacts.extract(path, data)
    except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, LookupError, MemoryError):
        return Facts(path, "python" if low.endswith(PYTHON_SUFFIXES) else "text")


def job(args: Args, rewrite: Rewrite) -> Job:
    path, data = args[0], args[1]
    result, edits = rewrite(*args)
    before = facts_of(path, data)
    after = None
    if result.after != data:
        after = remap(facts_of(path, result.after), line_mapper(data, edits))
    return Job(result, before, after, args)


def settle(
    jobs: list[Job],
    rewrite: Rewrite,
    *,
    declared: frozenset[str] = frozenset(),
    pinned: set[str] | frozenset[str] = frozenset(),
    ignored: set[str] | frozenset[str] = frozenset(),
    others: list[str] | None = None,
) -> list[FileResult]:
    """Prove the run and apply the verdict; the final results, in the order of ``jobs``.

    ``pinned``: files that will not be written (git-ignored without ``--force``): the proof takes them
    as they are. ``others``: files read but not matching the prefilter, which names in the matching ones
    may lead to (modules, config and environment files).
    """
    by_path = {j.result.path: j for j in jobs}

    def rerun(path: str) -> Callable[[bool, frozenset[str]], Facts | None]:
        def again(sdk: bool, hints: frozenset[str]) -> Facts | None:
            args = by_path[path].args
            new = job((args[0], args[1], args[2], args[3], args[4], sdk, hints), rewrite)
            by_path[path] = new
            return new.after if new.result.status != "failed" else None

        return again

    states = [
        _proof.FileState(
            j.result.path,
            j.before,
            j.after if j.result.status != "failed" else None,
            pinned=j.result.path in pinned,
            sdk=bool(j.args[5]),
            hints=j.args[6],
            rerun=rerun(j.result.path) if j.result.status != "failed" else None,
        )
        for j in jobs
    ]
    env_files, lazy = _extra(others or [], set(by_path))
    states.extend(env_files)
    found = _proof.settle(states, declared, Extra(lazy, _load))
    results = []
    for state in states:
        j = by_path.get(state.path)
        if j is None:
            continue
        result = j.result  # the last rewrite of the file (a second pass replaces the first)
        result.ignored = state.path in ignored
        if state.reverted or state.pinned:
            if state.pinned and result.after != result.before:
                result.sites.append(_ignored_site(result))
            result.after = result.before
            result.status = "unchanged" if result.status != "failed" else result.status
            result.sites = [s for s in result.sites if s.action != "rewrite"]
        result.sites = _without_marked(result, [Site(result.path, *f) for f in found.get(state.path, [])])
        results.append(result)
    return results


def _extra(paths: list[str], known: set[str]) -> tuple[list[_proof.FileState], list[str]]:
    """Files outside the prefilter that the proof may need: the environment files (read now: every
    variable they set is part of the run's environment), and the modules and config files a name may
    lead into (read when one does: ``_world.Extra``)."""
    states, lazy = [], []
    for path in paths:
        if path in known:
            continue
        if is_provider(path, ""):
            facts = _load(path)
            if facts is not None and facts.env_sets:
                states.append(_proof.FileState(path, facts, None))
        else:
            lazy.append(path)
    return states, lazy


def _load(path: str) -> Facts | None:
    data = _walk.read(path)
    return None if data is None or b"\0" in data else facts_of(path, data)


def _without_marked(result: FileResult, proof: list[Site]) -> list[Site]:
    """A line marked ``holyclient-migrate: ok`` drops its review sites, never a literal key's."""
    marked = {i + 1 for i, line in enumerate(result.before.split(b"\n")) if MARK.encode() in line}
    paired = {s.line for s in proof if s.kind == "openai-key-beside-url"}
    kept = [
        s
        for s in result.sites
        if (s.action in ("rewrite", "error") or s.kind in SECRET_KINDS or s.line not in marked)
        and not (s.kind in SECRET_KINDS and s.line in paired)  # said once, by the proof
    ]
    seen = {(s.line, s.kind, s.action) for s in kept}
    kept.extend(s for s in proof if (s.line, s.kind, s.action) not in seen)
    return sorted(kept, key=lambda s: (s.line, s.kind, s.action, s.message))


def _ignored_site(result: FileResult) -> Site:
    """What a git-ignored file that migrate did not write holds, and the edit to make (never a value)."""
    names = sorted({s.message.split(" ", 1)[0] for s in result.sites if s.kind in ("key", "key-value")})
    edits = [f"line {s.line}: {s.message}" for s in result.sites if s.action == "rewrite"][:6]
    holds = f"it sets {', '.join(names)}; " if names else ""
    return Site(
        result.path,
        1,
        "ignored-file",
        "review",
        f"git-ignored, so not written (git could not undo it): {holds}the edit to make: {'; '.join(edits)} "
        "(or run with --force: migrate writes it and keeps a backup)",
    )


def name_of(path: str) -> str:
    return os.path.basename(path)
