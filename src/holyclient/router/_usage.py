"""Usage per target and in total: each target's tracker also charges the router's.

A target's client keeps its own :class:`~holyclient.UsageTracker` (its tokens, cost and optional
budget); every reservation, settlement and record is mirrored on the router's tracker, which holds the
total and the router's ``budget_usd``. A request must fit both budgets to be sent. A request refused by
a target's own budget (marked ``target_budget``) goes on to the next target; one refused by the total
budget fails, as it would on every target.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from .._exceptions import BudgetExceededError
from ..pricing import CHAT, Charging, PriceTable, Reservation, UsageTracker


class ChainedTracker(UsageTracker):
    """A target's tracker that charges ``parent`` (the router's total) with everything it records."""

    def __init__(self, parent: UsageTracker, budget_usd: float | None = None) -> None:
        super().__init__(budget_usd, budget_policy=parent.budget_policy)
        self.parent = parent
        self._links: dict[int, Reservation] = {}
        self._links_lock = threading.Lock()

    @property
    def prices(self) -> PriceTable:
        """The router's price table: a target's costs are counted as the total's are."""
        return self.parent.prices

    def reserve(self, body: Mapping[str, Any], charging: Charging = CHAT) -> Reservation:
        # settlements queued by finalisers (a stream dropped unclosed) first: they also free the total
        self._apply_later()
        total = self.parent.reserve(body, charging)  # the total budget first: raises when it is spent
        try:
            own = super().reserve(body, charging)
        except BaseException as exc:
            self.parent.settle(total, None)
            if isinstance(exc, BudgetExceededError):
                exc.target_budget = True  # type: ignore[attr-defined]  # this target's budget: fail over
            raise
        with self._links_lock:
            self._links[own.id] = total
        return own

    def _link(self, reservation: Reservation) -> Reservation | None:
        with self._links_lock:
            return self._links.pop(reservation.id, None)

    def settle(
        self,
        reservation: Reservation,
        usage: Mapping[str, Any] | Any | None,
        *,
        approximate: bool = False,
        model: str | None = None,
    ) -> None:
        total = self._link(reservation)
        if total is not None:
            self.parent.settle(total, usage, approximate=approximate, model=model)
        super().settle(reservation, usage, approximate=approximate, model=model)

    def settle_early(
        self,
        reservation: Reservation | None,
        model: str,
        usage: Mapping[str, Any] | None,
        charging: Charging,
        body: Mapping[str, Any],
    ) -> None:
        """A stream left before its end, settled here and in the total alike (a routed stream that broke
        and was taken over ends that way on its target)."""
        total = self._link(reservation) if reservation is not None else None
        if reservation is None or total is not None:
            self.parent.settle_early(total, model, usage, charging, body)
        super().settle_early(reservation, model, usage, charging, body)

    def settle_uncertain(self, reservation: Reservation) -> None:
        total = self._link(reservation)
        if total is not None:
            self.parent.settle_uncertain(total)
        super().settle_uncertain(reservation)

    def record(self, model: str, usage: Mapping[str, Any] | Any, *, approximate: bool = False) -> None:
        self.parent.record(model, usage, approximate=approximate)
        super().record(model, usage, approximate=approximate)

    def charge(
        self,
        model: str,
        usage: Mapping[str, Any] | Any,
        charging: Charging = CHAT,
        body: Mapping[str, Any] | None = None,
        *,
        approximate: bool = False,
    ) -> None:
        self.parent.charge(model, usage, charging, body, approximate=approximate)
        super().charge(model, usage, charging, body, approximate=approximate)

    # A background response is kept by the router's total, for every target: another target may serve the
    # retrieval that collects a response this one created (its ledger still charges this tracker).
    def defer(self, response_id: str, ledger: Any) -> None:
        self.parent.defer(response_id, ledger)

    def collect(self, response_id: str) -> Any:
        return self.parent.collect(response_id)

    def charge_uncertain(self, charging: Charging, body: Mapping[str, Any], model: str | None = None) -> None:
        self.parent.charge_uncertain(charging, body, model)
        super().charge_uncertain(charging, body, model)

    def flush(self) -> None:
        """Apply settlements queued by finalisers (streams dropped unclosed), here and so in the total."""
        self._apply_later()
