"""``Router`` and ``AsyncRouter``: clients whose calls and attempts pick a target.

A router *is* a :class:`~holyclient.Client` (or :class:`~holyclient.AsyncClient`): the resources
(``router.chat.completions.create(...)`` and every other endpoint) are the client's, unchanged. It plugs
into the send path through its two named extension points, overriding no private method of the client:
its **caller** (``_caller_factory``, :class:`~holyclient.router._caller.RoutedCaller`) walks each call
through the failover order of :mod:`._core` and hands it to the chosen target's own client, which holds
that target's key, base URL, retries and usage; its **sender** (``_sender_factory``,
:class:`~holyclient.router._sender.RoutedSender`) does the same for single attempts (binary downloads,
the batch runner), handing each to a target's own send pipeline. A key can therefore only ever travel
to its own target's host.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import TYPE_CHECKING, Any

from .._client import AsyncClient, Client
from .._exceptions import BudgetExceededError
from ._caller import AsyncRoutedCaller, RoutedCaller
from ._sender import RoutedSender
from ._shell import RouterShell

if TYPE_CHECKING:
    from .._core import RequestOptions

#: The longest ``close()`` waits for mirror copies still in flight.
MIRROR_CLOSE_WAIT = 5.0


class Router(RouterShell, Client):
    """A :class:`~holyclient.Client` that spreads requests over targets, with failover and mirroring.

    Every response says which target served it in ``._target`` (the target's name); see
    docs/guides/rolling-out.md.

    Args:
        targets: the :class:`Target` list: weighted split between them (``weight``), each with its own
            ordered ``fallbacks``; a request that fails safely goes on to its target's fallbacks, then
            to the other weighted targets by weight.
        sticky_key: keep requests on one target while it is healthy: the name of a body field
            (``"user"``, ``"prompt_cache_key"``) or a callable ``body -> key`` (hashed, never stored).
        breaker_threshold: consecutive failures that take a target out of rotation.
        breaker_cooldown: the longest a target stays out of rotation before one probe request (a single
            attempt) is let through: a recovered target gets traffic back within this many seconds.
        breaker_min_cooldown: the shortest (the first after a breaker opens; default a quarter of
            ``breaker_cooldown``): the cool-down doubles with each failed probe, halves with each
            successful one.
        stream_recovery: what a stream that breaks after it was handed over becomes (cut, stalled, an
            error event that is the target's fault, a body that ended without ``[DONE]``):
            ``"continue"`` (default) continues it on the next target as one stream where that target's
            model takes an assistant prefill (``Target(prefill=...)`` or the capabilities table), and
            otherwise restarts the answer there, raising :class:`~holyclient.StreamRestartError` with
            the new stream; ``"restart"`` always restarts; ``"hold"`` reads each stream to its end
            before handing over its first chunk, so a break is recovered unseen; ``"off"`` raises the
            error. See docs/guides/rolling-out.md, "Streams that break".
        clock: the breakers' clock (tests pass a fake).
        rng: the random source of the weighted split and the mirror's sampling.
        shadow: the target that receives mirrored copies.
        mirror: the fraction of requests also sent to ``shadow`` in the background. Each copy is paid
            like any request: charged to the shadow (``stats()[shadow].cost_usd``) and the router's
            total, and refused before sending when the budgets cannot cover it (``mirror_refused``).
        mirror_to: the JSONL file the (old, new) pairs are appended to. When it cannot be written the
            router warns once (``usage.snapshot().warnings``) and stops mirroring.
        mirror_concurrency: the most mirrored copies in flight; more are dropped.
        budget_usd: the budget of all targets together, shadow copies included (each ``Target`` may
            have its own as well: give the shadow one to cap what mirroring spends).
        budget_policy: as for :class:`~holyclient.Client`: what a request without ``max_tokens`` holds.
        record_to: as for :class:`~holyclient.Client`: the caller's requests, before any model map.
        record_rate: as for :class:`~holyclient.Client`.
        timeout: passed to every target's client (a ``Target``'s own options win), as the next five.
        first_event_timeout: how long a target's stream may take to its first event before the call
            goes to the next target (nothing reached the caller yet); per target:
            ``Target(..., first_event_timeout=...)``. Default as for :class:`~holyclient.Client`.
        stream_idle_timeout: how long a target's stream may go silent between events before
            ``stream_recovery`` takes it over on another target.
        max_retries: each target's retries before the router fails over.
        default_headers: headers sent to every target.
        max_retry_after: longest ``Retry-After`` a target's client honours.

    Raises:
        ConfigurationError: no target, no weight above 0, two targets with one name, a target without
            a key, or ``mirror`` without ``shadow`` and ``mirror_to``.
    """

    _caller_factory = RoutedCaller
    _sender_factory = RoutedSender

    _target_client = Client

    def _init_mirrors(self) -> None:
        self._mirror_threads: list[threading.Thread] = []
        self._threads_lock = threading.Lock()

    def _start_mirror(
        self, custom_id: str, options: RequestOptions, cast_to: type[Any], old: dict[str, Any]
    ) -> None:
        thread = threading.Thread(
            target=self._shadow,
            args=(custom_id, options, cast_to, old),
            name="holyclient-mirror",
            daemon=True,
        )
        with self._threads_lock:
            self._mirror_threads[:] = [t for t in self._mirror_threads if t.is_alive()]  # shared by copies
            self._mirror_threads.append(thread)
        thread.start()

    def _shadow(
        self, custom_id: str, options: RequestOptions, cast_to: type[Any], old: dict[str, Any]
    ) -> None:
        """One copy on the shadow's client (its key, budget and usage), parsed as the caller's answer
        was so that it is charged as the caller's was; never raises (a thread's error is nobody's)."""
        mirror = self._core.mirror
        assert mirror is not None
        try:
            if mirror.skip():  # mirroring stopped since the copy was drawn: do not pay for it
                return
            shadow = mirror.shadow
            started = time.perf_counter()
            try:
                result = self._clients[shadow.name].request(cast_to, shadow.prepare(options))
            except BudgetExceededError as refused:  # nothing was sent: no pair to compare
                mirror.refuse(refused)
            except Exception as exc:  # the shadow's failure is data for the report, not the caller's problem
                mirror.answered(custom_id, options, old, time.perf_counter() - started, error=exc)
            else:
                mirror.answered(custom_id, options, old, time.perf_counter() - started, result)
        finally:
            mirror.release()

    def close(self) -> None:
        """Wait (up to 5 s) for mirrored copies in flight, then close every target's client."""
        deadline = time.monotonic() + MIRROR_CLOSE_WAIT
        with self._threads_lock:
            threads = list(self._mirror_threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        if self._owns_clients:
            for client in self._clients.values():
                client.close()

    def __enter__(self) -> Router:
        return self


class AsyncRouter(RouterShell, AsyncClient):
    """An :class:`~holyclient.AsyncClient` that spreads requests over targets; the arguments of :class:`Router`.

    Mirrored copies run as tasks the caller never awaits; ``await router.close()`` waits for them (5 s at most).
    """

    _caller_factory = AsyncRoutedCaller
    _sender_factory = RoutedSender

    _target_client = AsyncClient

    def _init_mirrors(self) -> None:
        self._mirror_tasks: set[asyncio.Task[None]] = set()

    def _start_mirror(
        self, custom_id: str, options: RequestOptions, cast_to: type[Any], old: dict[str, Any]
    ) -> None:
        task = asyncio.create_task(self._shadow(custom_id, options, cast_to, old))
        self._mirror_tasks.add(task)
        task.add_done_callback(self._mirror_tasks.discard)

    async def _shadow(
        self, custom_id: str, options: RequestOptions, cast_to: type[Any], old: dict[str, Any]
    ) -> None:
        """Async twin of :meth:`Router._shadow`: never raises (nobody awaits the task)."""
        mirror = self._core.mirror
        assert mirror is not None
        try:
            if mirror.skip():
                return
            shadow = mirror.shadow
            started = time.perf_counter()
            try:
                result = await self._clients[shadow.name].request(cast_to, shadow.prepare(options))
            except BudgetExceededError as refused:
                mirror.refuse(refused)
            except Exception as exc:  # the shadow's failure is data for the report, not the caller's problem
                mirror.answered(custom_id, options, old, time.perf_counter() - started, error=exc)
            else:
                mirror.answered(custom_id, options, old, time.perf_counter() - started, result)
        finally:
            mirror.release()

    async def close(self) -> None:
        """Wait (up to 5 s) for mirrored copies in flight, cancel the rest, then close every target's client."""
        if self._mirror_tasks:
            _, pending = await asyncio.wait(set(self._mirror_tasks), timeout=MIRROR_CLOSE_WAIT)
            for task in pending:
                task.cancel()
        if self._owns_clients:
            for client in self._clients.values():
                await client.close()

    async def __aenter__(self) -> AsyncRouter:
        return self
