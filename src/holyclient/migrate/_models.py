"""Retired and unserved model names, each with the closest model the relay serves.

The served list is the price table's model list (``holyclient/_data/models.json``: names, aliases and
snapshots; an entry whose notes say "retired" is not served). The codemod stands apart from the client
(an import-linter contract), so it reads that data file with the standard library instead of importing
``holyclient.pricing``: one JSON file, read once per process, is the same source of truth.

The closest served model: the name with its date or variant suffixes taken off one at a time
(``gpt-3.5-turbo-0301`` -> ``gpt-3.5-turbo``); for OpenAI's retired families, the model OpenAI named as
their replacement when it is served (completions models -> ``gpt-3.5-turbo-instruct``, the first
embeddings -> ``text-embedding-3-small``); else the served name most like it.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from importlib import resources

from ._report import Finding

#: a model name as OpenAI spells them, whole (not inside a longer word, path or version)
_NAME = re.compile(
    r"(?<![\w.-])(?:gpt-(?:3\.5|4|5)[\w.]*(?:-[\w.]+)*"
    r"|(?:text|code)-(?:davinci|curie|babbage|ada|cushman|search|similarity|embedding)-[\w-]+"
    r"|(?:davinci|curie|babbage)(?:-\d{3})?(?=[\"'])"
    r"|o1-(?:mini|preview)(?:-\d{4}-\d{2}-\d{2})?)(?![\w/-])"
)
_CHEAP = ("gpt-", "davinci", "curie", "babbage", "text-ada", "code-", "o1-")
_FAMILIES = (
    (
        re.compile(r"(?:text|code)-(?:search|similarity)|-embedding-|^text-embedding"),
        "text-embedding-3-small",
    ),
    (re.compile(r"davinci|curie|babbage|(?:^|-)ada(?:-|$)|cushman"), "gpt-3.5-turbo-instruct"),
)
_SUFFIX = re.compile(r"-[^-]+$")


@functools.lru_cache(maxsize=1)
def served() -> frozenset[str]:
    """Every name the price table serves: entry names, aliases, snapshots (not retired entries)."""
    text = resources.files("holyclient").joinpath("_data/models.json").read_text("utf-8")
    names: set[str] = set()
    for name, entry in json.loads(text)["models"].items():
        if "retired" in str(entry.get("notes", "")).lower():
            continue
        names.add(name)
        names.update(entry.get("aliases", ()), entry.get("snapshots", ()))
    return frozenset(names)


def closest(name: str) -> str:
    """The served model nearest to ``name`` (see the module docstring for the rule)."""
    table = served()
    for pattern, replacement in _FAMILIES:
        if pattern.search(name) and replacement in table:
            return replacement
    stem = name
    while "-" in stem:
        stem = _SUFFIX.sub("", stem)
        if stem in table:
            return stem
    family = "gpt-" if name.startswith("gpt-") else name[:1]
    # the same family, without special-purpose variants (audio, realtime) unless the name asks for one
    main = sorted(
        n
        for n in table
        if n.startswith(family) and all(v in name or v not in n for v in ("audio", "realtime"))
    )
    bare = name.replace("-preview", "")
    return (difflib.get_close_matches(bare, main or sorted(table), n=1, cutoff=0.0) or sorted(table))[0]


def unserved(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, str]]:
    """``(offset, name)`` of each model name in ``text[start:end]`` that the relay does not serve."""
    stop = len(text) if end is None else end
    if not any(text.find(c, start, stop) >= 0 for c in _CHEAP):
        return []
    table = served()
    hits = ((m.start(), m.group().rstrip(".")) for m in _NAME.finditer(text, start, stop))
    return [(at, name) for at, name in hits if name not in table]


def model_finding(line: int, name: str) -> Finding:
    return (
        line,
        "model",
        "review",
        f"model {name!r} is retired or not served by the relay; closest it serves: {closest(name)!r}",
    )
