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
    if report["unpriced_models"]:
        lines += [
            "",
            "no price (tokens counted, cost left out of the total): " + ", ".join(report["unpriced_models"]),
        ]
    if report.get("skipped_results"):
        skipped = ", ".join(f"{k} x{v}" for k, v in report["skipped_results"].items())
        lines.append(f"skipped (no token usage): {skipped}")
    if report.get("compare"):
        lines += ["", "the whole workload on one model (HolySheep, CNY):"]
        for e in report["compare"]:
            lines.append(
                f"  {e['model']:<28} period {_n(e['period_cny'], 2):>14}   month {_n(e['month_cny'], 2):>14}"
            )
    lines += ["", "formulas:"] + [f"  {f}" for f in report["formulas"]]
    return "\n".join(lines) + "\n"
