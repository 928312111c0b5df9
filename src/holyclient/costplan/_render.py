"""Text views of the spend and self-hosting reports (the ``--json`` documents carry the same figures)."""

from __future__ import annotations

import datetime as dt
from typing import Any

SPEND_ROW = "{:<{w}} {:<{t}} {:>10} {:>15} {:>13} {:>13} {:>13} {:>13}"


def _n(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "no price"
    return f"{value:,.{digits}f}"


def _day(epoch: int) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M")


def render_spend(report: dict[str, Any]) -> str:
    """The spend report as a table: the period, then a month, per model and in total."""
    period = report["period"]
    inputs = report["inputs"]
    lines = [
        f"usage from {_day(period['start'])} to {_day(period['end'])} UTC ({period['days']:g} days);"
        f" a month is {period['month_days']:.4f} days (x{period['month_factor']:.4f})",
        f"OpenAI billed in USD, paid at {inputs['fx_rate']:g} CNY/USD (--fx-rate);"
        f" HolySheep at {inputs['cny_rate']:g} CNY per USD of list price (--cny-rate)",
    ]
    w = max([len(m["model"]) for m in report["models"]] + [14])
    t = max([len(m["moved_to"]) for m in report["models"] if m["moved_to"] != m["model"]] + [12])
    for key, title in (("period", "for the period covered"), ("month", "projected to a month")):
        lines += ["", title + ":"]
        lines.append(
            SPEND_ROW.format(
                "model",
                "on HolySheep",
                "requests",
                "tokens",
                "OpenAI USD",
                "OpenAI CNY",
                "Holy CNY",
                "saved CNY",
                w=w,
                t=t,
            )
        )
        rows = [(m["model"], m["moved_to"], m[key]) for m in report["models"]]
        rows.append(
            (
                "total" + (" (priced)" if report["total"]["priced_models_only"] else ""),
                "",
                report["total"][key],
            )
        )
        for name, target, f in rows:
            lines.append(
                SPEND_ROW.format(
                    name,
                    target if target != name else "same",
                    _n(f["requests"]),
                    _n(f["total_tokens"]),
                    _n(f["openai_usd"], 2),
                    _n(f["openai_cny"], 2),
                    _n(f["holysheep_cny"], 2),
                    _n(f["savings_cny"], 2),
                    w=w,
                    t=t,
                )
            )
    total = report["total"]["period"]
    if total["cached_input_tokens"] or total["cache_write_input_tokens"]:
        lines += [
            "",
            f"prompt cache over the period: {_n(total['cached_input_tokens'])} input tokens read (at the "
            f"cached price), {_n(total['cache_write_input_tokens'])} written (at the write price; "
            f"{_n(total['cache_write_long_input_tokens'])} of them kept at the long retention)",
        ]
    if report["unpriced_models"]:
        lines += [
            "",
            "no price (tokens counted, cost left out of the total): " + ", ".join(report["unpriced_models"]),
        ]
    if report.get("skipped_results"):
        skipped = ", ".join(f"{k} x{v}" for k, v in report["skipped_results"].items())
        lines.append(f"skipped (no token usage): {skipped}")
    lines += [f"note: {n}" for n in report.get("notes", [])]
    if report.get("compare"):
        lines += ["", "the whole workload on one model (HolySheep, CNY):"]
        for e in report["compare"]:
            lines.append(
                f"  {e['model']:<28} period {_n(e['period_cny'], 2):>14}   month {_n(e['month_cny'], 2):>14}"
            )
    lines += ["", "formulas:"] + [f"  {f}" for f in report["formulas"]]
    return "\n".join(lines) + "\n"


def _money(value: float | None, currency: str) -> str:
    if value is None:
        return "-"
    return f"{'¥' if currency == 'CNY' else '$'}{value:,.2f}"


def render_self_host(report: dict[str, Any]) -> str:
    """The self-hosting report: costs, sweep, API side, break-even, memory, then inputs and formulas."""
    c = report["currency"]
    g, t, costs, mem = report["gpu"], report["throughput"], report["costs"], report["memory"]

    def m(value: float | None) -> str:
        return _money(value, c)

    lines = [
        f"self-hosting: {g['count']} x {g['name']} ({g['memory_gb']:g} GB, {g['watts']:g} W), {report['mode']}, in {c}",
        f"throughput: {t['output_tokens_per_s']:,.0f} output tok/s ({t['mode']}, {t['model']}) -- {t['source']} ({t['as_of']})",
        "",
        f"  running per year  {m(costs['running_yearly']):>16}   (power {m(costs['power_yearly'])}, rent {m(costs['rent_yearly'])})",
        f"  first year        {m(costs['first_year']):>16}",
        f"  three years       {m(costs['three_years']):>16}",
        f"  per month         {m(costs['per_month']):>16}   (capex over {report['inputs']['months']} months)",
        f"  at {report['inputs']['utilisation']:.0%} utilisation: {costs['capacity_tokens_per_month']:,} tokens/month,"
        f" {m(costs['cost_per_million_tokens'])} per 1M tokens",
        "",
        "utilisation sweep:",
    ]
    for s in report["sweep"]:
        lines.append(
            f"  {s['utilisation']:>4.0%}  {s['capacity_tokens_per_month']:>16,} tokens/month"
            f"  {m(s['per_month']):>14}/month  {m(s['cost_per_million_tokens']):>12} per 1M"
        )
    if report["workload"]:
        w = report["workload"]
        lines += [
            "",
            f"workload: {w['tokens_per_month']:,.0f} tokens/month needs {w['utilisation_needed']:.1%} utilisation"
            + ("" if w["within_capacity"] else " -- more than these GPUs can serve"),
        ]
    api, be = report["api"], report["break_even"]
    if api:
        lines.append(f"API: {m(api['per_million_tokens'])} per 1M tokens ({api['basis']})")
        if "per_month" in api:
            lines.append(
                f"  per month {m(api['per_month'])}, first year {m(api['first_year'])}, three years {m(api['three_years'])}"
            )
        if be is None:
            lines.append("break-even: none (the API costs nothing)")
        else:
            lines.append(
                f"break-even: {be['tokens_per_month']:,} tokens/month ({be['utilisation_needed']:.1%} utilisation)"
                + ("" if be["reachable"] else " -- beyond what these GPUs can serve: the API stays cheaper")
            )
    else:
        lines.append(
            "API: no price (give --api-yearly, --api-per-million, --usage or --model) -- no break-even"
        )
    lines += [
        "",
        f"memory ({mem['model']}, {mem['precision']}, context {mem['context']:,} x {mem['sequences']} sequences):"
        f" weights {mem['weights_gb']:,.1f} GB + KV {mem['kv_gb']:,.2f} GB = {mem['needed_gb']:,.1f} GB"
        f" of {mem['usable_gb']:,.1f} GB usable -- {'fits' if mem['fits'] else 'does NOT fit'}"
        f" ({mem['max_sequences_at_context']} sequences of this context fit)",
    ]
    lines += [f"note: {n}" for n in report["notes"]]
    lines += ["", "inputs:"] + [f"  {k} = {v}" for k, v in report["inputs"].items()]
    lines += [f"  gpu table: {g['source']} ({g['as_of']})"]
    lines += ["", "formulas:"] + [f"  {f}" for f in report["formulas"]]
    return "\n".join(lines) + "\n"
