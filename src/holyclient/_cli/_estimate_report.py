"""What ``holyclient estimate`` prints: per-request rows (spooled), per-model totals, the notes.

A cost is ``None`` when the model has no price (shown as ``?`` in the table, ``null`` in JSON); a
request that does not fit a model (prompt over the context window, ``max_tokens`` over the model's
output limit) is left out of that model's total and the model ranks last in ``--compare``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any

ROW = "{:<28} {:<22} {:>24} {:>12} {:>12} {:>12}"

#: Methods from best to worst: a total is as good as its worst request.
METHODS = ("exact", "calibrated", "approximate")


@dataclass(frozen=True)
class Entry:
    """One request priced on one model."""

    model: str
    input_tokens: int
    output_tokens: int
    output_assumed: bool
    approximate: bool
    cost_usd: float | None  # None: the model has no price
    misfit: str | None = None  # why the request does not fit the model, if it does not
    count_method: str = "exact"
    input_range: tuple[int, int] | None = None  # None: exact, (input_tokens, input_tokens)

    @property
    def low(self) -> int:
        return self.input_tokens if self.input_range is None else self.input_range[0]

    @property
    def high(self) -> int:
        return self.input_tokens if self.input_range is None else self.input_range[1]

    def as_dict(self, rate: float) -> dict[str, Any]:
        out: dict[str, Any] = {
            "model": self.model,
            "input_tokens": self.input_tokens,
            "count_method": self.count_method,
            "input_tokens_range": [self.low, self.high],
            "output_tokens": self.output_tokens,
            "output_assumed": self.output_assumed,
            "cost_usd": _round(self.cost_usd),
            "cost_cny": _round(None if self.cost_usd is None else self.cost_usd * rate),
            "approximate": self.approximate,
            "fits": self.misfit is None,
        }
        if self.misfit is not None:
            out["does_not_fit"] = self.misfit
        return out


@dataclass
class Total:
    """A model's total over the requests that fit it."""

    model: str
    priced: bool
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    approximate: bool = False
    assumed: bool = False
    misfits: int = 0
    first_misfit: str = ""
    low: int = 0
    high: int = 0
    count_method: str = "exact"

    def add(self, entry: Entry) -> None:
        if entry.misfit is not None:
            self.misfits += 1
            self.first_misfit = self.first_misfit or entry.misfit
            return
        self.requests += 1
        self.input_tokens += entry.input_tokens
        self.low += entry.low
        self.high += entry.high
        self.count_method = worst(self.count_method, entry.count_method)
        self.output_tokens += entry.output_tokens
        self.cost_usd += entry.cost_usd or 0.0
        self.approximate = self.approximate or entry.approximate
        self.assumed = self.assumed or entry.output_assumed

    @property
    def cost(self) -> float | None:
        return self.cost_usd if self.priced else None

    def rank(self) -> tuple[bool, bool, float]:
        """Cheapest first; models some requests do not fit, then unpriced models, last."""
        return (not self.priced, self.misfits > 0, self.cost_usd)

    def as_dict(self, rate: float) -> dict[str, Any]:
        return {
            "model": self.model,
            "requests": self.requests,
            "input_tokens": self.input_tokens,
            "count_method": self.count_method,
            "input_tokens_range": [self.low, self.high],
            "output_tokens": self.output_tokens,
            "cost_usd": _round(self.cost),
            "cost_cny": _round(None if self.cost is None else self.cost * rate),
            "approximate": self.approximate,
            "not_fitting": self.misfits,
        }


