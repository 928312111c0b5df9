"""A workload's spend: per model, at OpenAI list prices and on HolySheep, for the period and a month.

Formulas (every figure in the report comes from one of these):

* cost (USD) = ((input - cached - written) x input price + cached x cached-input price + written x
  cache-write price + output x output price) / 1e6, the writes kept at the long retention at its own
  write price, with the price tier chosen by the average input tokens per request (a long-context tier
  applies per request, not to a day's total);
* OpenAI in CNY = cost (USD) x ``fx_rate`` (what a card pays per USD);
* HolySheep in CNY = cost (USD, list price of the model it moves to) x ``cny_rate`` (1 CNY per USD);
* savings (CNY) = OpenAI in CNY - HolySheep in CNY;
* a month = 365 / 12 days; monthly figure = period figure x month / period days.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..pricing import PriceTable
from ._usage_files import Workload

MONTH_DAYS = 365 / 12
#: CNY a card pays per USD billed by OpenAI, when --fx-rate is not given. An assumption, printed as one:
#: the USD/CNY reference rate moved between about 7.1 and 7.3 through 2024-2025.
DEFAULT_FX_RATE = 7.2


@dataclass
class ModelSpend:
    """One model's usage over the period, priced where a price is known (None: no price)."""

    model: str
    target: str
    requests: int = 0
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    cache_write_input_tokens: int = 0
    cache_write_long_input_tokens: int = 0
    openai_usd: float | None = None
    holysheep_usd: float | None = None


