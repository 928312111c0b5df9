"""The router's decisions, shared by :class:`~holyclient.Router` and :class:`~holyclient.AsyncRouter`. No I/O.

:class:`RouterCore` holds what all copies of a router share (targets, breakers, counters, mirror);
:class:`Routing` walks one request through its failover order. The sync and async routers only send::

    routing = core.start(options)
    while True:
        target, prepared = routing.next()      # raises the last error when no target is left
        try:
            result = send(target, prepared)
        except BaseException as exc:
            routing.failed(exc)                # re-raises unless failing over is safe
            continue
        return routing.succeeded(result)
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .._core import percentile
from .._exceptions import APIConnectionError, APIResponseValidationError, APIStatusError
from .._send import unwrap
from ._breaker import CircuitBreaker
from ._select import (
    FAILOVER_STATUSES,
    StickyKey,
    context_overflow,
    failover_order,
    failover_safe,
    maybe_sent,
    sticky_value,
    target_budget_spent,
)
from ._stats import Counters, TargetStats
from ._target import Target, all_targets

if TYPE_CHECKING:
    from .._core import RequestOptions
    from ..pricing import UsageSnapshot
    from ._mirror import Mirror


def mark(result: Any, name: str) -> None:
    """Say on ``result`` which target served it (``result._target``); plain data cannot carry it."""
    with contextlib.suppress(AttributeError, TypeError):  # str, bytes, dict and list results
        result._target = name
    parsed = unwrap(result)  # a raw response: mark what parse() returns too
    if parsed is not result and parsed is not None:
        mark(parsed, name)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, APIStatusError):
        return f"{exc.status_code} {exc.code}" if exc.code else str(exc.status_code)
    return type(exc).__name__


def _no_window(model: str) -> int | None:
    return None


class RouterCore:
    """Targets, breakers, counters, sticky keys and the mirror of one router (shared by its copies)."""

    def __init__(
        self,
        targets: Sequence[Target],
        *,
        shadow: Target | None,
        sticky_key: StickyKey,
        breaker_threshold: int,
        breaker_cooldown: float,
        clock: Callable[[], float],
        rng: random.Random | None,
        mirror: Mirror | None,
        breaker_min_cooldown: float | None = None,
        window: Callable[[str], int | None] = _no_window,
        stream_recovery: str = "continue",
    ) -> None:
        #: What a stream that breaks part-way becomes (see :mod:`._recovery`; checked by the router).
        self.stream_recovery = stream_recovery
        self.weighted = list(targets)
        self.targets = all_targets(self.weighted, shadow)
        if not any(t.weight > 0 for t in self.weighted):
            from .._exceptions import ConfigurationError

            raise ConfigurationError("Router needs at least one target with a weight above 0")
        self.by_name = {t.name: t for t in self.targets}
        self.breakers = {
            t.name: CircuitBreaker(
                breaker_threshold, breaker_cooldown, clock, min_cooldown=breaker_min_cooldown
            )
            for t in self.targets
        }
        #: The context window of a model by the price table (None: unknown), for context-length refusals.
        self.window = window
        self.counters = {t.name: Counters() for t in self.targets}
        self.sticky_key = sticky_key
        self.rng = rng or random.Random()
        self.mirror = mirror
        self.timer = time.perf_counter

    def __repr__(self) -> str:
        return ", ".join(f"{t.name} (weight {t.weight:g})" for t in self.weighted)

    def start(self, options: RequestOptions) -> Routing:
        return Routing(self, options)

    def set_weight(self, name: str, weight: float) -> None:
        target = self.by_name.get(name)
        if target is None:
            raise KeyError(f"no router target named {name!r} (targets: {', '.join(self.by_name)})")
        if not weight >= 0:
            raise ValueError(f"weight must be 0 or more, got {weight!r}")
        if (
            weight == 0
            and target in self.weighted
            and not any(t.weight > 0 for t in self.weighted if t is not target)
        ):
            raise ValueError("draining the last target with a weight above 0 would leave nothing to route to")
        target.weight = float(weight)

    def stats(self, usage: Callable[[str], UsageSnapshot]) -> dict[str, TargetStats]:
        result = {}
        mirror = self.mirror
        for target in self.targets:
            c, breaker, snap = self.counters[target.name], self.breakers[target.name], usage(target.name)
            latencies = c.latencies()
            models = snap.models.values()
            is_shadow = mirror is not None and mirror.shadow is target
            result[target.name] = TargetStats(
                requests=c.requests,
                successes=c.successes,
                errors=c.errors,
                failovers=c.failovers,
                latency_p50_s=percentile(latencies, 50),
                latency_p95_s=percentile(latencies, 95),
                breaker=breaker.state,
                breaker_opened=breaker.opened,
                weight=target.weight,
                prompt_tokens=sum(m.prompt_tokens for m in models),
                completion_tokens=sum(m.completion_tokens for m in models),
                cost_usd=None if snap.unpriced_models else snap.total_cost_usd,
                streams_broken=c.streams_broken,
                malformed_events=c.malformed_events,
                **(_mirror_counts(mirror) if is_shadow and mirror is not None else {}),
            )
        return result


def _mirror_counts(mirror: Mirror) -> dict[str, int]:
    """The shadow target's mirror counters, for :class:`TargetStats`."""
    return {
        "mirrored": mirror.kept,
        "mirror_dropped": mirror.dropped,
        "mirror_lost": mirror.lost,
        "mirror_refused": mirror.refused,
    }