@dataclass
class State:
    rate: float
    compare: list[str] | None
    totals: dict[str, Total] = field(default_factory=dict)
    count: int = 0
    warned: set[str] = field(default_factory=set)
    calibration: Any = None  # a holyclient._calibration.Calibration from --calibration

    def add(self, entry: Entry) -> None:
        total = self.totals.get(entry.model)
        if total is None:
            total = self.totals[entry.model] = Total(entry.model, priced=entry.cost_usd is not None)
        total.add(entry)

    def priced_cost(self) -> float:
        return float(sum(t.cost_usd for t in self.totals.values() if t.priced))

    def unpriced(self) -> list[str]:
        return [t.model for t in self.totals.values() if not t.priced]

    def cheapest(self) -> Total | None:
        """With ``--compare``: the cheapest priced model that every request fits (else the cheapest priced)."""
        priced = [t for t in self.totals.values() if t.priced]
        fitting = [t for t in priced if not t.misfits] or priced
        return min(fitting, key=lambda t: t.cost_usd, default=None)


def max_cost_exit(total_usd: float | None, max_cost: float | None, unpriced: Sequence[str]) -> int:
    """``--max-cost``: 1 when the priced total (``None``: nothing priced) exceeds it, said on stderr; else 0.

    Every way estimate prices a workload (request FILEs, ``--usage``, with ``--self-host``) ends here,
    so the gate the help promises holds for all of them.
    """
    if max_cost is not None and unpriced:
        print(
            f"holyclient estimate: warning: --max-cost checks priced models only; no price for {', '.join(unpriced)}",
            file=sys.stderr,
        )
    if max_cost is None or total_usd is None or total_usd <= max_cost:
        return 0
    print(
        f"holyclient estimate: estimated ${total_usd:.6f} exceeds --max-cost ${max_cost:.6f}", file=sys.stderr
    )
    return 1


def state_exit(state: State, max_cost: float | None) -> int:
    """:func:`max_cost_exit` for request FILEs: their total, or with ``--compare`` the cheapest model's."""
    cheapest = state.cheapest()
    total = None if cheapest is None else state.priced_cost() if state.compare is None else cheapest.cost_usd
    return max_cost_exit(total, max_cost, state.unpriced())


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 10)


def spool_row(state: State, request: Any, entries: list[Entry], spool: IO[str], *, as_json: bool) -> None:
    if as_json:
        row: dict[str, Any] = {"index": state.count, "source": request.source, "custom_id": request.custom_id}
        if state.compare is None:
            row.update(entries[0].as_dict(state.rate))
        else:
            row["estimates"] = [e.as_dict(state.rate) for e in entries]
        spool.write(json.dumps(row) + "\n")
    elif state.compare is None:
        e = entries[0]
        spool.write(
            ROW.format(
                clip(request.custom_id or request.source, 28),
                clip(e.model + ("!" if e.misfit else ""), 22),
                input_text(e.input_tokens, e.count_method, e.low, e.high),
                tokens(e.output_tokens, False, e.output_assumed),
                money(e.cost_usd),
                money(None if e.cost_usd is None else e.cost_usd * state.rate),
            )
            + "\n"
        )


def print_json(state: State, spool: IO[str], out: IO[str]) -> None:
    out.write('{"requests": [')
    for i, line in enumerate(spool):
        out.write(("\n  " if i == 0 else ",\n  ") + line.rstrip("\n"))
    ranked = sorted(state.totals.values(), key=Total.rank)
    total: dict[str, Any]
    if state.compare is None:
        # Priced models only; null when no model has a price (unpriced_models names the rest).
        cost = state.priced_cost() if any(t.priced for t in ranked) else None
        total = {
            "requests": state.count,
            "input_tokens": sum(t.input_tokens for t in ranked),
            "count_method": _worst_of(t.count_method for t in ranked),
            "input_tokens_range": [sum(t.low for t in ranked), sum(t.high for t in ranked)],
            "output_tokens": sum(t.output_tokens for t in ranked),
            "cost_usd": _round(cost),
            "cost_cny": _round(None if cost is None else cost * state.rate),
            "approximate": any(t.approximate for t in ranked),
            "unpriced_models": state.unpriced(),
            "not_fitting": sum(t.misfits for t in ranked),
            "cny_rate": state.rate,
            "by_model": {t.model: t.as_dict(state.rate) for t in state.totals.values()},
        }
    else:
        total = {
            "requests": state.count,
            "cny_rate": state.rate,
            "models": [t.as_dict(state.rate) for t in ranked],
        }
    out.write('\n], "total": ' + json.dumps(total, indent=2) + "}\n")


