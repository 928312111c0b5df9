"""How each model family reports usage behind an OpenAI-compatible relay: the shapes the local server's
relay profile answers with, so that holyclient's usage reader is tested through the public client.

Each family's ``usage`` row in ``_data/capabilities.json`` names its shape (with the source it was read
from). The token counts stay the server's (4 characters a token, 3 per message); what a shape adds:

* ``openai``: prompt-cache reads in ``prompt_tokens_details.cached_tokens`` (Responses:
  ``input_tokens_details``) and writes in ``cache_write_tokens``; a Responses answer splits the writes
  into ``cache_write_tokens_details.ttl_30m_tokens`` / ``ttl_12h_tokens`` (12 hours when the request
  asks ``prompt_cache_options: {"ttl": "12h"}``). OpenAI caches a prompt of 1,024 tokens or more by
  itself: the longest run of leading messages (input items) this server has seen for the model is
  read, the rest written;
* ``claude``: Claude caches only up to a ``cache_control`` breakpoint (on a message or one of its
  parts; ``"ttl": "1h"`` keeps it an hour, else 5 minutes): the longest marked prefix seen before is
  read, the rest up to the last breakpoint written. Reported as relays that translate Anthropic's API
  do: ``cache_read_input_tokens`` and ``cache_creation_input_tokens`` (split by ``cache_creation``'s
  ``ephemeral_5m_input_tokens`` / ``ephemeral_1h_input_tokens``) beside ``prompt_tokens``, which
  includes them, and the reads again in ``prompt_tokens_details.cached_tokens``;
* ``gemini``: thinking tokens in ``completion_tokens_details.reasoning_tokens``, counted *beside*
  ``completion_tokens`` (``total_tokens`` = prompt + completion + reasoning), as relays pass Gemini's
  ``thoughtsTokenCount`` through; ``reasoning_effort: "none"`` thinks not at all;
* ``deepseek``: ``prompt_cache_hit_tokens`` / ``prompt_cache_miss_tokens`` (the prefix seen before is a
  hit), and the hits again in ``cached_tokens``.

``LocalServer(report_cost=k)`` makes the relay report what it charged, ``usage.cost``: the usage at the
price table's list prices (tier, cache reads and writes included) times ``k``, as relays that report
their charge do. Standard library only, like the rest of the server: the prices are read from the same
data file holyclient prices with.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

JSON = dict[str, Any]

SHAPES = ("openai", "claude", "gemini", "deepseek")
#: Prefix hashes remembered for cache hits (oldest forgotten first).
_CACHE_LIMIT = 10_000
#: OpenAI caches prompts of this many tokens or more (https://developers.openai.com/api/docs/guides/prompt-caching).
OPENAI_MIN_CACHED = 1024


class PromptCache:
    """Which prompt prefixes the relay's upstream has seen (per model): what is read, what is written."""

    def __init__(self) -> None:
        self._seen: dict[bytes, None] = {}

    def _prefixes(
        self, model: str, pieces: list[Any], tokens_of: Callable[[Any], int]
    ) -> list[tuple[bytes, int]]:
        """``(key, tokens so far)`` after each piece (message or input item)."""
        digest = hashlib.blake2b(model.encode(), digest_size=16)
        out, total = [], 0
        for piece in pieces:
            digest.update(json.dumps(piece, sort_keys=True).encode())
            total += tokens_of(piece)
            out.append((digest.copy().digest(), total))
        return out

    def _remember(self, key: bytes) -> None:
        self._seen[key] = None
        while len(self._seen) > _CACHE_LIMIT:
            del self._seen[next(iter(self._seen))]

    def implicit(self, model: str, pieces: list[Any], tokens_of: Callable[[Any], int]) -> tuple[int, int]:
        """``(read, new)``: OpenAI's and DeepSeek's automatic prefix cache (every prefix is kept)."""
        prefixes = self._prefixes(model, pieces, tokens_of)
        read = 0
        for key, total in prefixes:
            if key not in self._seen:
                break
            read = total
        for key, _ in prefixes:
            self._remember(key)
        return read, (prefixes[-1][1] if prefixes else 0) - read

    def marked(
        self, model: str, pieces: list[Any], tokens_of: Callable[[Any], int], marks: list[int]
    ) -> tuple[int, int]:
        """``(read, written)``: Claude's cache, kept only at the breakpoints ``marks`` (piece indexes)."""
        if not marks:
            return 0, 0
        prefixes = self._prefixes(model, pieces, tokens_of)
        read = 0
        for index in marks:
            key, total = prefixes[index]
            if key in self._seen:
                read = total
        for index in marks:
            self._remember(prefixes[index][0])
        return read, prefixes[marks[-1]][1] - read


def _marks(messages: list[Any]) -> tuple[list[int], bool]:
    """The indexes of the messages carrying a ``cache_control`` breakpoint, and whether the last one
    asks to be kept an hour."""
    marks, long = [], False
    for index, message in enumerate(messages):
        controls = [message.get("cache_control")] if isinstance(message, dict) else []
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            controls += [part.get("cache_control") for part in content if isinstance(part, dict)]
        found = [c for c in controls if isinstance(c, dict)]
        if found:
            marks.append(index)
            long = any(c.get("ttl") == "1h" for c in found)
    return marks, long