class Routing:
    """One request's way through its failover order."""

    def __init__(self, core: RouterCore, options: RequestOptions) -> None:
        self._core = core
        self._options = options
        key = sticky_value(core.sticky_key, options.body)
        self._order = failover_order(core.weighted, core.breakers, key, core.rng)
        self._at = 0  # the next target of ``_order`` to try
        self._tried: list[str] = []
        self._last: BaseException | None = None
        self.target: Target | None = None
        self.latency = 0.0
        self._started = 0.0
        self._probe = False
        self._opened = 0  # the target's breaker's ``opened`` when this request was let through
        #: After a context-length refusal: the window a target's model must exceed, and the models refused.
        self._need_window: int | None = None
        self._too_long: set[str] = set()
        self._again = False  # the current target is offered once more (a refused prefill: restart there)
        #: What the current target was sent.
        self.prepared: RequestOptions = options

    def _fits(self, target: Target) -> bool:
        """Whether ``target`` may take the request after a context-length refusal: its model's window is
        known and larger than the one refused. A model refused is not asked again, unless the target
        declares a window of its own for it (another deployment of the model)."""
        if self._need_window is None:
            return True
        model = target.model_of(self._options)
        if model in self._too_long and target.context_window is None:
            return False
        window = target.window(model, self._core.window)
        return window is not None and window > self._need_window

    def more(self) -> bool:
        """Whether a target is left to take the request after the current one (its breaker closed or
        due a probe, and its context window large enough)."""
        breakers = self._core.breakers
        return any(breakers[t.name].available() and self._fits(t) for t in self._order[self._at :])

    def next(self) -> tuple[Target, RequestOptions]:
        """The next target to try and the request prepared for it: a probe of a half-open breaker is one
        attempt (no retries), and a request with another target behind it is marked ``failover`` (a
        silent target is not waited for twice).

        Raises:
            APIError: the last target's error when none is left, or an ``APIConnectionError`` when
                every target's breaker is open.
        """
        core = self._core
        while self._at < len(self._order):
            target = self._order[self._at]
            self._at += 1
            if not self._fits(target):
                self._tried.append(f"{target.name} (context window too small)")
                continue
            breaker = core.breakers[target.name]
            allowed = breaker.allow()
            if allowed is None:
                self._tried.append(f"{target.name} (circuit open)")
                continue
            self._probe = allowed == "probe"
            self._opened = breaker.opened
            if self.target is not None and not self._again:  # the previous target failed safely: a failover
                core.counters[self.target.name].add("failovers")
            self._again = False
            self.target = target
            core.counters[target.name].sent()
            self._started = core.timer()
            prepared = target.prepare(self._options)
            if self._probe:  # one attempt says whether the target is back; its retries would only delay it
                prepared = prepared.replaced(max_retries=0)
            if self.more():
                prepared = prepared.replaced(failover=True)
            self.prepared = prepared
            return target, prepared
        error = self._last or APIConnectionError(
            "No router target is available: every circuit breaker is open."
        )
        error.add_note(f"holyclient.Router tried: {', '.join(self._tried)}")
        raise error

    def failed(self, exc: BaseException) -> None:
        """Record the current target's failure; re-raise ``exc`` unless another target may be tried."""
        assert self.target is not None
        name = self.target.name
        self.latency = self._core.timer() - self._started
        breaker = self._core.breakers[name]
        unwell = isinstance(exc, Exception) and failover_safe(exc, if_sent=True)  # the target's fault
        safe = unwell and failover_safe(exc, if_sent=self.target.failover_if_sent)  # and may go elsewhere
        window = context_overflow(exc)
        if window is not None:  # too long for this model: a model with a larger window may take it
            model = self.target.model_of(self._options)
            if model is not None:
                self._too_long.add(model)
                window = window or self.target.window(model, self._core.window) or 0
            self._need_window = max(self._need_window or 0, window)
            safe = self.more()
        if target_budget_spent(exc):
            if self._probe:
                breaker.release()  # nothing was sent: no verdict on the target's health
        elif unwell:
            breaker.failure(self._opened)
        elif isinstance(exc, APIStatusError):
            breaker.success()  # the target answered: the request was at fault
        elif self._probe:
            breaker.release()  # no verdict on the target (budget refused, interrupted ...): probe again
        self._core.counters[name].done(self.latency, ok=False)
        self._tried.append(f"{name} ({_reason(exc)})")
        mark(exc, name)
        if not safe:
            if window is not None:
                exc.add_note(
                    f"holyclient.Router: {name} cannot fit the request, and no target left has a model "
                    f"with a context window larger than {self._need_window or 'its'} tokens "
                    "(Target(context_window=...) declares one)."
                )
            elif isinstance(exc, APIStatusError):
                exc.add_note(f"holyclient.Router: {name} refused the request; not retried elsewhere.")
            elif maybe_sent(exc):
                exc.add_note(
                    f"holyclient.Router: {name} may have received the request; not sent elsewhere, so it "
                    "cannot be paid twice (Target(failover_if_sent=True) allows it)."
                )
            raise exc
        # An attempt that may have been billed was charged as uncertain spend by the target's own
        # pipeline (its ledger, by the endpoint's declaration): failing over adds nothing here.
        self._last = exc

    def broke(self, exc: BaseException) -> None:
        """Record that the current target's stream broke part-way with ``exc`` (after it was counted a
        success at its opening): its breaker hears of a failure that is the target's."""
        assert self.target is not None
        name = self.target.name
        if failover_safe(exc, if_sent=True) or isinstance(
            exc, APIResponseValidationError
        ):  # the target's fault
            self._core.breakers[name].failure(self._opened)
        self._core.counters[name].add("streams_broken")
        self._tried.append(f"{name} (broke part-way: {_reason(exc)})")
        mark(exc, name)

    def malformed(self, count: int) -> None:
        """The current target's stream skipped ``count`` events that were not valid JSON."""
        assert self.target is not None
        self._core.counters[self.target.name].add("malformed_events", count)

    def refused(self, exc: BaseException, why: str) -> None:
        """The current target answered ``exc`` to a variant of the request (a continuation's prefill): it
        is healthy, and is offered once more for the plain request."""
        assert self.target is not None
        name = self.target.name
        self.latency = self._core.timer() - self._started
        self._core.breakers[name].success()
        self._core.counters[name].done(self.latency, ok=False)
        self._tried.append(f"{name} ({why}: {_reason(exc)})")
        self._at -= 1
        self._again = True

    def answered(self, status: int) -> None:
        """Record a single attempt's answer (:class:`~._sender.RoutedSender`): its status is the caller's to handle, no failover."""
        assert self.target is not None
        name = self.target.name
        self.latency = self._core.timer() - self._started
        unwell = status >= 500 or status in FAILOVER_STATUSES
        if unwell:
            self._core.breakers[name].failure(self._opened)
        else:
            self._core.breakers[name].success()
        self._core.counters[name].done(self.latency, ok=status < 400)
        self._tried.append(f"{name} ({status})")

    def succeeded(self, result: Any) -> Any:
        assert self.target is not None
        name = self.target.name
        self.latency = self._core.timer() - self._started
        self._core.breakers[name].success()
        self._core.counters[name].done(self.latency, ok=True)
        mark(result, name)
        return result