def list_cost(
    table: PriceTable,
    model: str,
    requests: int,
    input_tokens: int,
    cached: int,
    output: int,
    written: int = 0,
    written_long: int = 0,
) -> float | None:
    """USD at list price (see the module formulas), or None when the model has no price."""
    info = table.get(model)
    if info is None:
        return None
    price = info.price_for(input_tokens // max(requests, 1))
    uncached = input_tokens - cached - written
    writes = (written - written_long) * price.write + written_long * price.write_long
    return (uncached * price.input + cached * price.cached_input + writes + output * price.output) / 1e6


def _spend_counts(s: ModelSpend) -> tuple[int, int, int, int, int, int]:
    """What :func:`list_cost` prices, after the model's name."""
    return (
        s.requests,
        s.input_tokens,
        s.cached_input_tokens,
        s.output_tokens,
        s.cache_write_input_tokens,
        s.cache_write_long_input_tokens,
    )


def per_model(workload: Workload, table: PriceTable, mapping: Mapping[str, str]) -> list[ModelSpend]:
    """Sum the rows per model and price each on OpenAI (its own name) and HolySheep (its target)."""
    spends: dict[str, ModelSpend] = {}
    for row in workload.rows:
        spend = spends.setdefault(row.model, ModelSpend(row.model, mapping.get(row.model, row.model)))
        spend.requests += row.requests
        spend.input_tokens += row.input_tokens
        spend.cached_input_tokens += row.cached_input_tokens
        spend.output_tokens += row.output_tokens
        spend.cache_write_input_tokens += row.cache_write_input_tokens
        spend.cache_write_long_input_tokens += row.cache_write_long_input_tokens
    for spend in spends.values():
        counts = _spend_counts(spend)
        spend.openai_usd = list_cost(table, spend.model, *counts)
        spend.holysheep_usd = list_cost(table, spend.target, *counts)
    return sorted(spends.values(), key=lambda s: (-(s.openai_usd or 0.0), s.model))


def _money(
    usd_openai: float | None, usd_holy: float | None, fx: float, rate: float, k: float
) -> dict[str, Any]:
    openai_cny = None if usd_openai is None else usd_openai * fx * k
    holy_cny = None if usd_holy is None else usd_holy * rate * k
    return {
        "openai_usd": None if usd_openai is None else round(usd_openai * k, 6),
        "openai_cny": None if openai_cny is None else round(openai_cny, 4),
        "holysheep_usd": None if usd_holy is None else round(usd_holy * k, 6),
        "holysheep_cny": None if holy_cny is None else round(holy_cny, 4),
        "savings_cny": None if openai_cny is None or holy_cny is None else round(openai_cny - holy_cny, 4),
    }


def _counts(s: ModelSpend, k: float) -> dict[str, Any]:
    """Counts for the period (whole numbers) or projected (``k`` != 1, rounded to whole units)."""
    return {
        "requests": round(s.requests * k),
        "input_tokens": round(s.input_tokens * k),
        "cached_input_tokens": round(s.cached_input_tokens * k),
        "cache_write_input_tokens": round(s.cache_write_input_tokens * k),
        "cache_write_long_input_tokens": round(s.cache_write_long_input_tokens * k),
        "output_tokens": round(s.output_tokens * k),
        "total_tokens": round((s.input_tokens + s.output_tokens) * k),
    }


def spend_report(
    workload: Workload,
    table: PriceTable,
    *,
    mapping: Mapping[str, str],
    cny_rate: float,
    fx_rate: float,
    compare: Sequence[str] = (),
) -> dict[str, Any]:
    """The whole report as JSON-ready data (what ``--json`` prints; the text view renders the same)."""
    spends = per_model(workload, table, mapping)
    factor = MONTH_DAYS / workload.days
    total = ModelSpend("total", "")
    priced_openai = priced_holy = 0.0
    for s in spends:
        total.requests += s.requests
        total.input_tokens += s.input_tokens
        total.cached_input_tokens += s.cached_input_tokens
        total.output_tokens += s.output_tokens
        total.cache_write_input_tokens += s.cache_write_input_tokens
        total.cache_write_long_input_tokens += s.cache_write_long_input_tokens
        if s.openai_usd is not None and s.holysheep_usd is not None:
            priced_openai += s.openai_usd
            priced_holy += s.holysheep_usd
    models = []
    for s in spends:
        entry: dict[str, Any] = {"model": s.model, "moved_to": s.target}
        entry["period"] = _counts(s, 1.0) | _money(s.openai_usd, s.holysheep_usd, fx_rate, cny_rate, 1.0)
        entry["month"] = _counts(s, factor) | _money(s.openai_usd, s.holysheep_usd, fx_rate, cny_rate, factor)
        entry["price"] = "ok" if s.openai_usd is not None and s.holysheep_usd is not None else "no price"
        models.append(entry)
    unpriced = [m["model"] for m in models if m["price"] == "no price"]
    report: dict[str, Any] = {
        "period": {
            "start": workload.start,
            "end": workload.end,
            "days": round(workload.days, 6),
            "month_days": round(MONTH_DAYS, 6),
            "month_factor": round(factor, 6),
        },
        "inputs": {"cny_rate": cny_rate, "fx_rate": fx_rate, "mapping": dict(mapping)},
        "models": models,
        "total": {
            "period": _counts(total, 1.0) | _money(priced_openai, priced_holy, fx_rate, cny_rate, 1.0),
            "month": _counts(total, factor) | _money(priced_openai, priced_holy, fx_rate, cny_rate, factor),
            "priced_models_only": bool(unpriced),
        },
        "unpriced_models": unpriced,
        "formulas": FORMULAS,
    }
    if workload.skipped:
        report["skipped_results"] = dict(workload.skipped)
    if workload.batch_results:
        report["notes"] = [
            f'{workload.batch_results} results are Batch API usage ("batch": true), which OpenAI bills at half '
            "the list price; they are priced here at the full list price on both sides"
        ]
    if compare:
        report["compare"] = compare_targets(spends, table, compare, cny_rate, factor)
    return report


def compare_targets(
    spends: Sequence[ModelSpend], table: PriceTable, targets: Sequence[str], cny_rate: float, factor: float
) -> list[dict[str, Any]]:
    """The whole workload moved to each target model on HolySheep, cheapest first (no price: last)."""
    out = []
    for target in targets:
        costs = [list_cost(table, target, *_spend_counts(s)) for s in spends]
        usd = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
        out.append(
            {
                "model": target,
                "period_usd": None if usd is None else round(usd, 6),
                "period_cny": None if usd is None else round(usd * cny_rate, 4),
                "month_cny": None if usd is None else round(usd * cny_rate * factor, 4),
            }
        )
    return sorted(out, key=lambda e: (e["period_usd"] is None, e["period_usd"] or 0.0))


FORMULAS = [
    "cost_usd = ((input - cached - written) * input_price + cached * cached_input_price"
    " + (written - written_long) * cache_write_price + written_long * cache_write_long_price"
    " + output * output_price) / 1e6 (USD per 1M tokens; tier by average input per request; written:"
    " prompt-cache writes, in holyclient's own export)",
    "openai_cny = openai_usd * fx_rate",
    "holysheep_cny = holysheep_usd (list price of moved_to) * cny_rate",
    "savings_cny = openai_cny - holysheep_cny",
    "month = 365/12 days; month figure = period figure * month_days / period days",
]