def print_table(state: State, spool: IO[str], out: IO[str], *, summary: bool) -> None:
    header = ROW.format("REQUEST", "MODEL", "INPUT", "OUTPUT", "COST USD", "COST CNY")
    if state.compare is None:
        if not summary:
            out.write(header + "\n")
            for line in spool:
                out.write(line)
            out.write("-" * len(header) + "\n")
        for t in sorted(state.totals.values(), key=lambda t: (not t.priced, -t.cost_usd)):
            label = f"total ({t.requests} request{'s' * (t.requests != 1)})"
            out.write(_total_row(label, t, state.rate) + "\n")
        if len(state.totals) > 1:
            cost = state.priced_cost()
            unknown = " + ? (no price for some models)" if state.unpriced() else ""
            out.write(
                f"all models: {state.count} requests, ${cost:.6f} = ¥{cost * state.rate:.6f}{unknown}\n"
            )
    else:
        ranked = sorted(state.totals.values(), key=Total.rank)
        out.write(
            ROW.format(
                f"VS CHEAPEST ({state.count} req.)", "MODEL", "INPUT", "OUTPUT", "COST USD", "COST CNY"
            )
            + "\n"
        )
        best = ranked[0] if ranked and ranked[0].priced and not ranked[0].misfits else None
        for t in ranked:
            usable = t.priced and not t.misfits and best is not None and best.cost_usd > 0
            ratio = f"{t.cost_usd / best.cost_usd:.1f}x" if usable and best is not None else "-"
            out.write(_total_row(ratio, t, state.rate) + "\n")
    for note in notes(state):
        out.write(note + "\n")


def notes(state: State) -> list[str]:
    totals = state.totals.values()
    out = []
    if any(t.assumed for t in totals):
        out.append("* assumed output: max_tokens/max_completion_tokens when set, else --output-tokens (512)")
    methods = {t.count_method for t in totals}
    if "approximate" in methods:
        out.append(
            "~ approximate: counted with o200k_base and corrected by published ratios for the model family "
            "and content kind (or, for a model whose own tokenizer ships, its chat template left open); "
            "(low-high) holds the billed count"
        )
    if "calibrated" in methods:
        out.append("~ calibrated: corrected by the fit in --calibration; (low-high) spans its error")
    for t in totals:
        if t.misfits:
            some = "1 request does" if t.misfits == 1 else f"{t.misfits} requests do"
            out.append(f"! {t.model}: {some} not fit ({t.first_misfit}); left out of its total")
    if state.unpriced():
        out.append(f"? no price for {', '.join(state.unpriced())}: tokens counted, cost unknown")
    out.append(f"CNY at {state.rate:g} CNY per USD of list price")
    return out


def _total_row(label: str, t: Total, rate: float) -> str:
    return ROW.format(
        clip(label, 28),
        clip(t.model + ("!" if t.misfits else ""), 22),
        input_text(t.input_tokens, t.count_method, t.low, t.high),
        tokens(t.output_tokens, False, t.assumed),
        money(t.cost),
        money(None if t.cost is None else t.cost * rate),
    )


def worst(a: str, b: str) -> str:
    """The worse of two count methods."""
    return a if METHODS.index(a) >= METHODS.index(b) else b


def _worst_of(methods: Any) -> str:
    out = "exact"
    for method in methods:
        out = worst(out, method)
    return out


def input_text(n: int, method: str, low: int, high: int) -> str:
    """``13`` for an exact count, ``~13 (11-17)`` otherwise."""
    if method == "exact" and low == high == n:
        return f"{n:,}"
    return f"~{n:,} ({low:,}-{high:,})"


def money(value: float | None) -> str:
    return "?" if value is None else f"{value:.6f}"


def tokens(n: int, approximate: bool, assumed: bool = False) -> str:
    return ("~" if approximate else "") + f"{n:,}" + ("*" if assumed else "")


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1) :]
