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
from .._exceptions import APIConnectionError, APIStatusError
from .._send import unwrap
from ._breaker import CircuitBreaker
from ._select import (
    FAILOVER_STATUSES,
    StickyKey,
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
        return str(exc.status_code)
    return type(exc).__name__


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
    ) -> None:
        self.weighted = list(targets)
        self.targets = all_targets(self.weighted, shadow)
        if not any(t.weight > 0 for t in self.weighted):
            from .._exceptions import ConfigurationError

            raise ConfigurationError("Router needs at least one target with a weight above 0")
        self.by_name = {t.name: t for t in self.targets}
        self.breakers = {
            t.name: CircuitBreaker(breaker_threshold, breaker_cooldown, clock) for t in self.targets
        }
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
        self._order = iter(failover_order(core.weighted, core.breakers, key, core.rng))
        self._tried: list[str] = []
        self._last: BaseException | None = None
        self.target: Target | None = None
        self.latency = 0.0
        self._started = 0.0
        self._probe = False
        self._opened = 0  # the target's breaker's ``opened`` when this request was let through

    def next(self) -> tuple[Target, RequestOptions]:
        """The next target to try and the request prepared for it.

        Raises:
            APIError: the last target's error when none is left, or an ``APIConnectionError`` when
                every target's breaker is open.
        """
        core = self._core
        for target in self._order:
            breaker = core.breakers[target.name]
            allowed = breaker.allow()
            if allowed is None:
                self._tried.append(f"{target.name} (circuit open)")
                continue
            self._probe = allowed == "probe"
            self._opened = breaker.opened
            if self.target is not None:  # the previous target failed safely: this is a failover
                core.counters[self.target.name].add("failovers")
            self.target = target
            core.counters[target.name].sent()
            self._started = core.timer()
            return target, target.prepare(self._options)
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
            if isinstance(exc, APIStatusError):
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
