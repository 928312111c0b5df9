"""How alike two answers are: one number in [0, 1] and the method that produced it. No I/O.

* JSON output (``response_format`` json, or tool calls): the parsed values are compared structurally;
  equal values score 1, otherwise the share of equal leaves (so one changed field out of ten scores 0.9).
* Prose: 1 when equal after normalising case and whitespace, else ``rapidfuzz``'s normalised
  Indel ratio (imported on first use: ``import holyclient`` stays light).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Output:
    """What one side answered, reduced to what similarity compares.

    Attributes:
        kind: ``"text"``, ``"json"`` (parsed JSON content or tool calls) or ``"error"``.
        value: the text, the parsed JSON value, or the error summary.
    """

    kind: str
    value: Any

    def display(self) -> str:
        if self.kind == "json":
            return json.dumps(self.value, ensure_ascii=False, sort_keys=True)
        return str(self.value)


@dataclass(frozen=True)
class Similarity:
    score: float
    method: str  # "exact", "normalised", "json", "fuzzy", "error"


def normalise(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def output_of(body: Any, json_mode: bool) -> Output:
    """The first choice of a chat completion body as an :class:`Output`."""
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return Output("error", "no choices in the response")
    calls = message.get("tool_calls") if isinstance(message, Mapping) else None
    if calls:
        parsed = []
        for call in calls:
            function = call.get("function") or {}
            try:
                arguments = json.loads(function.get("arguments") or "null")
            except ValueError:
                arguments = function.get("arguments")
            parsed.append({"name": function.get("name"), "arguments": arguments})
        return Output("json", parsed)
    content = message.get("content") if isinstance(message, Mapping) else None
    text = content if isinstance(content, str) else ""
    if json_mode:
        try:
            return Output("json", json.loads(text))
        except ValueError:
            pass  # a JSON request answered with prose: compare as text
    return Output("text", text)


def _leaves(value: Any, path: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(_leaves(item, f"{path}/{key}"))
        return out or {path: {}}
    if isinstance(value, list):
        out = {}
        for i, item in enumerate(value):
            out.update(_leaves(item, f"{path}[{i}]"))
        return out or {path: []}
    return {path: value}


def json_similarity(a: Any, b: Any) -> float:
    if a == b:
        return 1.0
    left, right = _leaves(a), _leaves(b)
    paths = set(left) | set(right)
    same = sum(1 for p in paths if p in left and p in right and left[p] == right[p])
    return same / len(paths) if paths else 0.0


def fuzzy_ratio(a: str, b: str) -> float:
    from rapidfuzz.fuzz import ratio

    return float(ratio(a, b)) / 100.0


def similarity(a: Output, b: Output) -> Similarity:
    """How alike two outputs are; an error on either side scores 0."""
    if a.kind == "error" or b.kind == "error":
        return Similarity(0.0, "error")
    if a.kind == "json" and b.kind == "json":
        return Similarity(json_similarity(a.value, b.value), "json")
    ta, tb = a.display(), b.display()
    if ta == tb:
        return Similarity(1.0, "exact")
    na, nb = normalise(ta), normalise(tb)
    if na == nb:
        return Similarity(1.0, "normalised")
    return Similarity(fuzzy_ratio(na, nb), "fuzzy")
