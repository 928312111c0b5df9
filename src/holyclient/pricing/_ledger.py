"""One attempt's charge, settled exactly once, by its endpoint's declaration.

Every attempt the send pipeline makes gets a :class:`Ledger` (the batch runner's and a Router
target's included; a stream's meter takes its attempt's over). The ledger is the one place where an
attempt's money is decided, always from its endpoint's :class:`~holyclient.pricing._charging.Charging`:

* with a budget, a billed endpoint's attempt holds its cost before it is sent (the tracker's
  ``reserve``); the answer's usage replaces the hold (:meth:`Ledger.settle`);
* an attempt that fails is released, unless it failed *after it was handed to the wire* in a way its
  endpoint declares "maybe billed" (a timeout, a dropped connection, a cancellation, an unreadable
  2xx): its hold is then kept as uncertain spend -- and without a budget, the hold is computed at
  that moment and recorded the same way, so a client with no budget still shows the money it may
  have spent (:meth:`Ledger.failed`);
* a stream that opens with the server's error generated nothing: released (:meth:`Ledger.refused`);
* a background response answered while it still runs (``status: "queued"``, ``usage: null``) is
  *deferred* (:meth:`Ledger.defer`): its hold stays on the tracker, under the response's id, until an
  answer of an endpoint that collects it (retrieving the response or replaying its stream, cancelling
  or deleting it) shows that it ended; it is then charged once, at the usage that answer reports, or
  as uncertain spend when it ended without usage. One that is never collected stays held (and counted
  in ``UsageSnapshot.pending_requests``): its cost is unknown, never assumed to be zero.
* a stream the caller left before its end is settled at what was read, a lower bound, and the rest of
  its hold is kept as uncertain spend (:meth:`Ledger.left_early`).

Settling twice does nothing the second time, so two layers can never charge the same attempt.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._constants import LOGGER_NAME
from .._exceptions import APIConnectionError, APIResponseValidationError, APITimeoutError
from ._billed import asked_retention, billed_usage, progress_of
from ._charging import RUNNING, UNDECLARED, Charging, FailureKind, addressed

if TYPE_CHECKING:
    from ._billed import Progress
    from ._hold import Reservation
    from ._tracker import UsageTracker

__all__ = ["UNDECLARED_TOTALS", "Ledger", "counts_tokens", "failure_kind", "holds"]

#: What the totals of requests to routes no declaration names are kept under.
UNDECLARED_TOTALS = "<undeclared endpoint>"

logger = logging.getLogger(LOGGER_NAME)


def holds(charging: Charging, budgeted: bool) -> bool:
    """Whether an attempt holds its cost before it is sent: a billed endpoint, on a client with a budget."""
    return budgeted and charging.billed


def counts_tokens(charging: Charging, body: Mapping[str, Any] | None, budgeted: bool) -> bool:
    """Whether an attempt's prompt is counted while it runs: to hold it against a budget (:func:`holds`),
    or, for a model counted with a stand-in tokenizer, to learn the count's correction from the bill
    when the answer is settled. (A failure that may have been billed is counted too, when it happens.)"""
    if not charging.counts or body is None:
        return False
    from ._learning import CalibrationLearner

    return holds(charging, budgeted) or CalibrationLearner.learns(body)


def failure_kind(exc: BaseException, sending: bool) -> FailureKind | None:
    """What kind of "maybe billed" failure ``exc`` is, or None when the server cannot have billed it.

    Args:
        sending: the request had been handed to the wire when it failed (a failure before that --
            waiting for the limiter, a key provider -- cannot have been billed).
    """
    if not sending:
        return None
    if isinstance(exc, APIConnectionError):
        if not exc.maybe_processed:  # the HTTP library said the request never left
            return None
        return "timeout" if isinstance(exc, APITimeoutError) else "dropped"
    if isinstance(exc, APIResponseValidationError):
        return "unreadable" if 200 <= (exc.status_code or 0) < 300 else None
    if not isinstance(exc, Exception):  # CancelledError, trio's Cancelled, KeyboardInterrupt
        return "cancelled"
    return None


#: Undeclared routes already logged (bounded: routes carry ids).
_LOGGED: set[str] = set()


def _undeclared(route: str) -> None:
    """Log, once per route, that a request to an undeclared route is sent unpriced (a client with a
    budget refuses it before this)."""
    if route in _LOGGED:
        return
    if len(_LOGGED) >= 256:
        _LOGGED.clear()
    _LOGGED.add(route)
    logger.warning(
        "holyclient: %s has no charging declaration: sent without a budget check and counted as an "
        "unpriced request (under %r); a client with budget_usd refuses it",
        route,
        UNDECLARED_TOTALS,
    )


class Ledger:
    """An attempt's charge on its client's tracker (see the module docstring).

    Args:
        tracker: the client's usage tracker.
        charging: the endpoint's declaration.
        body: the request body as sent (counted only if needed: a hold, a learning model, an
            uncertain outcome, a stream that ended without usage).
        reservation: the hold made before sending (None: no budget, or a free endpoint).
        path: the request's path (an endpoint that collects a background response's charge reads the
            response's id in it).
    """

    __slots__ = ("_done", "body", "charging", "reservation", "sending", "subject", "tracker")

    def __init__(
        self,
        tracker: UsageTracker,
        charging: Charging = UNDECLARED,
        body: Mapping[str, Any] | None = None,
        reservation: Reservation | None = None,
        path: str | None = None,
    ) -> None:
        self.tracker = tracker
        self.charging = charging
        self.body = body
        self.reservation = reservation
        #: Set by the pipeline when the attempt is handed to the wire: from then on its outcome may be unknown.
        self.sending = False
        #: The id the request addresses, for an endpoint that collects a background response's charge.
        self.subject = addressed(path) if path is not None and charging.background == "collects" else None
        self._done = False
        if not charging.declared and charging.billed:
            _undeclared(charging.name)

    @property
    def settled(self) -> bool:
        """Whether the attempt's charge was decided (settled, released, failed or refused)."""
        return self._done

    def settle(
        self, model: str | None, usage: Any, *, approximate: bool = False, progress: Progress | None = None
    ) -> None:
        """Charge the usage the answer reported (a mapping or a usage object; None: nothing reported,
        the hold is released). ``approximate``: counted locally, not reported by the server.

        Args:
            progress: where a Responses API answer stands (its endpoint's ``background`` rule reads it):
                a background response still running is deferred, one that ended is collected.
        """
        if self._done:
            return
        if progress is not None and self.charging.background is not None:
            if self.defer(progress, usage):
                return
            self._collect(model, usage, progress)
        self._done = True
        charging = self.charging
        if not charging.settles:
            if self.reservation is not None:
                self.tracker.settle(self.reservation, None)
            return
        if usage is not None and not isinstance(usage, Mapping) and hasattr(usage, "model_dump"):
            usage = usage.model_dump()
        if usage is not None and self.body is not None and "prompt_cache_options" in self.body:
            usage = asked_retention(usage, self.body)
        if self.reservation is not None:
            self.tracker.settle(self.reservation, usage, approximate=approximate, model=model)
            return
        if usage is not None:
            self.tracker.charge(model or self.model(), usage, charging, self.body, approximate=approximate)
        elif charging.holds == "unpriced":  # answered, at a cost holyclient cannot know: counted as such
            self.tracker.count_unpriced(self.model())

    def answered(self, answer: Any) -> None:
        """Settle from a parsed answer: its usage where the endpoint settles (else released), and, for an
        endpoint with a ``background`` rule, where the response stands (a background response still
        running is deferred, one that ended is collected)."""
        charging = self.charging
        if charging.background is not None:
            model, usage = billed_usage(answer)
            self.settle(model, usage, progress=progress_of(answer))
        elif charging.settles:
            self.settle(*billed_usage(answer))
        else:
            self.release()

    def defer(self, progress: Progress, usage: Any = None) -> bool:
        """Keep the hold of a background response still running (see the module docstring), under its
        id, until an answer collects it; whether it was deferred (False: settle it now)."""
        if (
            self._done
            or self.charging.background != "defers"
            or usage is not None
            or not progress.background
            or progress.status not in RUNNING
        ):
            return False
        if progress.id is None:  # no id to collect it by: what it will cost is unknown, kept as spent
            self.uncertain()
            return True
        self._done = True
        self.tracker.defer(progress.id, self)
        return True

    def _collect(self, model: str | None, usage: Any, progress: Progress) -> None:
        """An answer of an endpoint that collects: if it shows the background response it addresses
        ended, charge the hold kept for it (its usage, else uncertain), once."""
        if self.charging.background != "collects" or self.subject is None or progress.status in RUNNING:
            return
        kept = self.tracker.collect(self.subject)
        if kept is None:  # not one of this client's, or charged already
            return
        kept._done = False
        if usage is not None:
            kept.settle(model, usage)
        else:  # cancelled, failed or deleted without a usage: what it did before it stopped is unknown
            kept.uncertain()

    def reserve(self) -> Ledger:
        """Hold the attempt's cost against its tracker's budget (before sending; see the module
        docstring), without waiting for a tokenizer still being built (its prompt is then held at an
        upper bound). Returns the ledger.

        Raises:
            BudgetExceededError: what is left cannot cover the hold, or the budget cannot price it.
        """
        from ..tokens import without_waiting

        with without_waiting():
            self.reservation = self.tracker.reserve(self.body or {}, self.charging)
        return self

    def left_early(self, model: str | None, usage: Mapping[str, Any] | None) -> None:
        """Settle a stream the caller left before its end (its usage never came) at what was read: a
        lower bound, since the server bills what it generated until it noticed. The rest of the hold (or
        of what the request would have held, without a budget) is kept as uncertain spend."""
        if self._done:
            return
        self._done = True
        if not self.charging.settles:
            if self.reservation is not None:
                self.tracker.settle(self.reservation, None)
            return
        body = self.body if self.body is not None else {}
        self.tracker.settle_early(self.reservation, model or self.model(), usage, self.charging, body)

    def failed(self, exc: BaseException) -> None:
        """Settle an attempt that failed with ``exc``: uncertain spend when its endpoint declares the
        failure "maybe billed", else released."""
        if self._done:
            return
        kind = failure_kind(exc, self.sending)
        if kind is not None and kind in self.charging.maybe_billed:
            self.uncertain()
        else:
            self.release()

    def uncertain(self) -> None:
        """Keep the attempt's hold as spent: its outcome is unknown (computed now if none was made)."""
        if self._done:
            return
        self._done = True
        if self.reservation is not None:
            self.tracker.settle_uncertain(self.reservation)
        elif self.charging.billed:
            body = self.body if self.body is not None else {}
            self.tracker.charge_uncertain(self.charging, body, self.model())

    def release(self) -> None:
        """Give the hold back: nothing was billed."""
        if self._done:
            return
        self._done = True
        if self.reservation is not None:
            self.tracker.settle(self.reservation, None)

    refused = release

    def model(self) -> str:
        """The request's model, as totals are kept: the body's ``model``, else (a multipart upload,
        whose model is a form field) the endpoint's name in angle brackets, ``"<transcription>"``. Every
        request to an undeclared route is kept under ``"<undeclared endpoint>"``, whatever its body
        names (a fine-tuning job's ``model`` is not a generation of that model)."""
        if not self.charging.declared:
            return UNDECLARED_TOTALS
        model = self.body.get("model") if self.body is not None else None
        return model if isinstance(model, str) and model else f"<{self.charging.name}>"

    def prompt_tokens(self) -> int | None:
        """The request's prompt tokens: the hold's count, else counted now (None: nothing to count)."""
        if self.reservation is not None and self.reservation.prompt_tokens is not None:
            return self.reservation.prompt_tokens
        endpoint = self.charging.counts
        if endpoint is None or self.body is None:
            return None
        from ..tokens import count_request, without_waiting

        try:
            with without_waiting():
                return count_request(self.body, endpoint=endpoint).tokens
        except (TypeError, ValueError):  # a body we cannot count
            return None
