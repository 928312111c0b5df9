"""Token and cost totals per model, and the optional budget guard, shared by all of a client's calls.

With a budget, a request first *holds* its cost (the prompt counted offline, plus its output
allowance: see :mod:`holyclient.pricing._hold` for the budget policy), so that concurrent requests
cannot together overrun the budget; when the response arrives the hold is *settled*, replaced by the
cost of the real ``usage``. A request whose outcome is unknown (a timeout, a dropped connection or a
cancellation after it was sent: the server may have billed it) keeps its hold as spent, counted as
*uncertain*. Which endpoints hold and which failures are "maybe billed" is each endpoint's declaration
(:mod:`holyclient.pricing._charging`), applied by an attempt's :class:`~holyclient.pricing._ledger.Ledger`.
One ``threading.Lock`` guards the state; no method awaits, so asyncio tasks sharing a tracker are safe too.

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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._background import Deferred, Kept
from ._book import Book
from ._charging import CHAT, Charging
from ._cost import PriceTable, default_table, estimate_cost
from ._hold import POLICIES, BudgetPolicy, OutputEstimate, Reservation, request_hold, teaches
from ._learning import CalibrationLearner, StandIn
from ._refusal import over_budget, unpriced
from ._snapshot import ModelUsage, UsageSnapshot
from ._usage_export import usage_export

if TYPE_CHECKING:
    from ..tokens import Calibration

__all__ = ["ModelUsage", "Reservation", "UsageSnapshot", "UsageTracker"]


class UsageTracker:
    """Sums tokens and cost per model across sync, async and batch calls, and enforces a budget.

    Prompts of models counted with a stand-in tokenizer are reserved at the high end of their count's
    range, and every billed response of such a model teaches the tracker the correction
    (:meth:`calibration`), which later reservations use.

    Args:
        budget_usd: refuse, before sending, requests whose hold exceeds what is left (None: no limit).
        prices: the price table (default: built-in plus ``HOLYSHEEP_PRICES``).
        calibration: corrections fitted from billed usage: a :class:`~holyclient.Calibration` or the
            path of a file written by ``holyclient calibrate`` (what is learnt online adds to it).
        budget_policy: what a request without an output cap holds: ``"expected"`` (the answer length
            this tracker's billed answers show for the model) or ``"worst_case"`` (the model's whole
            output limit); see :mod:`holyclient.pricing._hold`.

    Raises:
        CalibrationFileError: the calibration file cannot be read.
        ValueError: a negative budget, or an unknown policy.
    """

    def __init__(
        self,
        budget_usd: float | None = None,
        *,
        prices: PriceTable | None = None,
        calibration: Calibration | str | Path | None = None,
        budget_policy: BudgetPolicy = "expected",
    ) -> None:
        if budget_usd is not None and (math.isnan(budget_usd) or budget_usd < 0):
            raise ValueError(f"budget_usd must be a non-negative number, got {budget_usd!r}")
        if budget_policy not in POLICIES:
            raise ValueError(
                f"budget_policy must be one of {', '.join(map(repr, POLICIES))}, got {budget_policy!r}"
            )
        self.budget_usd = budget_usd
        self.budget_policy: BudgetPolicy = budget_policy
        if budget_usd is not None:  # its first hold counts a prompt: load the tokenizer now, not then
            from ..tokens import preload

            preload()
        self._outputs = OutputEstimate()
        self._prices = prices
        self._learner = CalibrationLearner(calibration)
        self._lock = threading.Lock()
        self._book = Book()  # the totals
        self._reserved: dict[int, float] = {}
        self._next_id = 0
        self._later: deque[Callable[[], None]] = deque()
        self._deferred = Deferred()  # background responses still running (see ``defer``)
        self.started_at = time.time()  # the start of the period an export() covers

    @property
    def prices(self) -> PriceTable:
        if self._prices is None:
            self._prices = default_table()
        return self._prices

    def reserve(self, body: Mapping[str, Any], charging: Charging = CHAT) -> Reservation:
        """Hold the cost of a request to ``charging``'s endpoint before it is sent.

        A generation holds its prompt (counted offline, at the high end of the count's range) plus
        its output allowance under the budget policy (see :mod:`holyclient.pricing._hold`); an
        embedding holds its prompt. Cached-input discounts are not assumed.

        Raises:
            BudgetExceededError: a budget is set and the hold exceeds what is left (spent and held
                amounts deducted), or the model or endpoint has no price so the budget cannot be checked.
        """
        self._apply_later()
        model = str(body.get("model") or "")
        info = self.prices.get(model) if charging.holds != "unpriced" else None
        if info is None:
            if self.budget_usd is not None:
                raise unpriced(charging, model, self.prices, self.remaining_usd)
            return self._hold(model, None, 0.0, priced=False)
        prompt, output, why, stand_in = self._hold_of(body, charging, info)
        worst = estimate_cost(model, prompt, output, table=self.prices).cost_usd
        learns = charging.generates and teaches(body)
        with self._lock:
            if self.budget_usd is None:
                return self._hold_locked(model, prompt, worst, priced=True, stand_in=stand_in, learns=learns)
            remaining = self.budget_usd - self._book.spent - sum(self._reserved.values())
            if worst > remaining:
                raise over_budget(worst, prompt, output, info.name, why, remaining, self.budget_usd)
            return self._hold_locked(model, prompt, worst, priced=True, stand_in=stand_in, learns=learns)

    def _hold_of(
        self, body: Mapping[str, Any], charging: Charging, info: Any, prompt: int | None = None
    ) -> tuple[int, int, str, StandIn | None]:
        """``(prompt tokens, output tokens, why that output, stand-in)`` a request holds (its prompt
        counted now, unless its count is given)."""
        return request_hold(body, charging, info, self._learner, self.budget_policy, self._outputs, prompt)

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
        learns: bool = False,
    ) -> Reservation:
        self._next_id += 1
        self._reserved[self._next_id] = amount
        return Reservation(self._next_id, model, prompt, amount, priced, stand_in, learns)

    def settle(
        self,
        reservation: Reservation,
        usage: Mapping[str, Any] | Any | None,
        *,
        approximate: bool = False,
        model: str | None = None,
    ) -> None:
        """Replace a reservation by the cost of the real ``usage``; with None, just release it.

        Settling the same reservation twice records nothing the second time. A usage that costs more
        than was held is charged in full, and the excess is reported (``UsageSnapshot.overrun_usd``).

        Args:
            approximate: the usage was counted locally, not reported by the server.
            model: the model that answered (a dated snapshot of the alias asked, say): the totals are
                kept under it, as they are for a request that held nothing (default: the one asked).
        """
        with self._lock:
            held = self._reserved.pop(reservation.id, None)
            if held is None:
                return
            if usage is not None:
                cost = self._record_locked(
                    model or reservation.model, usage, approximate, reservation.model, reservation.teaches
                )
                if cost is not None and cost > held + 1e-12 and reservation.priced:
                    self._book.overrun += cost - held
                    self._book.overruns += 1
                if not approximate and reservation.stand_in is not None:
                    self._learner.learn(reservation.stand_in, usage)
        if self._book.notes.pending:
            self._book.notes.flush()

    def charge(
        self,
        model: str,
        usage: Mapping[str, Any] | Any,
        charging: Charging = CHAT,
        body: Mapping[str, Any] | None = None,
        *,
        approximate: bool = False,
    ) -> None:
        """Charge the usage an answer reported for a request that held nothing (no budget was set);
        a model counted with a stand-in tokenizer learns its correction from it (``body`` is counted
        then)."""
        stand_in = None
        if not approximate and body is not None and charging.counts and self._learner.learns(body):
            info = self.prices.get(model)
            if info is not None:
                from ..tokens import without_waiting

                try:
                    with without_waiting():  # on the request path: never wait for a tokenizer
                        stand_in = self._learner.count(body, info.name, charging.counts)[1]
                except (TypeError, ValueError):  # a body the counter cannot read: nothing to learn
                    stand_in = None
        asked = body.get("model") if body is not None else None
        learns = charging.generates and teaches(body)
        with self._lock:
            self._record_locked(model, usage, approximate, asked, learns)
            if stand_in is not None:
                self._learner.learn(stand_in, usage)
        if self._book.notes.pending:
            self._book.notes.flush()

    def settle_early(
        self,
        reservation: Reservation | None,
        model: str,
        usage: Mapping[str, Any] | None,
        charging: Charging,
        body: Mapping[str, Any],
    ) -> None:
        """Settle a stream left before its end (see :meth:`~._ledger.Ledger.left_early`): ``usage`` (what
        was read, counted locally) is charged as a lower bound, and what the request held beyond it --
        without a budget, what it would have held -- as uncertain spend.

        Args:
            usage: the tokens read (None: they could not be counted; the whole hold is then uncertain).
        """
        would_hold = None
        if reservation is None and usage is not None:
            would_hold = self._would_hold(charging, body, model, usage.get("prompt_tokens"))
        with self._lock:
            held, priced = would_hold, would_hold is not None
            if reservation is not None:
                held, priced = self._reserved.pop(reservation.id, None), reservation.priced
                if held is None:
                    return
            if usage is None:
                prompt = reservation.prompt_tokens if reservation is not None else None
                self._book.uncertain(model, prompt, held or 0.0, priced and held is not None)
                return
            cost = self._record_locked(model, usage, True, str(body.get("model") or "") or None, False)
            self._book.model(model).early += 1
            if priced and held is not None and cost is not None:
                if cost > held + 1e-12:
                    self._book.overrun += cost - held
                    self._book.overruns += 1
                self._book.beyond(model, max(held - cost, 0.0))
        if self._book.notes.pending:
            self._book.notes.flush()

    def _would_hold(
        self, charging: Charging, body: Mapping[str, Any], model: str, prompt: Any
    ) -> float | None:
        """What a request of ``prompt`` tokens would have held (None: unpriced); an answer under a name
        the table does not know holds as the model asked."""
        info = None
        if charging.holds != "unpriced":
            info = self.prices.get(model) or self.prices.get(str(body.get("model") or ""))
        if info is None or type(prompt) is not int:
            return None
        _, output, _, _ = self._hold_of(body, charging, info, prompt)
        return estimate_cost(info.name, prompt, output, table=self.prices).cost_usd

    def settle_uncertain(self, reservation: Reservation) -> None:
        """Keep a reservation as spent: the request's outcome is unknown, so assume what it held.

        Its prompt tokens (counted offline) are recorded; its completion tokens are unknown.
        """
        with self._lock:
            amount = self._reserved.pop(reservation.id, None)
            if amount is None:
                return
            self._book.uncertain(reservation.model, reservation.prompt_tokens, amount, reservation.priced)

    def charge_uncertain(self, charging: Charging, body: Mapping[str, Any], model: str | None = None) -> None:
        """Record as uncertain spend what a request that held nothing (no budget) would have held: its
        outcome is unknown. Counted now, so a client without a budget pays for counting only then.

        Args:
            model: the name its totals are kept under (default: the body's ``model``).
        """
        model = model or str(body.get("model") or "")
        info = self.prices.get(model) if charging.holds != "unpriced" else None
        if info is None:
            with self._lock:
                self._book.uncertain(model, None, 0.0, priced=False)
            return
        from ..tokens import without_waiting

        try:
            with without_waiting():  # after a failure on the request path: never wait for a tokenizer
                prompt, output, _, _ = self._hold_of(body, charging, info)
        except (TypeError, ValueError):  # a body the counter cannot read: the request still counts
            with self._lock:
                self._book.uncertain(model, None, 0.0, priced=False)
            return
        amount = estimate_cost(model, prompt, output, table=self.prices).cost_usd
        with self._lock:
            self._book.uncertain(model, prompt, amount, priced=True)

    def defer(self, response_id: str, ledger: Kept) -> None:
        """Keep ``ledger`` (a background response still running), its hold held, until :meth:`collect`."""
        self._deferred.keep(response_id, ledger)

    def collect(self, response_id: str) -> Any:
        """The ledger kept for a background response (removed: it is charged once), or None."""
        return self._deferred.take(response_id)

    def count_unpriced(self, model: str) -> None:
        """Count an answer of an unpriced endpoint that reported no usage (in ``unpriced_models``)."""
        with self._lock:
            self._book.unpriced(model)

    def settle_later(self, settle: Callable[[], None]) -> None:
        """Queue a settlement to run at the next reading of the tracker; safe in a finaliser (no lock)."""
        self._later.append(settle)

    def warn(self, text: str) -> None:
        """Note something that went wrong beside the calls (shown in :meth:`snapshot`'s ``warnings``)."""
        with self._lock:
            self._book.notes.warn(text)

    def _apply_later(self) -> None:
        while self._later:
            try:
                settle = self._later.popleft()
            except IndexError:  # another thread took the last one
                return
            settle()

    def record(self, model: str, usage: Mapping[str, Any] | Any, *, approximate: bool = False) -> None:
        """Add a response's ``usage`` for callers that made no reservation (it teaches no answer length)."""
        with self._lock:
            self._record_locked(model, usage, approximate, None, False)
        if self._book.notes.pending:
            self._book.notes.flush()

    def _record_locked(
        self, model: str, usage: Any, approximate: bool, asked: str | None, learns: bool
    ) -> float | None:
        """Add ``usage`` to the model's totals: see :meth:`~._book.Book.record` (under the lock)."""
        return self._book.record(model, usage, approximate, self.prices, self._outputs, asked, learns)

    @property
    def total_cost_usd(self) -> float:
        self._apply_later()
        with self._lock:
            return self._book.spent

    @property
    def remaining_usd(self) -> float | None:
        """What is left of the budget after spent and held amounts (None without a budget)."""
        if self.budget_usd is None:
            return None
        self._apply_later()
        with self._lock:
            return max(self.budget_usd - self._book.spent - sum(self._reserved.values()), 0.0)

    def snapshot(self) -> UsageSnapshot:
        """A consistent copy of the totals."""
        self._apply_later()
        with self._lock:
            return self._book.snapshot(
                sum(self._reserved.values()), self.budget_usd, self._deferred.count(self)
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
