"""``holyclient models``: the price table, with sources."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ._argtypes import positive_float

EPILOG = """\
exit codes: 0 listed; 2 usage error, unknown --provider or unreadable --prices file

examples:
    holyclient models
    holyclient models --provider anthropic"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "models",
        help="list known models with context windows and prices (USD per 1M tokens)",
        description=(
            "List the price table: provider, context window, max output tokens, USD per 1M input, "
            "cached-input and output tokens, long-context tiers, aliases, and each price's source and "
            "date. HolySheep bills 1 CNY per 1 USD of list price; --cny-rate changes the CNY column."
        ),
        epilog=EPILOG,
    )
    parser.add_argument("--json", action="store_true", help="print the table as one JSON document")
    parser.add_argument(
        "--provider", metavar="NAME", help="only this provider (openai, anthropic, google...)"
    )
    parser.add_argument(
        "--prices", metavar="FILE", help="extra/override price table (JSON; default: $HOLYSHEEP_PRICES)"
    )
    parser.add_argument(
        "--cny-rate", type=positive_float, default=None, metavar="R", help="CNY per USD (default: 1.0)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..pricing import DEFAULT_CNY_RATE, PriceFileError, PriceTable

    rate = DEFAULT_CNY_RATE if args.cny_rate is None else args.cny_rate
    try:
        table = PriceTable.load(args.prices)
    except PriceFileError as exc:
        print(f"holyclient models: {exc}", file=sys.stderr)
        return 2
    models = list(table.models.values())
    if args.provider is not None:
        wanted = args.provider.strip().lower()
        known = sorted({m.provider for m in models})
        if wanted not in known:
            print(
                f"holyclient models: no provider {args.provider!r} in the price table; "
                f"known providers: {', '.join(known)}",
                file=sys.stderr,
            )
            return 2
        models = [m for m in models if m.provider == wanted]
    if args.json:
        doc = {"unit": "USD per 1M tokens", "cny_rate": rate, "models": [_entry(m, rate) for m in models]}
        print(json.dumps(doc, indent=2))
        return 0
    row = "{:<24} {:<10} {:>9} {:>8} {:>8} {:>8} {:>11} {:>8} {:>10}  {}"
    print(
        row.format(
            "MODEL",
            "PROVIDER",
            "CONTEXT",
            "MAX OUT",
            "INPUT",
            "CACHED",
            "WRITE",
            "OUTPUT",
            "OUTPUT ¥",
            "ALIASES / NOTES",
        )
    )
    for m in models:
        cached = f"{m.price.cached_input:g}" if m.has_cache_price else "-"
        extras = [*m.aliases, *m.snapshots]
        for tier in m.tiers:
            p = tier.price
            extras.append(
                f">{tier.above_input_tokens // 1000}k in: {p.input:g}/{p.cached_input:g}/{p.output:g}"
                + (f" (write {_writes(p)})" if p.cache_write is not None else "")
            )
        if _count_method(m) != "exact":
            extras.append("~tokens")
        print(
            row.format(
                m.name,
                m.provider,
                f"{m.context_window:,}",
                f"{m.max_output_tokens:,}",
                f"{m.price.input:g}",
                cached,
                _writes(m.price),
                f"{m.price.output:g}",
                f"{m.price.output * rate:g}",
                ", ".join(extras),
            )
        )
    print(
        "USD per 1M tokens; CACHED: a prompt-cache read; WRITE: a prompt-cache write kept the short/long "
        "time (Claude 5 min/1 h, OpenAI 30 min/12 h), - when none is published; ~tokens: no exact "
        "tokenizer (none is published for Claude), counted with o200k_base as an estimate with a range; "
        "why and sources: holyclient models --json"
    )
    return 0


def _writes(price: Any) -> str:
    """``short/long`` cache-write prices, ``-`` when the table has none for the model."""
    if price.cache_write is None:
        return "-"
    return f"{price.write:g}/{price.write_long:g}"


def _count_method(m: Any) -> str:
    """``exact`` when the model's own tokenizer ships with holyclient (and can run), else ``approximate``."""
    from ..tokens import encoding_name_for_model

    return "approximate" if m.approximate and encoding_name_for_model(m.name)[1] else "exact"


def _tokenizer_note(m: Any) -> str:
    from ..tokens import encoding_name_for_model, family_for

    encoding, approximate = encoding_name_for_model(m.name)
    if not m.approximate:
        return f"exact: {m.encoding}"
    if not approximate:
        return f"exact: {encoding}"
    return family_for(m.name).tokenizer


def _entry(m: Any, rate: float) -> dict[str, Any]:
    return {
        "model": m.name,
        "provider": m.provider,
        "encoding": m.encoding,
        "approximate": m.approximate,
        "count_method": _count_method(m),
        "tokenizer": _tokenizer_note(m),
        "context_window": m.context_window,
        "max_output_tokens": m.max_output_tokens,
        "input": m.price.input,
        "cached_input": m.price.cached_input if m.has_cache_price else None,
        "cache_write": m.price.cache_write,
        "cache_write_long": m.price.cache_write_long,
        "output": m.price.output,
        "input_cny": m.price.input * rate,
        "output_cny": m.price.output * rate,
        "tiers": [
            {
                "above_input_tokens": t.above_input_tokens,
                "input": t.price.input,
                "cached_input": t.price.cached_input,
                "cache_write": t.price.cache_write,
                "cache_write_long": t.price.cache_write_long,
                "output": t.price.output,
            }
            for t in m.tiers
        ],
        "aliases": list(m.aliases),
        "snapshots": list(m.snapshots),
        "source": m.source,
        "as_of": m.as_of,
        "cache_write_source": m.cache_write_source or None,
        "cache_write_as_of": m.cache_write_as_of or None,
        "notes": m.notes,
    }
