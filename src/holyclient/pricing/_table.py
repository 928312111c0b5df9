"""The price table: entries, lookup by name, alias or snapshot, and user price files.

Kept apart from :mod:`holyclient.pricing` (the cost API) so each stays small; pricing re-exports
everything public from here.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from .._exceptions import HolyClientError

_DATE_SUFFIX = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$")
_RESOLVED_KEPT = 1024


class UnknownModelError(HolyClientError, LookupError):
    """No price is known for a model; the message lists close matches and how to add one."""

    def __init__(self, message: str, *, model: str, suggestions: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.model = model
        self.suggestions = suggestions


class PriceFileError(HolyClientError, ValueError):
    """A user price file cannot be read or has the wrong shape (the message names the file and field)."""


@dataclass(frozen=True)
class Price:
    """USD per 1M tokens. ``cached_input`` is what a prompt-cache hit (a read) costs per input token;
    ``audio_input`` / ``audio_output`` what audio tokens cost (None: the text price).

    ``cache_write`` is what writing a token to the prompt cache costs at the provider's short retention
    (Anthropic's 5 minutes, OpenAI's 30 minutes), ``cache_write_long`` at its long one (1 hour, 12 hours).
    None: the table has no published write price for the model; a write it reports is then priced at
    the input price (``cache_write``) or the short retention's (``cache_write_long``), and flagged.
    """

    input: float
    cached_input: float
    output: float
    audio_input: float | None = None
    audio_output: float | None = None
    cache_write: float | None = None
    cache_write_long: float | None = None

    @property
    def write(self) -> float:
        """USD per 1M tokens written at the short retention (the input price when none is published)."""
        return self.input if self.cache_write is None else self.cache_write

    @property
    def write_long(self) -> float:
        """USD per 1M tokens written at the long retention (the short one's when none is published)."""
        return self.write if self.cache_write_long is None else self.cache_write_long


@dataclass(frozen=True)
class Tier:
    """Prices that apply to the whole request once its input exceeds ``above_input_tokens``."""

    above_input_tokens: int
    price: Price


@dataclass(frozen=True)
class ModelInfo:
    """One row of the price table."""

    name: str
    provider: str
    encoding: str
    approximate: bool
    context_window: int
    max_output_tokens: int
    price: Price
    tiers: tuple[Tier, ...] = ()
    aliases: tuple[str, ...] = ()
    snapshots: tuple[str, ...] = ()
    source: str = ""
    as_of: str = ""
    notes: str = ""
    has_cache_price: bool = True
    #: where the cache-write prices come from, and when they were read (empty: none published here)
    cache_write_source: str = ""
    cache_write_as_of: str = ""

    def price_for(self, input_tokens: int) -> Price:
        """The prices that apply to a request with ``input_tokens`` prompt tokens (tiers included)."""
        price = self.price
        for tier in self.tiers:
            if input_tokens > tier.above_input_tokens:
                price = tier.price
        return price


@dataclass
class PriceTable:
    """Models by name, with aliases and snapshots resolved to their entry."""

    models: dict[str, ModelInfo] = field(default_factory=dict)
    _index: dict[str, str] = field(default_factory=dict, init=False, repr=False)  # built by merge()
    #: What :meth:`_resolve` found for a name (the entry's name, or None): every settled answer looks
    #: its model up, and resolving a dated or prefixed name runs a regular expression.
    _resolved: dict[str, str | None] = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def builtin(cls) -> PriceTable:
        """The table shipped with holyclient."""
        text = resources.files("holyclient").joinpath("_data/models.json").read_text("utf-8")
        table = cls()
        table.merge(json.loads(text), origin="holyclient/_data/models.json")
        return table

    @classmethod
    def load(cls, path: str | Path | None = None, *, use_env: bool = True) -> PriceTable:
        """The built-in table, extended by ``path`` or, when no path is given, by ``HOLYSHEEP_PRICES``.

        Raises:
            PriceFileError: the file is missing, not JSON, or an entry has the wrong shape.
        """
        table = cls.builtin()
        if path is None and use_env:
            from .._config import prices_file_from_env

            path = prices_file_from_env()
        if path is not None:
            table.merge_file(path)
        return table

    def merge_file(self, path: str | Path) -> None:
        """Add or override entries from a JSON price file."""
        try:
            text = Path(path).read_text("utf-8-sig")  # a BOM from a Windows editor is fine
        except OSError as exc:
            raise PriceFileError(f"{path}: cannot read price file: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            line = Path(path).read_bytes()[: exc.start].count(b"\n") + 1
            raise PriceFileError(f"{path}:{line}: not UTF-8 text; save the price file as UTF-8") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PriceFileError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
        except RecursionError:
            raise PriceFileError(f"{path}: invalid JSON: nested too deeply") from None
        self.merge(data, origin=str(path))

    def merge(self, data: Any, *, origin: str = "<prices>") -> None:
        """Add or override entries from a parsed price document (``{"models": {name: entry}}``)."""
        models = data.get("models") if isinstance(data, Mapping) else None
        if not isinstance(models, Mapping):
            raise PriceFileError(f'{origin}: expected an object with a "models" object')
        for name, entry in models.items():
            if not isinstance(entry, Mapping):
                raise PriceFileError(f"{origin}: models.{name}: expected an object")
            base = self.models.get(name) or self._resolve(name)
            info = _parse_entry(
                name, entry, base if base and base.name == name else None, f"{origin}: models.{name}"
            )
            self._add(info)

    def _add(self, info: ModelInfo) -> None:
        self._resolved.clear()
        self.models[info.name] = info
        self._index[info.name.lower()] = info.name
        for other in (*info.aliases, *info.snapshots):
            self._index[other.lower()] = info.name

    def _resolve(self, model: str) -> ModelInfo | None:
        try:
            name = self._resolved[model]
        except KeyError:
            if len(self._resolved) >= _RESOLVED_KEPT:  # names from user input: keep the memo bounded
                self._resolved.clear()
            name = self._resolved[model] = self._resolve_name(model)
        return None if name is None else self.models[name]

    def _resolve_name(self, model: str) -> str | None:
        key = model.strip().lower()
        candidates = [key]
        if key.startswith("ft:"):  # ft:gpt-4o-mini-2024-07-18:org::id -> base model price
            candidates.append(key[3:].split(":", 1)[0])
        if "/" in key:
            candidates.append(key.rsplit("/", 1)[-1])
        for candidate in list(candidates):
            undated = _DATE_SUFFIX.sub("", candidate)
            if undated != candidate:
                candidates.append(undated)
        for candidate in candidates:
            name = self._index.get(candidate)
            if name is not None:
                return name
        return None

    def lookup(self, model: str) -> ModelInfo:
        """Find a model by name, alias or dated snapshot (``gpt-4.1-2025-04-14`` -> ``gpt-4.1``).

        Raises:
            UnknownModelError: no entry; the message lists close matches and how to add a price.
        """
        info = self._resolve(model)
        if info is None:
            raise self.unknown(model)
        return info

    def get(self, model: str) -> ModelInfo | None:
        """Like :meth:`lookup`, but None for an unknown model."""
        return self._resolve(model)

    def unknown(self, model: str) -> UnknownModelError:
        suggestions = tuple(
            self._index[m]
            for m in difflib.get_close_matches(model.lower(), list(self._index), n=5, cutoff=0.5)
        )
        suggestions = tuple(dict.fromkeys(suggestions))
        hint = f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""
        return UnknownModelError(
            f"No price for model {model!r}.{hint} To add one, write a JSON file like "
            f'{{"models": {{"{model}": {{"input": 1.0, "output": 2.0, "cached_input": 0.5}}}}}} '
            "(USD per 1M tokens) and pass it with --prices FILE or the HOLYSHEEP_PRICES environment variable.",
            model=model,
            suggestions=suggestions,
        )


def _number(entry: Mapping[str, Any], key: str, where: str, *, allow_null: bool = False) -> float | None:
    value = entry.get(key)
    if value is None and allow_null:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise PriceFileError(f"{where}.{key}: expected a non-negative number, got {value!r}")
    return float(value)


def _strings(entry: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PriceFileError(f"{where}.{key}: expected a list of strings")
    return tuple(value)


def _parse_price(entry: Mapping[str, Any], where: str, base: Price | None) -> tuple[Price, bool]:
    def pick(key: str, fallback: float | None) -> float | None:
        if key in entry:
            return _number(entry, key, where, allow_null=key in _OPTIONAL_PRICES)
        if fallback is None and key not in _OPTIONAL_PRICES:
            raise PriceFileError(f"{where}.{key}: missing (USD per 1M tokens)")
        return fallback

    input_price = pick("input", base.input if base else None)
    output_price = pick("output", base.output if base else None)
    cached = pick("cached_input", base.cached_input if base else None)
    audio_in = pick("audio_input", base.audio_input if base else None)
    audio_out = pick("audio_output", base.audio_output if base else None)
    write = pick("cache_write", base.cache_write if base else None)
    write_long = pick("cache_write_long", base.cache_write_long if base else None)
    assert input_price is not None and output_price is not None
    price = Price(
        input_price,
        input_price if cached is None else cached,
        output_price,
        audio_in,
        audio_out,
        write,
        write_long,
    )
    return price, cached is not None


#: Price fields that may be absent or null.
_OPTIONAL_PRICES = frozenset(
    {"cached_input", "audio_input", "audio_output", "cache_write", "cache_write_long"}
)


def _parse_entry(name: str, entry: Mapping[str, Any], base: ModelInfo | None, where: str) -> ModelInfo:
    price, has_cache = _parse_price(entry, where, base.price if base else None)
    tiers = base.tiers if base else ()
    if "tiers" in entry:
        raw_tiers = entry["tiers"]
        if not isinstance(raw_tiers, list):
            raise PriceFileError(f"{where}.tiers: expected a list")
        parsed = []
        for i, raw in enumerate(raw_tiers):
            if not isinstance(raw, Mapping):
                raise PriceFileError(f"{where}.tiers[{i}]: expected an object")
            above = _number(raw, "above_input_tokens", f"{where}.tiers[{i}]")
            tier_price, _ = _parse_price(raw, f"{where}.tiers[{i}]", price)
            parsed.append(Tier(int(above or 0), tier_price))
        tiers = tuple(sorted(parsed, key=lambda t: t.above_input_tokens))
    defaults = base or ModelInfo(
        name=name,
        provider="custom",
        encoding="o200k_base",
        approximate=True,
        context_window=128_000,
        max_output_tokens=16_384,
        price=price,
    )

    def text(key: str, fallback: str) -> str:
        value = entry.get(key, fallback)
        if not isinstance(value, str):
            raise PriceFileError(f"{where}.{key}: expected a string")
        return value

    def integer(key: str, fallback: int) -> int:
        if key not in entry:
            return fallback
        value = _number(entry, key, where)
        assert value is not None
        return int(value)

    approximate = entry.get("approximate", defaults.approximate)
    if not isinstance(approximate, bool):
        raise PriceFileError(f"{where}.approximate: expected true or false")
    encoding = text("encoding", defaults.encoding)
    if encoding not in ("o200k_base", "cl100k_base"):
        raise PriceFileError(f"{where}.encoding: expected o200k_base or cl100k_base, got {encoding!r}")
    return replace(
        defaults,
        name=name,
        provider=text("provider", defaults.provider),
        encoding=encoding,
        approximate=approximate,
        context_window=integer("context_window", defaults.context_window),
        max_output_tokens=integer("max_output_tokens", defaults.max_output_tokens),
        price=price,
        tiers=tiers,
        aliases=_strings(entry, "aliases", where) if "aliases" in entry else defaults.aliases,
        snapshots=_strings(entry, "snapshots", where) if "snapshots" in entry else defaults.snapshots,
        source=text("source", defaults.source),
        as_of=text("as_of", defaults.as_of),
        notes=text("notes", defaults.notes),
        has_cache_price=has_cache,
        cache_write_source=text("cache_write_source", defaults.cache_write_source),
        cache_write_as_of=text("cache_write_as_of", defaults.cache_write_as_of),
    )
