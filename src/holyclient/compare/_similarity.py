"""How alike two answers are: one number in [0, 1] and the method that produced it. No I/O.

Each endpoint's answer is first reduced to what can be judged (:func:`output_of`): the first choice's
message for chat, its ``text`` for completions, the output text (or function calls) for responses,
the vectors for embeddings, the flags (``flagged`` and ``categories``) for moderations. Then:

* JSON output (``response_format`` json, tool calls, moderation flags): the parsed values are compared
  structurally; equal values score 1, otherwise the share of equal leaves (so one changed field out of
  ten scores 0.9).
* Vectors (embeddings): the mean cosine similarity of each input's pair of vectors (below 0 counts as 0;
  a different number of vectors or dimensions scores 0).
* Prose: 1 when equal after normalising case and whitespace, else ``rapidfuzz``'s normalised
  Indel ratio (imported on first use: ``import holyclient`` stays light).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._constants import CHAT_COMPLETIONS_URL, COMPLETIONS_URL, EMBEDDINGS_URL, MODERATIONS_URL, RESPONSES_URL

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Output:
    """What one side answered, reduced to what similarity compares.

    Attributes:
        kind: ``"text"``, ``"json"`` (parsed JSON content, tool calls or moderation flags), ``"vector"``
            (embeddings: a list of vectors) or ``"error"``.
        value: the text, the parsed JSON value, the vectors, or the error summary.
    """

    kind: str
    value: Any

    def display(self) -> str:
        if self.kind == "json":
            return json.dumps(self.value, ensure_ascii=False, sort_keys=True)
        if self.kind == "vector":  # thousands of floats say nothing to a reader: their shape and start
            dims = len(self.value[0]) if self.value else 0
            head = ", ".join(f"{x:.4f}" for x in (self.value[0][:3] if self.value else []))
            return f"{len(self.value)} vector(s) of {dims} dimensions: [{head}, ...]"
        return str(self.value)


@dataclass(frozen=True)
class Similarity:
    score: float
    method: str  # "exact", "normalised", "json", "cosine", "fuzzy", "error"


def normalise(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def output_of(body: Any, json_mode: bool, url: str = CHAT_COMPLETIONS_URL) -> Output:
    """What the answer ``body`` of the endpoint ``url`` says, as an :class:`Output`.

    Chat is the default (its first choice's message); ``json_mode`` reads JSON content as JSON.
    """
    reader = _READERS.get(url, _chat)
    try:
        return reader(body, json_mode)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        return Output("error", f"not a {url} answer")


def _calls(calls: Sequence[Any]) -> Output:
    """Tool or function calls as JSON: each name with its parsed arguments."""
    parsed = []
    for call in calls:
        function = call.get("function") or call  # chat nests the call; responses do not
        try:
            arguments = json.loads(function.get("arguments") or "null")
        except ValueError:
            arguments = function.get("arguments")
        parsed.append({"name": function.get("name"), "arguments": arguments})
    return Output("json", parsed)


def _text(text: str, json_mode: bool) -> Output:
    if json_mode:
        try:
            return Output("json", json.loads(text))
        except ValueError:
            pass  # a JSON request answered with prose: compare as text
    return Output("text", text)


def _chat(body: Any, json_mode: bool) -> Output:
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return Output("error", "no choices in the response")
    calls = message.get("tool_calls") if isinstance(message, Mapping) else None
    if calls:
        return _calls(calls)
    content = message.get("content") if isinstance(message, Mapping) else None
    return _text(content if isinstance(content, str) else "", json_mode)


def _completion(body: Any, json_mode: bool) -> Output:
    text = body["choices"][0].get("text")
    return Output("text", text if isinstance(text, str) else "")


def _response(body: Any, json_mode: bool) -> Output:
    """The Responses API's output text (its ``output_text`` parts joined), or its function calls."""
    items = [item for item in body["output"] if isinstance(item, Mapping)]
    calls = [item for item in items if item.get("type") == "function_call"]
    if calls:
        return _calls(calls)
    parts = [
        part.get("text") or ""
        for item in items
        if item.get("type") == "message"
        for part in item.get("content") or ()
        if isinstance(part, Mapping) and part.get("type") == "output_text"
    ]
    return _text("".join(parts), json_mode)


def _embedding(body: Any, json_mode: bool) -> Output:
    from .._core import base64_floats

    vectors = []
    for item in sorted(body["data"], key=lambda item: item.get("index", 0)):
        vector = item["embedding"]
        # A recorded request may ask for base64 (the client does when the caller gave no format).
        vectors.append(base64_floats(vector) if isinstance(vector, str) else [float(x) for x in vector])
    return Output("vector", vectors)


def _moderation(body: Any, json_mode: bool) -> Output:
    """The flags only: scores move between runs of one model, the verdicts should not."""
    return Output(
        "json", [{"flagged": r.get("flagged"), "categories": r.get("categories")} for r in body["results"]]
    )


#: Each Batch API url's reader (chat is the default).
_READERS = {
    COMPLETIONS_URL: _completion,
    RESPONSES_URL: _response,
    EMBEDDINGS_URL: _embedding,
    MODERATIONS_URL: _moderation,
}


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def vector_similarity(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> float:
    """The mean cosine of each pair of vectors, floored at 0; 0 when the shapes differ."""
    if not a or len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b, strict=True)):
        return 0.0
    return sum(max(0.0, cosine(x, y)) for x, y in zip(a, b, strict=True)) / len(a)


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
    if a.kind == "vector" and b.kind == "vector":
        return Similarity(vector_similarity(a.value, b.value), "cosine")
    ta, tb = a.display(), b.display()
    if ta == tb:
        return Similarity(1.0, "exact")
    na, nb = normalise(ta), normalise(tb)
    if na == nb:
        return Similarity(1.0, "normalised")
    return Similarity(fuzzy_ratio(na, nb), "fuzzy")