class UsagePlan:
    """One answer's usage in its family's shape: the cache figures are worked out once, when the
    request arrives (the prompt cache changes with every request), and applied to the usage the
    answer reports (the JSON answer and a stream's usage chunk alike)."""

    def __init__(
        self,
        shape: str | None,
        *,
        read: int = 0,
        write: int = 0,
        long: bool = False,
        reasoning: int = 0,
        cost: Callable[[int, int, int, int, int], float | None] | None = None,
    ) -> None:
        self.shape = shape
        self.read, self.write, self.long, self.reasoning = read, write, long, reasoning
        self._cost = cost

    def chat(self, usage: JSON) -> JSON:
        """A Chat Completions usage in the family's shape."""
        shape, read, write = self.shape, self.read, self.write
        prompt_details = usage.setdefault("prompt_tokens_details", {})
        if shape in ("openai", "claude", "deepseek"):
            prompt_details["cached_tokens"] = read
        if shape == "openai":
            prompt_details["cache_write_tokens"] = write
        elif shape == "claude":
            usage["cache_read_input_tokens"] = read
            usage["cache_creation_input_tokens"] = write
            usage["cache_creation"] = {
                "ephemeral_5m_input_tokens": 0 if self.long else write,
                "ephemeral_1h_input_tokens": write if self.long else 0,
            }
        elif shape == "gemini":
            usage.setdefault("completion_tokens_details", {})["reasoning_tokens"] = self.reasoning
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"] + self.reasoning
        elif shape == "deepseek":
            usage["prompt_cache_hit_tokens"] = read
            usage["prompt_cache_miss_tokens"] = usage["prompt_tokens"] - read
        self._add_cost(usage, usage["prompt_tokens"], usage["completion_tokens"])
        return usage

    def responses(self, usage: JSON) -> JSON:
        """A Responses API usage in the family's shape."""
        shape, read, write = self.shape, self.read, self.write
        details = usage.setdefault("input_tokens_details", {})
        if shape in ("openai", "claude", "deepseek"):
            details["cached_tokens"] = read
        if shape in ("openai", "claude"):
            details["cache_write_tokens"] = write
        if shape == "openai":
            details["cache_write_tokens_details"] = {
                "ttl_30m_tokens": 0 if self.long else write,
                "ttl_12h_tokens": write if self.long else 0,
            }
        elif shape == "gemini":
            usage.setdefault("output_tokens_details", {})["reasoning_tokens"] = self.reasoning
            usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"] + self.reasoning
        self._add_cost(usage, usage["input_tokens"], usage["output_tokens"])
        return usage

    def _add_cost(self, usage: JSON, prompt: int, completion: int) -> None:
        if self._cost is None:
            return
        write_long = self.write if self.long else 0
        cost = self._cost(prompt, self.read, self.write - write_long, write_long, completion + self.reasoning)
        if cost is not None:
            usage["cost"] = cost


def plan(
    shape: str | None,
    model: str,
    body: Mapping[str, Any],
    pieces: list[Any],
    tokens_of: Callable[[Any], int],
    cache: PromptCache,
    completion_of: Callable[[], int],
    cost_factor: float | None,
) -> UsagePlan:
    """The usage plan of a request whose prompt is ``pieces`` (messages, or Responses input items)."""
    read = write = reasoning = 0
    long = False
    if shape == "deepseek" or (shape == "openai" and sum(map(tokens_of, pieces)) >= OPENAI_MIN_CACHED):
        read, new = cache.implicit(model, pieces, tokens_of)
        if shape == "openai":
            write = new
            options = body.get("prompt_cache_options")
            long = isinstance(options, dict) and options.get("ttl") == "12h"
    elif shape == "claude":
        marks, long = _marks(pieces)
        read, write = cache.marked(model, pieces, tokens_of, marks)
    elif shape == "gemini" and body.get("reasoning_effort") != "none":
        reasoning = 2 * completion_of() + 16
    cost = None
    if cost_factor is not None:
        price = price_of(model)
        if price is not None:
            cost = lambda p, r, w, wl, c: _list_cost(price, p, r, w, wl, c) * cost_factor  # noqa: E731
    return UsagePlan(shape, read=read, write=write, long=long, reasoning=reasoning, cost=cost)


@lru_cache(maxsize=1)
def _prices() -> dict[str, JSON]:
    text = resources.files("holyclient").joinpath("_data", "models.json").read_text("utf-8")
    entries: dict[str, JSON] = json.loads(text)["models"]
    by_name: dict[str, JSON] = {}
    for name, entry in entries.items():
        for known in (name, *entry.get("aliases", ()), *entry.get("snapshots", ())):
            by_name[known.lower()] = entry
    return by_name


def price_of(model: str) -> JSON | None:
    """The price-table entry of ``model`` (its name, an alias or a snapshot), or None."""
    return _prices().get(model.strip().lower())


def _list_cost(entry: JSON, prompt: int, read: int, write: int, write_long: int, completion: int) -> float:
    """USD at list price: the tier the prompt falls in, reads at the cached price, writes at their
    retention's write price (the input price when none is listed), output at the output price."""
    price = entry
    for tier in sorted(entry.get("tiers", ()), key=lambda t: t["above_input_tokens"]):
        if prompt > tier["above_input_tokens"]:
            price = {**entry, **tier}
    cached = price.get("cached_input")
    short = price.get("cache_write")
    short = price["input"] if short is None else short
    long = price.get("cache_write_long")
    long = short if long is None else long
    uncached = prompt - read - write - write_long
    input_usd = uncached * price["input"] + read * (price["input"] if cached is None else cached)
    usd = (input_usd + write * short + write_long * long + completion * price["output"]) / 1e6
    return float(f"{usd:.12g}") if math.isfinite(usd) else 0.0
