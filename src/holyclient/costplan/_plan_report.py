"""The self-hosting report as JSON-ready data: every figure next to the inputs and formula it came from."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from . import _selfhost as sh
from ._gpus import Gpu, ModelShape, Throughput


def _r(value: float) -> float:
    return round(value, 2)


FORMULAS = [
    "power_yearly = given, or watts x gpus / 1000 x 8760 h x utilisation x kwh_price",
    "running_yearly = power_yearly + 12 x ops_monthly + api_backup_yearly + gpu_hourly x gpus x 8760 h",
    "first_year = capex + running_yearly; three_years = capex + 3 x running_yearly",
    "per_month = capex / months + running_yearly / 12",
    "capacity_tokens_per_month = output_tokens_per_s x utilisation x 730 h x 3600 s",
    "cost_per_million_tokens = per_month / (capacity_tokens_per_month / 1e6)",
    "api_per_month = tokens_per_month / 1e6 x api_per_million_tokens; api_yearly = 12 x api_per_month",
    "break_even_tokens_per_month = per_month / api_per_million_tokens x 1e6 (owning is cheaper above it)",
    "utilisation_needed = tokens_per_month / capacity at 100 %",
    "memory: weights_gb = params_b x bytes/param; kv_bytes_per_token = 2 x layers x kv_heads x head_dim x 2;"
    " needed_gb = weights_gb + kv_bytes_per_token x context x sequences / 1e9; usable_gb = gpus x memory_gb x 0.9",
]


def self_host_report(
    *,
    plan: sh.Plan,
    gpu: Gpu,
    currency: str,
    throughput: Throughput,
    shape: ModelShape,
    precision: str,
    context: int,
    sequences: int,
    tokens_per_month: float | None,
    api_per_million: float | None,
    api_basis: str,
    notes: list[str],
) -> dict[str, Any]:
    u = plan.utilisation
    full = sh.capacity_per_month(plan, 1.0)
    fit = sh.memory_fit(
        params_b=shape.params_b,
        layers=shape.layers,
        kv_heads=shape.kv_heads,
        head_dim=shape.head_dim,
        precision=precision,
        context=context,
        sequences=sequences,
        gpus=plan.gpus,
        memory_gb=gpu.memory_gb,
    )
    report: dict[str, Any] = {
        "currency": currency,
        "mode": "rent" if plan.gpu_hourly is not None else "own",
        "gpu": {
            "key": gpu.key,
            "name": gpu.name,
            "count": plan.gpus,
            "memory_gb": gpu.memory_gb,
            "watts": gpu.watts,
            "purchase_range": list(gpu.purchase[currency]),
            "hourly_range": list(gpu.hourly[currency]),
            "source": gpu.source,
            "as_of": gpu.as_of,
            **({"cny_basis": gpu.cny_basis} if currency == "CNY" else {}),
        },
        "throughput": asdict(throughput),
        "inputs": asdict(plan),
        "costs": {
            "power_yearly": _r(sh.power_per_year(plan, u)),
            "rent_yearly": _r(sh.rent_per_year(plan)),
            "running_yearly": _r(sh.running_per_year(plan, u)),
            "first_year": _r(sh.first_year(plan)),
            "three_years": _r(sh.years(plan, 3)),
            "per_month": _r(sh.per_month(plan, u)),
            "capacity_tokens_per_month": round(sh.capacity_per_month(plan, u)),
            "cost_per_million_tokens": _r(sh.cost_per_million(plan, u)),
        },
        "sweep": [
            {
                "utilisation": s,
                "capacity_tokens_per_month": round(sh.capacity_per_month(plan, s)),
                "per_month": _r(sh.per_month(plan, s)),
                "cost_per_million_tokens": _r(sh.cost_per_million(plan, s)),
            }
            for s in sh.SWEEP
        ],
        "memory": {
            "model": shape.key,
            "model_source": shape.source,
            "precision": precision,
            "context": context,
            "sequences": sequences,
            "weights_gb": round(fit.weights_gb, 2),
            "kv_bytes_per_token": fit.kv_bytes_per_token,
            "kv_gb": round(fit.kv_gb, 2),
            "needed_gb": round(fit.needed_gb, 2),
            "usable_gb": round(fit.usable_gb, 2),
            "fits": fit.fits,
            "max_sequences_at_context": fit.max_sequences,
        },
        "workload": None,
        "api": None,
        "break_even": None,
        "notes": notes,
        "formulas": FORMULAS,
    }
    if tokens_per_month is not None:
        report["workload"] = {
            "tokens_per_month": tokens_per_month,
            "utilisation_needed": round(tokens_per_month / full, 4),
            "within_capacity": tokens_per_month <= full,
        }
    if api_per_million is not None:
        api: dict[str, Any] = {"per_million_tokens": round(api_per_million, 4), "basis": api_basis}
        if tokens_per_month is not None:
            monthly = tokens_per_month / 1e6 * api_per_million
            api |= {"per_month": _r(monthly), "first_year": _r(12 * monthly), "three_years": _r(36 * monthly)}
        report["api"] = api
    if api_per_million:  # a free API never breaks even
        volume = sh.break_even_tokens(plan, api_per_million)
        report["break_even"] = {
            "tokens_per_month": round(volume),
            "utilisation_needed": round(volume / full, 4),
            "reachable": volume <= full,
        }
    return report
