"""Token and cost totals per model, and the optional budget guard, shared by all of a client's calls.

A request first *reserves* its worst-case cost (prompt counted offline, output at its cap), so that
concurrent requests cannot together overrun the budget; when the response arrives the reservation is
*settled*, replaced by the cost of the real ``usage``. One ``threading.Lock`` guards the state; no
method awaits, so asyncio tasks sharing a tracker are safe too.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._exceptions import BudgetExceededError
from .pricing import (
    PriceTable,
    UnknownModelError,
    default_table,
    estimate_cost,
    requested_output_tokens,
    usage_tokens,
)

__all__ = ["ModelUsage", "Reservation", "UsageSnapshot", "UsageTracker"]


@dataclass(frozen=True)
class Reservation:
    """A request's place in the budget until it is settled.

    Attributes:
        model: the model of the request.
        prompt_tokens: prompt tokens counted offline (None when not counted).
        worst_case_usd: the amount held (0 when the model has no price).
        priced: False when the model has no price (its cost is then unknown).
    """

    id: int
    model: str
    prompt_tokens: int | None
    worst_case_usd: float
    priced: bool


@dataclass(frozen=True)
class ModelUsage:
    """Totals for one model. ``cost_usd`` is None when the model has no known price."""

    requests: int
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    cost_usd: float | None


@dataclass(frozen=True)
class UsageSnapshot:
    """A consistent copy of a tracker's totals."""

    models: dict[str, ModelUsage]
    total_cost_usd: float
    reserved_usd: float
    budget_usd: float | None
    remaining_usd: float | None
    unpriced_models: tuple[str, ...]

    @property
    def total_tokens(self) -> int:
        return sum(m.prompt_tokens + m.completion_tokens for m in self.models.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "models": {
                name: {
                    "requests": m.requests,
                    "prompt_tokens": m.prompt_tokens,
                    "cached_tokens": m.cached_tokens,
                    "completion_tokens": m.completion_tokens,
                    "cost_usd": m.cost_usd,
                }
                for name, m in self.models.items()
            },
            "total_cost_usd": self.total_cost_usd,
            "reserved_usd": self.reserved_usd,
            "budget_usd": self.budget_usd,
            "remaining_usd": self.remaining_usd,
            "unpriced_models": list(self.unpriced_models),
        }


class _Totals:
    __slots__ = ("cached", "completion", "cost", "priced", "prompt", "requests")

    def __init__(self) -> None:
        self.requests = 0
        self.prompt = 0
        self.cached = 0
        self.completion = 0
        self.cost = 0.0
        self.priced = True


class UsageTracker:
    """Sums tokens and cost per model across sync, async and batch calls, and enforces a budget.

    Args:
        budget_usd: refuse requests whose worst-case cost exceeds what is left (None: no limit).
        prices: the price table (default: built-in plus ``HOLYSHEEP_PRICES``).
    """

    def __init__(self, budget_usd: float | None = None, *, prices: PriceTable | None = None) -> None:
        if budget_usd is not None and (math.isnan(budget_usd) or budget_usd < 0):
            raise ValueError(f"budget_usd must be a non-negative number, got {budget_usd!r}")
        self.budget_usd = budget_usd
        self._prices = prices
        self._lock = threading.Lock()
        self._totals: dict[str, _Totals] = {}
        self._spent = 0.0
        self._reserved: dict[int, float] = {}
        self._next_id = 0

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
        from .tokens import count_request

        prompt = count_request(body, model=model).tokens
        cap = requested_output_tokens(body)
        n = body.get("n")
        choices = n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 1
        room = max(info.context_window - prompt, 0)
        output = cap * choices if cap is not None else min(info.max_output_tokens, room) * choices
        worst = estimate_cost(model, prompt, output, table=self.prices).cost_usd
        with self._lock:
            if self.budget_usd is None:
                return self._hold_locked(model, prompt, worst, priced=True)
            remaining = self.budget_usd - self._spent - sum(self._reserved.values())
            if worst > remaining:
                raise BudgetExceededError(
                    f"Request refused before sending: its worst-case cost ${worst:.6f} ({prompt} prompt + "
                    f"{output} output tokens on {info.name}) exceeds the ${max(remaining, 0.0):.6f} left of the "
                    f"${self.budget_usd:.6f} budget. Set max_tokens lower or raise the budget.",
                    requested_usd=worst,
                    remaining_usd=max(remaining, 0.0),
                )
            return self._hold_locked(model, prompt, worst, priced=True)

    def _hold(self, model: str, prompt: int | None, amount: float, *, priced: bool) -> Reservation:
        with self._lock:
            return self._hold_locked(model, prompt, amount, priced=priced)

    def _hold_locked(self, model: str, prompt: int | None, amount: float, *, priced: bool) -> Reservation:
        self._next_id += 1
        self._reserved[self._next_id] = amount
        return Reservation(self._next_id, model, prompt, amount, priced)

    def settle(self, reservation: Reservation, usage: Mapping[str, Any] | Any | None) -> None:
        """Replace a reservation by the cost of the real ``usage``; with None, just release it.

        Settling the same reservation twice records nothing the second time.
        """
        with self._lock:
            if self._reserved.pop(reservation.id, None) is None:
                return
            if usage is not None:
                self._record_locked(reservation.model, usage)

    def record(self, model: str, usage: Mapping[str, Any] | Any) -> None:
        """Add a response's ``usage`` for callers that made no reservation."""
        with self._lock:
            self._record_locked(model, usage)

    def _record_locked(self, model: str, usage: Any) -> None:
        prompt, cached, completion = usage_tokens(usage)
        totals = self._totals.get(model)
        if totals is None:
            totals = self._totals[model] = _Totals()
        totals.requests += 1
        totals.prompt += prompt
        totals.cached += cached
        totals.completion += completion
        try:
            cost = estimate_cost(
                model, prompt, completion, cached_input_tokens=cached, table=self.prices
            ).cost_usd
        except UnknownModelError:
            totals.priced = False
            return
        totals.cost += cost
        self._spent += cost

    @property
    def total_cost_usd(self) -> float:
        with self._lock:
            return self._spent

    @property
    def remaining_usd(self) -> float | None:
        """What is left of the budget after spent and held amounts (None without a budget)."""
        if self.budget_usd is None:
            return None
        with self._lock:
            return max(self.budget_usd - self._spent - sum(self._reserved.values()), 0.0)

    def snapshot(self) -> UsageSnapshot:
        """A consistent copy of the totals."""
        with self._lock:
            reserved = sum(self._reserved.values())
            models = {
                name: ModelUsage(t.requests, t.prompt, t.cached, t.completion, t.cost if t.priced else None)
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
            )

    def totals(self) -> dict[str, Any]:
        """The snapshot as plain JSON-ready data."""
        return self.snapshot().as_dict()

    def __repr__(self) -> str:
        snap = self.snapshot()
        budget = "" if snap.budget_usd is None else f", budget_usd={snap.budget_usd}"
        return f"UsageTracker(total_cost_usd={snap.total_cost_usd:.6f}{budget})"
