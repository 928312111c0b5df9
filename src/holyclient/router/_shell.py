"""What both routers add to their client class: construction, copies, stats, usage. No I/O.

A router keeps one client per target (each with that target's key, base URL and options) and is itself
a client built without a key (``api_key=NO_KEY``): it has a client's settings, budget, usage and
recorder, but no connection pool, and never builds a request.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Self

from .._constants import DEFAULT_MAX_RETRIES
from .._core import NOT_GIVEN, omitted
from .._exceptions import ConfigurationError
from .._send import NO_KEY, share_usage
from ._core import RouterCore
from ._mirror import Mirror
from ._recovery import RECOVERY_MODES, RecoveryMode
from ._select import StickyKey
from ._stats import TargetStats
from ._target import Target
from ._usage import ChainedTracker

if TYPE_CHECKING:
    from .._core import RequestOptions
    from ..pricing import BudgetPolicy, UsageTracker

_NOT_FOR_ROUTERS = ("api_key", "base_url", "organization", "project", "allow_insecure_http")


class RouterShell:
    """What both routers add to their client class: construction, copies, stats. No I/O."""

    _core: RouterCore
    _clients: dict[str, Any]
    #: The targets whose clients hold a budget (their own, or the router's): they reserve before sending.

    #: The class of each target's client: ``Client`` for a ``Router``, ``AsyncClient`` for an ``AsyncRouter``.
    _target_client: type[Any]
    _owns_clients: bool

    def __init__(
        self,
        targets: Sequence[Target],
        *,
        sticky_key: StickyKey = None,
        breaker_threshold: int = 5,
        breaker_cooldown: float = 30.0,
        breaker_min_cooldown: float | None = None,
        stream_recovery: RecoveryMode = "continue",
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        shadow: Target | None = None,
        mirror: float = 0.0,
        mirror_to: str | os.PathLike[str] | None = None,
        mirror_concurrency: int = 4,
        budget_usd: float | None = None,
        budget_policy: BudgetPolicy = "expected",
        record_to: str | os.PathLike[str] | None = None,
        record_rate: float = 1.0,
        timeout: Any = None,
        first_event_timeout: float | None = NOT_GIVEN,
        stream_idle_timeout: float | None = NOT_GIVEN,
        max_retries: int | None = None,
        default_headers: Mapping[str, str] | None = None,
        max_retry_after: float | None = None,
    ) -> None:
        self._owns_clients = True
        self._init_mirrors()
        self._setup(
            targets,
            self._target_client,
            sticky_key=sticky_key,
            breaker_threshold=breaker_threshold,
            breaker_cooldown=breaker_cooldown,
            breaker_min_cooldown=breaker_min_cooldown,
            stream_recovery=stream_recovery,
            clock=clock,
            rng=rng,
            shadow=shadow,
            mirror=mirror,
            mirror_to=mirror_to,
            mirror_concurrency=mirror_concurrency,
            budget_usd=budget_usd,
            budget_policy=budget_policy,
            record_to=record_to,
            record_rate=record_rate,
            client_options={
                "timeout": timeout,
                "first_event_timeout": first_event_timeout,
                "stream_idle_timeout": stream_idle_timeout,
                "max_retries": max_retries,
                "default_headers": default_headers,
                "max_retry_after": max_retry_after,
            },
        )

    def _init_mirrors(self) -> None:
        """Where the mirror's copies in flight are kept (threads or tasks)."""
        raise NotImplementedError

    def _setup(
        self,
        targets: Sequence[Target],
        client_cls: type[Any],
        *,
        sticky_key: StickyKey,
        breaker_threshold: int,
        breaker_cooldown: float,
        breaker_min_cooldown: float | None,
        stream_recovery: RecoveryMode,
        clock: Callable[[], float],
        rng: random.Random | None,
        shadow: Target | None,
        mirror: float,
        mirror_to: str | os.PathLike[str] | None,
        mirror_concurrency: int,
        budget_usd: float | None,
        budget_policy: BudgetPolicy,
        record_to: str | os.PathLike[str] | None,
        record_rate: float,
        client_options: dict[str, Any],
    ) -> None:
        if stream_recovery not in RECOVERY_MODES:
            raise ConfigurationError(
                f"stream_recovery must be one of {', '.join(map(repr, RECOVERY_MODES))}, not {stream_recovery!r}"
            )
        if mirror and (shadow is None or mirror_to is None):
            raise ConfigurationError("mirror= needs a shadow=Target(...) and a mirror_to='pairs.jsonl' file")
        mirrored = (
            Mirror(shadow, mirror, mirror_to, mirror_concurrency, rng=rng)
            if mirror and shadow and mirror_to
            else None
        )
        self._core = RouterCore(
            targets,
            shadow=shadow,
            sticky_key=sticky_key,
            breaker_threshold=breaker_threshold,
            breaker_cooldown=breaker_cooldown,
            breaker_min_cooldown=breaker_cooldown / 4
            if breaker_min_cooldown is None
            else breaker_min_cooldown,
            clock=clock,
            rng=rng,
            mirror=mirrored,
            window=self._model_window,
            stream_recovery=stream_recovery,
        )
        # The client a router is, built as every client is: without a key (each target's client holds
        # its own and sends), so without a pool. Each target's client traces its calls; the router's own
        # instruments only open what spans a whole run (a batch run's ``holyclient.batch`` parent span).
        first = self._core.weighted[0]
        retries = client_options.get("max_retries")
        self._clients = {}
        client_cls.__init__(
            self,
            api_key=NO_KEY,
            base_url=first.base_url,
            timeout=client_options.get("timeout"),
            first_event_timeout=client_options.get("first_event_timeout", NOT_GIVEN),
            stream_idle_timeout=client_options.get("stream_idle_timeout", NOT_GIVEN),
            max_retries=DEFAULT_MAX_RETRIES if retries is None else retries,
            budget_usd=budget_usd,
            budget_policy=budget_policy,
            record_to=record_to,
            record_rate=record_rate,
        )
        keys = {target.name: target.resolve_key() for target in self._core.targets}  # all, before any client
        # None is "not given" but for the stream limits, where it is "no limit" (NOT_GIVEN: not given)
        options = {
            k: v
            for k, v in client_options.items()
            if not omitted(v) and (v is not None or k in ("first_event_timeout", "stream_idle_timeout"))
        }
        total: UsageTracker = self.usage
        for target in self._core.targets:
            client = client_cls(
                api_key=keys[target.name], base_url=target.base_url, **{**options, **target.client_options}
            )
            # the target's usage and budget, charged on to the router's total (and its budget)
            share_usage(
                client,
                ChainedTracker(total, target.budget_usd),
                target.budget_usd if target.budget_usd is not None else budget_usd,
            )
            self._clients[target.name] = client
        if mirrored is not None:
            mirrored.tracker = total  # where the mirror says that it stopped, or that copies are refused

    def _model_window(self, model: str) -> int | None:
        """A model's context window by the price table (None: not in it)."""
        info = self.usage.prices.get(model)
        return info.context_window if info is not None else None

    def __repr__(self) -> str:  # targets by host, never a key
        return f"{type(self).__name__}(targets=[{self._core!r}])"

    @property
    def targets(self) -> list[Target]:
        """Every target: the weighted ones, their fallbacks and the shadow."""
        return list(self._core.targets)

    def set_weight(self, name: str, weight: float) -> None:
        """Change a target's share of traffic at once (0 drains it): a rollout step without a restart.

        Raises:
            KeyError: no target has that name.
            ValueError: a negative weight, or draining the last target with a weight above 0.
        """
        self._core.set_weight(name, weight)

    @property
    def usage(self) -> UsageTracker:
        """Tokens and cost of all targets together (each target's: ``router.target_usage(name)``)."""
        for client in self._clients.values():
            client.usage.flush()
        total: UsageTracker = super().usage  # type: ignore[misc]
        return total

    def target_usage(self, name: str) -> UsageTracker:
        """One target's usage tracker (its tokens, cost and budget)."""
        tracker: UsageTracker = self._clients[name].usage
        return tracker

    def stats(self) -> dict[str, TargetStats]:
        """Per-target counters: requests, errors, failovers, latency, breaker state, tokens and cost."""
        return self._core.stats(lambda name: self.target_usage(name).snapshot())

    def with_options(self, **changes: Any) -> Self:
        """A copy whose targets' clients all have these options (``timeout``, ``max_retries`` ...),
        sharing this router's targets, breakers, counters and usage.

        Raises:
            TypeError: an option that belongs to one target (``api_key``, ``base_url`` ...).
        """
        given = [name for name in _NOT_FOR_ROUTERS if changes.get(name, NOT_GIVEN) is not NOT_GIVEN]
        if given:
            raise TypeError(f"{', '.join(given)} belong to each Target, not to the router")
        new: Any = super().with_options(**changes)  # type: ignore[misc]  # the router as a client
        new._clients = {name: client.with_options(**changes) for name, client in self._clients.items()}
        new._owns_clients = False
        return new  # type: ignore[no-any-return]

    copy = with_options

    def _mirror_slot(self, options: RequestOptions) -> str | None:
        """A slot for a copy of ``options`` to the shadow, or None (not drawn, stopped, or all slots taken)."""
        mirror = self._core.mirror
        if mirror is None or not mirror.wants(options):
            return None
        return mirror.acquire()
