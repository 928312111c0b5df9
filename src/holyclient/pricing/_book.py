"""The book a usage tracker keeps: per model, what was charged and how; in all, what was spent, what of
it is uncertain, and by how much holds were overrun. Plain state, kept under the tracker's lock (see
:mod:`holyclient.pricing._tracker`, which holds the budget and the reservations against it)."""

from __future__ import annotations

from typing import Any

from ._answered import price_of, priced_as_note
from ._billed import billed_figures, figures_usd, unpriced_writes
from ._hold import OutputEstimate
from ._notes import Notes
from ._snapshot import Totals, UsageSnapshot
from ._table import PriceTable


class Book:
    """A tracker's totals (not locked by itself: its tracker's lock guards every use)."""

    __slots__ = ("notes", "overrun", "overruns", "spent", "totals", "uncertain_usd")

    def __init__(self) -> None:
        self.totals: dict[str, Totals] = {}
        self.spent = 0.0
        self.uncertain_usd = 0.0  # the part of ``spent`` whose outcome is unknown
        self.overrun = 0.0
        self.overruns = 0
        self.notes = Notes()

    def model(self, model: str) -> Totals:
        """The running totals of ``model`` (made on its first use)."""
        totals = self.totals.get(model)
        if totals is None:
            totals = self.totals[model] = Totals()
        return totals

    def record(
        self,
        model: str,
        usage: Any,
        approximate: bool,
        prices: PriceTable,
        outputs: OutputEstimate,
        asked: str | None = None,
        learns: bool = False,
    ) -> float | None:
        """Add ``usage`` to the model's totals; its cost (None: the model has no price): what
        :func:`~._cost.cost_from_usage` computes, without its estimate (every answer).

        Usage that does not add up is counted as unreconciled (priced the dearer way by the reader), and
        a cost the relay reports is kept beside holyclient's and compared with it (:mod:`._notes`: the
        first of each kind is noted in ``warnings`` and logged once the tracker's lock is released). An
        answer under a name the table does not know is priced as the model ``asked`` (:mod:`._answered`),
        and noted so. The completion of a billed answer that ``learns`` (its request set no output cap:
        :func:`~._hold.teaches`) teaches ``outputs`` what an uncapped request of the model holds."""
        figures = billed_figures(usage)
        prompt, cached, _, completion, _, _, write, write_long, reported, problems = figures
        totals = self.model(model)
        totals.requests += 1
        totals.prompt += prompt
        totals.cached += cached
        totals.completion += completion
        if write or write_long:
            totals.written += write + write_long
            totals.written_long += write_long
        if approximate:
            totals.approximate += 1
        info, priced_as = price_of(prices, model, asked)
        if priced_as is not None and totals.priced_as != priced_as:
            totals.priced_as = priced_as
            self.notes.note(model, "priced as", priced_as_note(model, priced_as))
        cost = None
        if info is None:
            totals.priced = False
        else:
            price = info.price_for(prompt)
            cost = sum(figures_usd(price, figures))
            if write or write_long:
                problems += unpriced_writes(price, write, write_long)
            if learns and not approximate and completion:
                outputs.observe(info.name, completion)
            totals.cost += cost
            self.spent += cost
        if problems or reported is not None:
            self.notes.usage(model, totals, problems, reported, cost)
        return cost

    def uncertain(self, model: str, prompt: int | None, amount: float, priced: bool) -> None:
        """A request whose outcome is unknown, counted at ``amount`` (its hold) as uncertain spend; its
        prompt tokens (counted offline) are recorded, its completion tokens are unknown."""
        totals = self.model(model)
        totals.requests += 1
        totals.uncertain += 1
        totals.prompt += prompt or 0
        if not priced:
            totals.priced = False
            return
        totals.cost += amount
        self.spent += amount
        self.uncertain_usd += amount

    def beyond(self, model: str, amount: float) -> None:
        """``amount`` more of a recorded request's cost is uncertain (a stream left before its end:
        what its hold allowed beyond what was read)."""
        totals = self.model(model)
        if totals.priced:
            totals.cost += amount
        self.spent += amount
        self.uncertain_usd += amount

    def unpriced(self, model: str) -> None:
        """An answer of an unpriced endpoint that reported no usage: a request of unknown cost."""
        totals = self.model(model)
        totals.requests += 1
        totals.priced = False

    def snapshot(self, reserved: float, budget: float | None, pending: int = 0) -> UsageSnapshot:
        """The totals as a snapshot, with ``reserved`` held against ``budget`` and ``pending`` background
        responses still running."""
        return UsageSnapshot(
            models={name: t.usage() for name, t in self.totals.items()},
            total_cost_usd=self.spent,
            reserved_usd=reserved,
            budget_usd=budget,
            remaining_usd=None if budget is None else max(budget - self.spent - reserved, 0.0),
            unpriced_models=tuple(name for name, t in self.totals.items() if not t.priced),
            uncertain_usd=self.uncertain_usd,
            warnings=tuple(self.notes.warnings),
            overrun_usd=self.overrun,
            overrun_requests=self.overruns,
            pending_requests=pending,
        )
