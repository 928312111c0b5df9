"""How good a token count is: the method behind it, and a range that holds the billed count.

A model whose tokenizer holyclient does not have is counted with ``o200k_base`` as a stand-in. How far
that is from what the model bills depends on the model family and on the content: Claude needs ~16%
more tokens than o200k_base for English prose, ~30% more for Python, 1.7-2.1x for Chinese (the
measurements, with their sources and dates, are in ``_data/models.json`` under ``counting``). So a
stand-in count is turned into an estimate (the count times the family's typical ratio for the content)
and a range (the count times the lowest and highest published ratio), weighted by how much of the
request is prose, code, CJK text, JSON or tool schemas.

Content kinds are told apart by cheap character statistics on a bounded sample of each text, so the
ranges cost little even on huge requests; OpenAI models counted exactly never come here.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

__all__ = [
    "KINDS",
    "CountMethod",
    "Family",
    "Ratios",
    "classify",
    "family_for",
    "kind_weights",
    "weighted_ratios",
]

CountMethod = Literal["exact", "calibrated", "approximate"]

#: The content kinds the published measurements distinguish.
KINDS: tuple[str, ...] = ("prose", "code", "cjk", "json", "tools")

#: Characters of each text looked at to tell its kind: enough to be sure, bounded for huge texts.
_SAMPLE = 4000

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
_CODE = re.compile(
    r"^\s*(?:def |class |import |from \S+ import|return\b|if .*:\s*$|for .*:\s*$|function\b|const |let |var |"
    r"#include|public |private |fn |package |func |SELECT |\}|```)|[;{}]\s*$|==|!=|->|=>|\(\)",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Ratios:
    """Billed tokens per stand-in token: the lowest, typical and highest published figure."""

    low: float
    typical: float
    high: float


@dataclass(frozen=True)
class Family:
    """A model family's ratios per content kind, and what is known about its tokenizer."""

    name: str
    match: tuple[str, ...]
    ratios: dict[str, Ratios]
    tokenizer: str
    sources: tuple[str, ...]
    tools_overhead: Ratios = Ratios(0, 0, 0)  # tokens a request with tools also bills (a tool-use prompt)


_families: dict[str, Family] | None = None
_lock = threading.Lock()


def _load() -> dict[str, Family]:
    global _families
    if _families is None:
        with _lock:
            if _families is None:
                text = resources.files("holyclient").joinpath("_data/models.json").read_text("utf-8")
                data = json.loads(text)["counting"]["families"]
                _families = {
                    name: Family(
                        name,
                        tuple(entry["match"]),
                        {kind: Ratios(*entry["ratios"][kind]) for kind in KINDS},
                        entry["tokenizer"],
                        tuple(entry["sources"]),
                        Ratios(*entry.get("tools_overhead", (0, 0, 0))),
                    )
                    for name, entry in data.items()
                }
    return _families


def family(name: str) -> Family:
    """A family by name (``claude``, ``gemini``, ``deepseek``, ``other``, ``openai-rules``...)."""
    return _load()[name]


def family_for(model: str) -> Family:
    """The family whose name prefix matches ``model`` best (longest match); ``other`` when none does."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    best: Family | None = None
    best_len = 0
    for candidate in _load().values():
        for prefix in candidate.match:
            if name.startswith(prefix) and len(prefix) > best_len:
                best, best_len = candidate, len(prefix)
    return best if best is not None else family("other")


def classify(text: str) -> str:
    """The content kind of a text: ``cjk``, ``json``, ``code`` or ``prose`` (tool schemas are known
    from where they sit in the request, not from their text)."""
    sample = text[:_SAMPLE]
    visible = len(sample) - sample.count(" ") - sample.count("\n")
    if visible <= 0:
        return "prose"
    if len(_CJK.findall(sample)) * 5 >= visible:  # a fifth of the characters: CJK dominates the tokens
        return "cjk"
    stripped = sample.strip()
    if stripped[:1] in "{[" and _looks_json(stripped):
        return "json"
    lines = sample.count("\n") + 1
    if (len(_CODE.findall(sample)) * 3 >= lines and lines > 1) or "```" in sample:
        return "code"
    return "prose"


def _looks_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return len(text) == _SAMPLE and text.count('":') >= 3  # a long document cut by the sample
    return True


def kind_weights(texts: Iterable[str], tools_tokens: int = 0) -> dict[str, float]:
    """How much of a request each kind makes up, in estimated tokens (CJK characters weigh about one
    token each, other characters about a quarter); ``tools_tokens`` is the counted tool schemas."""
    weights: dict[str, float] = {}
    for text in texts:
        if not text:
            continue
        kind = classify(text)
        weight = len(text) if kind == "cjk" else len(text) / 4
        weights[kind] = weights.get(kind, 0.0) + weight
    if tools_tokens:
        weights["tools"] = weights.get("tools", 0.0) + tools_tokens
    return weights


def weighted_ratios(ratios: Mapping[str, Ratios], weights: Mapping[str, float]) -> Ratios:
    """The ratios of a request mixing kinds in the proportions ``weights`` (prose when it is empty)."""
    total = sum(weights.values())
    if total <= 0:
        return ratios["prose"]
    low = typical = high = 0.0
    for kind, weight in weights.items():
        r = ratios[kind]
        share = weight / total
        low += r.low * share
        typical += r.typical * share
        high += r.high * share
    return Ratios(low, typical, high)


def texts_of(value: Any) -> list[str]:
    """The strings of a message list or request value, for :func:`kind_weights` (bounded per item)."""
    out: list[str] = []
    _collect(value, out, 0)
    return out


def _collect(value: Any, out: list[str], depth: int) -> None:
    if depth > 20 or len(out) > 10_000:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if key not in ("role", "type", "tool_call_id", "id", "image_url", "detail", "url"):
                _collect(item, out, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _collect(item, out, depth + 1)
    elif hasattr(value, "model_dump"):
        _collect(value.model_dump(exclude_none=True), out, depth + 1)
