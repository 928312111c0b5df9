"""Wiring for ``estimate --self-host``: resolve flags against the GPU table into a plan, or an error line."""

from __future__ import annotations

import argparse
from typing import Any


def self_host(
    args: argparse.Namespace, table: Any, rate: float, usage: dict[str, Any] | None
) -> dict[str, Any] | str:
    """The self-hosting report, or the message of the input error that stops the run."""
    from ..costplan import GpuTable, GpuTableError, Throughput, parse_spec, read_vllm_result, self_host_report
    from ..costplan import _selfhost as sh

    currency = args.currency
    notes: list[str] = []
    try:
        gpus = GpuTable.load(args.gpus)
        name, count = parse_spec(args.self_host)
        gpu = gpus.gpu(name)
        shape = gpus.model(args.serve_model)
        if args.throughput is not None:
            throughput = Throughput(
                gpu.key,
                count,
                shape.key,
                args.precision,
                args.serving,
                args.throughput,
                "--throughput",
                "given",
            )
        elif args.vllm_result is not None:
            throughput = read_vllm_result(args.vllm_result)
        else:
            found = gpus.measured(gpu.key, count, shape.key, args.serving)
            if found is None:
                rows = [f"{r.gpu} x{r.count} {r.model} {r.mode}" for r in gpus.throughput]
                return (
                    f"--self-host: no measured {args.serving} throughput for {gpu.key} x{count} serving {shape.key}; "
                    f"measured: {'; '.join(rows)}; pass --throughput TOK_S or --vllm-result FILE"
                )
            throughput = found
    except GpuTableError as exc:
        return str(exc)
    if args.power_yearly is not None and (args.watts is not None or args.kwh_price is not None):
        return "--power-yearly: give power either as --power-yearly or as --watts/--kwh-price, not both"
    if args.power_yearly is None and args.kwh_price is None:
        notes.append("power not counted: give --power-yearly or --kwh-price")
    if args.capex is not None:
        capex = args.capex
    elif args.gpu_hourly is not None:
        capex = 0.0
    else:
        low, high = gpu.purchase[currency]
        capex = (low + high) / 2 * count
        notes.append(
            f"capex from the GPU table: mid price {(low + high) / 2:,.0f} x {count} GPUs (GPUs only)"
        )
    plan = sh.Plan(
        gpus=count,
        capex=capex,
        months=args.months,
        ops_monthly=args.ops_monthly,
        api_backup_yearly=args.api_backup_yearly,
        utilisation=args.utilisation,
        output_tokens_per_s=throughput.output_tokens_per_s,
        power_yearly=args.power_yearly,
        watts=args.watts if args.watts is not None else gpu.watts,
        kwh_price=args.kwh_price or 0.0,
        gpu_hourly=args.gpu_hourly,
    )
    tokens = args.tokens_per_month
    if tokens is None and usage is not None:
        tokens = usage["total"]["month"]["output_tokens"]
        notes.append(
            f"tokens per month: output tokens of {usage.get('source', 'the usage export, projected to a month')}"
        )
    api_price, basis = _api_price(args, table, rate, usage, tokens, currency)
    if isinstance(basis, str) and api_price is None and basis.startswith("--"):
        return basis
    return self_host_report(
        plan=plan,
        gpu=gpu,
        currency=currency,
        throughput=throughput,
        shape=shape,
        precision=args.precision,
        context=args.context,
        sequences=args.sequences,
        tokens_per_month=tokens,
        api_per_million=api_price,
        api_basis=basis,
        notes=notes,
    )


def _api_price(
    args: argparse.Namespace,
    table: Any,
    rate: float,
    usage: dict[str, Any] | None,
    tokens: float | None,
    currency: str,
) -> tuple[float | None, str]:
    """The API's price per 1M output tokens (prompts included) in ``currency``, and where it came from."""
    if args.api_per_million is not None:
        return args.api_per_million, "--api-per-million"
    if args.api_yearly is not None:
        if not tokens:
            return None, "--api-yearly: needs the workload's volume: give --tokens-per-month or --usage"
        return args.api_yearly / 12 / (tokens / 1e6), "--api-yearly / 12 / (tokens per month / 1e6)"
    if usage is not None:
        month = usage["total"]["month"]
        cost = month["holysheep_cny"] if currency == "CNY" else month["holysheep_usd"]
        # The cost covers the priced models only, so it is divided by their tokens only: the unpriced
        # models' tokens would dilute the price (they are served at the same rate per token).
        models = usage.get("models", [])
        unpriced = [m["model"] for m in models if m["price"] != "ok"]
        priced_tokens = sum(m["month"]["output_tokens"] for m in models if m["price"] == "ok")
        divisor = priced_tokens if models else month["output_tokens"]
        if divisor and cost is not None:
            basis = "the workload on HolySheep: month cost / month output tokens"
            if unpriced:
                basis += f" of the priced models only (not priced: {', '.join(unpriced)})"
            return cost / (divisor / 1e6), basis
    if args.model:
        info = table.get(args.model)
        if info is None:
            return None, f"--model: no price for {args.model!r}"
        usd = args.input_ratio * info.price.input + info.price.output
        factor = rate if currency == "CNY" else 1.0
        return usd * factor, (
            f"{info.name} on HolySheep: ({args.input_ratio:g} x input {info.price.input} + output "
            f"{info.price.output}) USD" + (f" x {rate:g} CNY/USD" if currency == "CNY" else "")
        )
    return None, "no API price: give --api-yearly, --api-per-million, --usage or --model"
