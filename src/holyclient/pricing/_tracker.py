"""Token and cost totals per model, and the optional budget guard, shared by all of a client's calls.

A request first *reserves* its worst-case cost (prompt counted offline, output at its cap), so that
concurrent requests cannot together overrun the budget; when the response arrives the reservation is
*settled*, replaced by the cost of the real ``usage``. A request whose outcome is unknown (a timeout or a
dropped connection after it was sent: the server may have billed it) keeps its reservation as spent,
counted as *uncertain*. One ``threading.Lock`` guards the state; no method awaits, so asyncio tasks
sharing a tracker are safe too.

Garbage-collection finalisers (a stream dropped without being closed) must not take that lock: the
collector can run them on a thread that already holds it. They queue their settlement with
:meth:`UsageTracker.settle_later` (a lock-free ``deque.append``) and the next reading of the tracker
applies it.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._exceptions import BudgetExceededError
from ._billed import billed_tokens
from ._cost import (
    PriceTable,
    UnknownModelError,
    billed_cost,
    default_table,
    estimate_cost,
    requested_output_tokens,
)
from ._learning import CalibrationLearner, StandIn
from ._snapshot import ModelUsage, UsageSnapshot
from ._usage_export import usage_export

if TYPE_CHECKING:
    from ..tokens import Calibration

__all__ = ["ModelUsage", "Reservation", "UsageSnapshot", "UsageTracker"]


@dataclass(frozen=True)
class Reservation:
    """A request's place in the budget until it is settled.

    Attributes:
        model: the model of the request.
        prompt_tokens: prompt tokens counted offline, at the high end of the count's range when the
            count is not exact (None when not counted).
        worst_case_usd: the amount held (0 when the model has no price).
        priced: False when the model has no price (its cost is then unknown).
        stand_in: the uncorrected stand-in count and kind mix of a count that is not exact: what the
            billed usage is compared with to learn the correction online.
    """

    id: int
    model: str
    prompt_tokens: int | None
    worst_case_usd: float
    priced: bool
    stand_in: StandIn | None = field(default=None, compare=False)


class _Totals:
    __slots__ = ("approximate", "cached", "completion", "cost", "priced", "prompt", "requests", "uncertain")

    def __init__(self) -> None:
        self.requests = 0
        self.prompt = 0
        self.cached = 0
        self.completion = 0
        self.cost = 0.0
        self.priced = True
        self.approximate = 0
        self.uncertain = 0


class UsageTracker:
    """Sums tokens and cost per model across sync, async and batch calls, and enforces a budget.

    Prompts of models counted with a stand-in tokenizer are reserved at the high end of their count's
    range, and every billed response of such a model teaches the tracker the correction
    (:meth:`calibration`), which later reservations use.

    Args:
        budget_usd: refuse requests whose worst-case cost exceeds what is left (None: no limit).
        prices: the price table (default: built-in plus ``HOLYSHEEP_PRICES``).
        calibration: corrections fitted from billed usage: a :class:`~holyclient.Calibration` or the
            path of a file written by ``holyclient calibrate`` (what is learnt online adds to it).

    Raises:
        CalibrationFileError: the calibration file cannot be read.
    """

    def __init__(
        self,
        budget_usd: float | None = None,
        *,
        prices: PriceTable | None = None,
        calibration: Calibration | str | Path | None = None,
    ) -> None:
        if budget_usd is not None and (math.isnan(budget_usd) or budget_usd < 0):
            raise ValueError(f"budget_usd must be a non-negative number, got {budget_usd!r}")
        self.budget_usd = budget_usd
        self._prices = prices
        self._learner = CalibrationLearner(calibration)
        self._lock = threading.Lock()
        self._totals: dict[str, _Totals] = {}
        self._spent = 0.0
        self._reserved: dict[int, float] = {}
        self._next_id = 0
        self._uncertain = 0.0
        self._later: deque[Callable[[], None]] = deque()
        self._warnings: list[str] = []
        self.started_at = time.time()  # the start of the period an export() covers

    @property
    def prices(self) -> PriceTable:
        if self._prices is None:
            self._prices = default_table()
        return self._prices

    def reserve(self, body: Mapping[str, Any]) -> Reservation:
        """Hold the worst-case cost of a chat request body before it is sent.

        The worst case is the prompt (counted offline) plus the output cap: ``max_completion_tokens`` or
        ``max_tokens`` times ``n``, else the model's maximum output, never more than the context window
        leaves; cached-input discounts are not assumed.

        Raises:
            BudgetExceededError: a budget is set and the worst case exceeds what is left (spent and
                held amounts deducted), or the model has no price so the budget cannot be checked.
        """
        self._apply_later()
        model = str(body.get("model") or "")
        info = self.prices.get(model)
        if info is None:
            if self.budget_usd is not None:
                remaining = self.remaining_usd
                raise BudgetExceededError(
                    f"Cannot check the budget: {self.prices.unknown(model)}",
                    requested_usd=math.inf,
                    remaining_usd=remaining if remaining is not None else math.inf,
                )
            return self._hold(model, None, 0.0, priced=False)
        counted, stand_in = self._learner.count(body, info.name)
        prompt = counted.input_tokens_range[1]  # the high end: a stand-in count may be far below the bill
        cap = requested_output_tokens(body)
        n = body.get("n")
        choices = n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 1
        room = max(info.context_window - prompt, 0)
        output = cap * choices if cap is not None else min(info.max_output_tokens, room) * choices
        worst = estimate_cost(model, prompt, output, table=self.prices).cost_usd
        with self._lock:
            if self.budget_usd is None:
                return self._hold_locked(model, prompt, worst, priced=True, stand_in=stand_in)
            remaining = self.budget_usd - self._spent - sum(self._reserved.values())
            if worst > remaining:
                raise BudgetExceededError(
                    f"Request refused before sending: its worst-case cost ${worst:.6f} ({prompt} prompt + "
                    f"{output} output tokens on {info.name}) exceeds the ${max(remaining, 0.0):.6f} left of the "
                    f"${self.budget_usd:.6f} budget. Set max_tokens lower or raise the budget.",
                    requested_usd=worst,
                    remaining_usd=max(remaining, 0.0),
                )
            return self._hold_locked(model, prompt, worst, priced=True, stand_in=stand_in)

    def learns(self, body: Mapping[str, Any]) -> bool:
        """Whether a request's billed usage would teach the tracker something (its model is counted
        with a stand-in tokenizer), so the client should reserve it even without a budget."""
        return self._learner.learns(body)

    def calibration(self) -> Calibration:
        """The corrections learnt from every billed response so far, over the one given at creation;
        save it with ``.save(path)`` and give it to ``holyclient estimate --calibration`` or
        ``Client(calibration=...)``."""
        return self._learner.calibration()

    def _hold(self, model: str, prompt: int | None, amount: float, *, priced: bool) -> Reservation:
        with self._lock:
            return self._hold_locked(model, prompt, amount, priced=priced)

    def _hold_locked(
        self,
        model: str,
        prompt: int | None,
        amount: float,
        *,
        priced: bool,
        stand_in: StandIn | None = None,
    ) -> Reservation:
        self._next_id += 1
        self._reserved[self._next_id] = amount
        return Reservation(self._next_id, model, prompt, amount, priced, stand_in)

    def settle(
        self, reservation: Reservation, usage: Mapping[str, Any] | Any | None, *, approximate: bool = False
    ) -> None:
        """Replace a reservation by the cost of the real ``usage``; with None, just release it.

        Settling the same reservation twice records nothing the second time.

        Args:
            approximate: the usage was counted locally, not reported by the server.
        """
        with self._lock:
            if self._reserved.pop(reservation.id, None) is None:
                return
            if usage is not None:
                self._record_locked(reservation.model, usage, approximate)
                if not approximate and reservation.stand_in is not None:
                    self._learner.learn(reservation.stand_in, usage)

    def settle_uncertain(self, reservation: Reservation) -> None:
        """Keep a reservation as spent: the request's outcome is unknown, so assume the worst case.

        Its prompt tokens (counted offline) are recorded; its completion tokens are unknown.
        """
        with self._lock:
            amount = self._reserved.pop(reservation.id, None)
            if amount is None:
                return
            totals = self._model_totals(reservation.model)
            totals.requests += 1
            totals.uncertain += 1
            totals.prompt += reservation.prompt_tokens or 0
            if not reservation.priced:
                totals.priced = False
                return
            totals.cost += amount
            self._spent += amount
            self._uncertain += amount

    def settle_later(self, settle: Callable[[], None]) -> None:
        """Queue a settlement to run at the next reading of the tracker; safe in a finaliser (no lock)."""
        self._later.append(settle)

    def warn(self, text: str) -> None:
        """Note something that went wrong beside the calls (shown in :meth:`snapshot`'s ``warnings``)."""
        with self._lock:
            self._warnings.append(text)

    def _apply_later(self) -> None:
        while self._later:
            try:
                settle = self._later.popleft()
            except IndexError:  # another thread took the last one
                return
            settle()

    def record(self, model: str, usage: Mapping[str, Any] | Any, *, approximate: bool = False) -> None:
        """Add a response's ``usage`` for callers that made no reservation."""
        with self._lock:
            self._record_locked(model, usage, approximate)

    def _model_totals(self, model: str) -> _Totals:
        totals = self._totals.get(model)
        if totals is None:
            totals = self._totals[model] = _Totals()
        return totals

    def _record_locked(self, model: str, usage: Any, approximate: bool = False) -> None:
        billed = billed_tokens(usage)
        totals = self._model_totals(model)
        totals.requests += 1
        totals.prompt += billed.prompt
        totals.cached += billed.cached
        totals.completion += billed.completion
        if approximate:
            totals.approximate += 1
        try:
            cost = billed_cost(model, billed, table=self.prices).cost_usd
        except UnknownModelError:
            totals.priced = False
            return
        totals.cost += cost
        self._spent += cost

    @property
    def total_cost_usd(self) -> float:
        self._apply_later()
        with self._lock:
            return self._spent

    @property
    def remaining_usd(self) -> float | None:
        """What is left of the budget after spent and held amounts (None without a budget)."""
        if self.budget_usd is None:
            return None
        self._apply_later()
        with self._lock:
            return max(self.budget_usd - self._spent - sum(self._reserved.values()), 0.0)

    def snapshot(self) -> UsageSnapshot:
        """A consistent copy of the totals."""
        self._apply_later()
        with self._lock:
            reserved = sum(self._reserved.values())
            models = {
                name: ModelUsage(
                    t.requests,
                    t.prompt,
                    t.cached,
                    t.completion,
                    t.cost if t.priced else None,
                    t.approximate,
                    t.uncertain,
                )
                for name, t in self._totals.items()
            }
            remaining = (
                None if self.budget_usd is None else max(self.budget_usd - self._spent - reserved, 0.0)
            )
            return UsageSnapshot(
                models=models,
                total_cost_usd=self._spent,
                reserved_usd=reserved,
                budget_usd=self.budget_usd,
                remaining_usd=remaining,
                unpriced_models=tuple(name for name, t in self._totals.items() if not t.priced),
                uncertain_usd=self._uncertain,
                warnings=tuple(self._warnings),
            )

    def export(self) -> dict[str, Any]:
        """The totals so far as one OpenAI Usage API page (``group_by=model``), from the tracker's
        creation to now: save it as JSON and give it to ``holyclient estimate --usage FILE``."""
        return usage_export(
            self.snapshot().models, start_time=int(self.started_at), end_time=int(time.time())
        )

    def totals(self) -> dict[str, Any]:
        """The snapshot as plain JSON-ready data."""
        return self.snapshot().as_dict()

    def __repr__(self) -> str:
        snap = self.snapshot()
        budget = "" if snap.budget_usd is None else f", budget_usd={snap.budget_usd}"
        return f"UsageTracker(total_cost_usd={snap.total_cost_usd:.6f}{budget})"


def billed_usage(result: Any) -> tuple[str | None, Any]:
    """The model and token usage a response bills, for ``client.usage``.

    ``(None, None)`` for objects without a usage model (a translation's extra ``usage`` dict, text, bytes),
    and for objects that report usage billed by other requests: a ``Batch`` carries the
    tokens of the whole batch every time it is retrieved, which must not be charged again.
    """
    if not getattr(type(result), "usage_is_billed", True):
        return None, None
    usage = getattr(result, "usage", None)
    if not hasattr(usage, "model_dump"):  # absent, or an undeclared field kept as a plain dict
        return None, None
    return getattr(result, "model", None), usage
