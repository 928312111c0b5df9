"""``holyclient estimate --usage`` and ``--self-host``: a workload's spend, and GPUs against the API.

Only flags and wiring live here; the arithmetic is in :mod:`holyclient.costplan`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ._argtypes import non_negative_float, positive_float, positive_int
from ._estimate_report import max_cost_exit, state_exit


def _currency(text: str) -> str:
    value = text.strip().upper()
    if value not in ("USD", "CNY"):
        raise argparse.ArgumentTypeError(f"expected USD or CNY, got {text!r}")
    return value


def _share(text: str) -> float:
    value = positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be within 0..1 (0.5 is 50%), got {text}")
    return value


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

    own = parser.add_argument_group("self-hosted GPUs against the API (--self-host)")
    own.add_argument(
        "--self-host", metavar="'GPU xN'", help="price owning or renting N GPUs, e.g. 'a100-80gb x2'"
    )
    own.add_argument(
        "--tokens-per-month", type=positive_float, metavar="N", help="output tokens per month to serve"
    )
    own.add_argument(
        "--currency", type=_currency, default="USD", metavar="USD|CNY", help="currency of every amount"
    )
    own.add_argument(
        "--capex",
        type=non_negative_float,
        metavar="AMOUNT",
        help="paid up front (default: the GPU table's mid price x N)",
    )
    own.add_argument(
        "--months",
        type=positive_int,
        default=36,
        metavar="N",
        help="amortisation for the per-token figure (default: 36)",
    )
    own.add_argument("--power-yearly", type=non_negative_float, metavar="AMOUNT", help="electricity per year")
    own.add_argument(
        "--watts",
        type=positive_float,
        metavar="W",
        help="draw per GPU (default: the table's) for --kwh-price",
    )
    own.add_argument(
        "--kwh-price",
        type=non_negative_float,
        metavar="P",
        help="price per kWh: power = W x N x 8760 h x utilisation x P",
    )
    own.add_argument(
        "--ops-monthly",
        type=non_negative_float,
        default=0.0,
        metavar="AMOUNT",
        help="staff and operations per month",
    )
    own.add_argument(
        "--api-backup-yearly",
        type=non_negative_float,
        default=0.0,
        metavar="AMOUNT",
        help="standby API budget per year",
    )
    own.add_argument(
        "--gpu-hourly", type=positive_float, metavar="PRICE", help="rent instead: price per GPU-hour"
    )
    own.add_argument(
        "--utilisation",
        type=_share,
        default=0.5,
        metavar="U",
        help="share of the time the GPUs serve (default: 0.5)",
    )
    own.add_argument(
        "--throughput", type=positive_float, metavar="TOK_S", help="output tokens/s of all N GPUs at full use"
    )
    own.add_argument(
        "--vllm-result", metavar="FILE", help="throughput from a vllm bench serve --save-result JSON"
    )
    own.add_argument(
        "--serve-model", default="llama-3-70b", metavar="NAME", help="model served (default: llama-3-70b)"
    )
    own.add_argument(
        "--serving",
        choices=("batched", "single"),
        metavar="MODE",
        default="batched",
        help="throughput row to use: batched or single (default: batched)",
    )
    own.add_argument(
        "--precision",
        choices=("bf16", "fp16", "fp8", "int8", "int4"),
        metavar="P",
        default="bf16",
        help="weights precision: bf16, fp16, fp8, int8 or int4 (default: bf16)",
    )
    own.add_argument(
        "--context",
        type=positive_int,
        default=8192,
        metavar="N",
        help="context per sequence for the memory check",
    )
    own.add_argument(
        "--sequences",
        type=positive_int,
        default=1,
        metavar="N",
        help="concurrent sequences for the memory check",
    )
    own.add_argument(
        "--api-yearly",
        type=non_negative_float,
        metavar="AMOUNT",
        help="what the API costs for the workload per year",
    )
    own.add_argument(
        "--api-per-million",
        type=positive_float,
        metavar="PRICE",
        help="API price per 1M output tokens, prompts included",
    )
    own.add_argument(
        "--input-ratio",
        type=non_negative_float,
        default=3.0,
        metavar="R",
        help="input tokens per output token when the API side is priced from --model (default: 3)",
    )
    own.add_argument(
        "--requests-per-month",
        type=positive_float,
        metavar="N",
        help="with request FILEs: scale them to N requests a month (default: the files are one month)",
    )
    own.add_argument(
        "--gpus", metavar="FILE", help="extra/override GPU table (JSON, the shape of the built-in one)"
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


def run(
    args: argparse.Namespace, table: Any, rate: float, compare: list[str] | None, *, requests: Any = None
) -> int:
    """Run the usage and/or self-hosting reports; ``table`` and ``compare`` are resolved by estimate,
    and ``requests`` is the estimate of request FILEs given with ``--self-host`` (their workload)."""
    from ..costplan import DEFAULT_FX_RATE, UsageFileError, read_usage_files, render_spend, spend_report

    if args.files and requests is None:
        return _fail("request FILEs cannot be combined with --usage")
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
    if args.self_host is not None:
        from ._estimate_selfhost import self_host

        usage = document.get("usage")
        if requests is not None:
            usage = _requests_as_usage(requests, args.requests_per_month, rate)
        result = self_host(args, table, rate, usage)
        if isinstance(result, str):
            return _fail(result)
        document["self_host"] = result
        from ..costplan import render_self_host

        text.append(render_self_host(result))
    if args.json:
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(text))
    if requests is not None:
        return state_exit(requests, args.max_cost)
    return _usage_exit(document.get("usage"), args.max_cost)


def _usage_exit(report: dict[str, Any] | None, max_cost: float | None) -> int:
    """``--max-cost`` on a usage workload: its period cost on HolySheep, or the cheapest ``--compare`` target's."""
    if report is None:
        return 0
    if "compare" in report:
        priced = [entry for entry in report["compare"] if entry["period_usd"] is not None]
        unpriced = [entry["model"] for entry in report["compare"] if entry["period_usd"] is None]
        total = min((entry["period_usd"] for entry in priced), default=None)
        return max_cost_exit(total, max_cost, unpriced)
    return max_cost_exit(report["total"]["period"]["holysheep_usd"], max_cost, report["unpriced_models"])


def _requests_as_usage(state: Any, per_month: float | None, rate: float) -> dict[str, Any]:
    """Request FILEs as the month's workload, in the shape the self-host report reads from --usage."""
    factor = 1.0 if per_month is None or not state.count else per_month / state.count
    totals = list(state.totals.values())
    on = ""
    if state.compare is not None and totals:
        # Each compared model prices the same requests: the workload is one of them, never their sum.
        chosen = state.cheapest() or totals[0]
        totals = [chosen]
        on = f" on {chosen.model} ({'the cheapest of --compare' if chosen.priced else 'no --compare model is priced'})"
    output = sum(t.output_tokens for t in totals) * factor
    usd = sum(t.cost_usd for t in totals) * factor if all(t.priced for t in totals) else None
    return {
        "total": {
            "month": {
                "output_tokens": output,
                "holysheep_usd": usd,
                "holysheep_cny": None if usd is None else usd * rate,
            }
        },
        "source": "request FILEs"
        + on
        + ("" if per_month is None else f" x {factor:,.4g} ({per_month:,.0f} requests a month)"),
    }
