"""``holyclient estimate --usage`` and ``--self-host``: a workload's spend, and GPUs against the API.

Only flags and wiring live here; the arithmetic is in :mod:`holyclient.costplan`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ._argtypes import positive_float


def add_arguments(parser: argparse.ArgumentParser) -> None:
    money = parser.add_argument_group("spend from usage exports (--usage)")
    money.add_argument(
        "--usage",
        nargs="+",
        action="extend",
        metavar="FILE",
        help="OpenAI Usage API export pages (completions, embeddings; JSON, JSON array or JSONL), "
        "holyclient's client.usage.export(), or a CSV date,model,requests,input_tokens,"
        "cached_input_tokens,output_tokens",
    )
    money.add_argument(
        "--map",
        metavar="OLD=NEW,...",
        help="price these models as the ones they move to on HolySheep (e.g. gpt-4=gpt-4.1)",
    )
    money.add_argument(
        "--fx-rate",
        type=positive_float,
        default=None,
        metavar="R",
        help="CNY paid per USD billed by OpenAI (default: 7.2, an assumption)",
    )


def wants_money(args: argparse.Namespace) -> bool:
    return bool(args.usage) or getattr(args, "self_host", None) is not None


def _fail(message: str) -> int:
    print(f"holyclient estimate: {message}", file=sys.stderr)
    return 2


def _parse_map(text: str | None) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        old, sep, new = part.partition("=")
        if not sep or not old.strip() or not new.strip():
            raise ValueError(f"--map: expected OLD=NEW pairs separated by commas, got {part.strip()!r}")
        mapping[old.strip()] = new.strip()
    return mapping


def run(args: argparse.Namespace, table: Any, rate: float, compare: list[str] | None) -> int:
    """Run the usage and/or self-hosting reports; ``table`` and ``compare`` are resolved by estimate."""
    from ..costplan import UsageFileError, read_usage_files
    from ..costplan._render import render_spend
    from ..costplan._spend import DEFAULT_FX_RATE, spend_report

    if args.files:
        return _fail("give request FILEs or --usage FILEs, not both")
    try:
        mapping = _parse_map(args.map)
    except ValueError as exc:
        return _fail(str(exc))
    fx = DEFAULT_FX_RATE if args.fx_rate is None else args.fx_rate
    document: dict[str, Any] = {}
    text: list[str] = []
    if args.usage:
        try:
            workload = read_usage_files(args.usage)
        except UsageFileError as exc:
            return _fail(str(exc))
        report = spend_report(
            workload, table, mapping=mapping, cny_rate=rate, fx_rate=fx, compare=compare or ()
        )
        for model in report["unpriced_models"]:
            print(
                f"holyclient estimate: warning: no price for model {model!r}: its tokens are listed, "
                "its cost left out of the totals; add a price with --prices FILE",
                file=sys.stderr,
            )
        document["usage"] = report
        text.append(render_spend(report))
    if args.json:
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(text))
    return 0
