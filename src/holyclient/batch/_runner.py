"""The batch runner: many requests through one ``AsyncClient``, results delivered as they complete.

Any Batch API endpoint (chat completions, embeddings, completions, responses, moderations), mixed
freely; with ``pack_inputs``, embedding requests are packed into fewer requests and unpacked into one
result per request again (:mod:`._pack`).

Each attempt is sent with no client-side retry; the runner drives retries itself with the client's
:class:`~holyclient.RetryPolicy` decisions, so that a request waiting out a backoff or a ``Retry-After``
gives its concurrency slot to a request that can be sent now. Holding the slot while sleeping is what
caps a semaphore-and-gather loop far below the server's capacity.

Memory stays proportional to the concurrency: requests are pulled from the input only when fewer
than ``max_pending`` are unfinished (in flight or waiting to retry), and each result is handed to
``on_result`` and forgotten.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio

from .._core import NOT_GIVEN
from .._otel import batch_span
from ..ratelimit import Clock, Sleep, TokenEstimator
from ._concurrency import AdaptiveConcurrency, Slots
from ._feed import Feed, RequestLike
from ._guard import BatchStoppedError, StopBreaker, unwrapped
from ._pack import DEFAULT_PACK_TOKENS, PackedRequest, Packer, may_be_one_input, split, unpack
from ._process import RequestProcessor
from ._types import BatchRequest, BatchResult, BatchStats

if TYPE_CHECKING:
    from .._client import AsyncClient
    from .._send import SendStep
    from ..ratelimit import Limiter

#: Retries per request. Higher than a single call's default: a batch of thousands meets every transient
#: fault there is, and a request given up on is a hole in the output (with 20% faults, 2 retries lose
#: 0.8% of requests; 8 lose about one in two million).
DEFAULT_BATCH_MAX_RETRIES = 8
DEFAULT_CONCURRENCY = 64

ResultHandler = Callable[[BatchResult], "Awaitable[None] | None"]


class BatchRunner(RequestProcessor):
    """Runs Batch API requests (any endpoint) through an :class:`~holyclient.AsyncClient` with bounded concurrency.

    Args:
        client: the client to send with (its key, base URL, retry policy and usage tracker are used).
        concurrency: most requests in flight at once; the runner lowers it by itself while the server
            answers 429 to a large share of attempts, and raises it back when they stop.
        rpm: requests per minute not to exceed (``None`` = no limit).
        tpm: tokens per minute not to exceed; a request counts its estimated prompt tokens plus its
            ``max_tokens``, corrected with the real usage once it has been answered.
        window: the limits' window in seconds (60 for "per minute"; tests use shorter ones).
        limiter: a :class:`~holyclient.ratelimit.Limiter` instead of ``rpm``/``tpm`` -- e.g. a
            :class:`~holyclient.ratelimit.RedisLimiter` shared with other workers; default: a local
            one from ``rpm``/``tpm``, else the client's ``limiter`` (the runner admits each attempt
            itself, so the client's limiter is not also applied).
        max_retries: retries per request after its first attempt.
        stop_after: stop the run (:class:`BatchStoppedError`) after this many attempts in a row failed
            the same hopeless way -- 401, 403, 404, or no connection to the server (``None``: never).
        timeout: per-attempt timeout (seconds or ``httpx.Timeout``); default: the client's.
        max_pending: most unfinished requests (in flight or waiting to retry); default 4 x concurrency.
        adaptive: lower the concurrency on sustained 429s.
        clock: time source, injectable for tests.
        sleep: sleep function, injectable for tests.
        pack_inputs: pack embedding requests with the same model and parameters into requests of up to
            this many inputs (at most 2,048; ``None``: no packing); each still gets its own result.
        pack_tokens: most counted tokens in one packed request.
        send_steps: the :class:`~holyclient._steps.SendStep` objects every attempt passes on its way to the wire,
            outermost first (``compare`` times attempts with one); the client's own wire ends the chain
            (on aiohttp directly: :mod:`holyclient._send._direct`).
    """

    def __init__(
        self,
        client: AsyncClient,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        rpm: float | None = None,
        tpm: float | None = None,
        window: float = 60.0,
        max_retries: int = DEFAULT_BATCH_MAX_RETRIES,
        timeout: Any = NOT_GIVEN,
        max_pending: int | None = None,
        stop_after: int | None = None,
        adaptive: bool = True,
        clock: Clock = time.monotonic,
        sleep: Sleep = anyio.sleep,
        token_estimator: TokenEstimator | None = None,
        limiter: Limiter | None = None,
        pack_inputs: int | None = None,
        pack_tokens: int = DEFAULT_PACK_TOKENS,
        send_steps: Sequence[SendStep] = (),
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if max_retries < 0:
            raise ValueError("max_retries must not be negative")
        self.client = client
        self.max_retries = max_retries
        self.timeout = timeout
        self.max_pending = max(max_pending or 4 * concurrency, concurrency)
        self.adaptive = AdaptiveConcurrency(concurrency, clock=clock) if adaptive else None
        self.limiter = self._limiter(client, limiter, rpm, tpm, window, clock, sleep)
        self.requests_limit = getattr(self.limiter, "requests", None)  # the local limiter's own parts
        self.tokens_limit = getattr(self.limiter, "tokens", None)
        self.estimator = token_estimator or TokenEstimator()
        self.stats = BatchStats(concurrency=concurrency)
        self._slots = Slots(concurrency)
        self._clock = clock
        self._sleep = sleep
        self._policy = client._policy
        self.stop_after = stop_after
        self._breaker = StopBreaker(stop_after, clock)
        self._stop_scope: anyio.CancelScope | None = None
        self._steps: tuple[SendStep, ...] = tuple(send_steps)
        self._pack = (pack_inputs, pack_tokens) if pack_inputs is not None else None
        if self._pack is not None:
            Packer(*self._pack)  # refuse bad limits now, not at the first request

    @staticmethod
    def _limiter(
        client: Any, limiter: Limiter | None, rpm: float | None, tpm: float | None, *rest: Any
    ) -> Limiter | None:
        from ..ratelimit import LocalLimiter

        if limiter is not None and (rpm or tpm):
            raise ValueError("give the limits to the limiter, not rpm/tpm too")
        if limiter is None and not (rpm or tpm):
            limiter = getattr(client, "limiter", None)
        window, clock, sleep = rest
        return limiter or (
            LocalLimiter(rpm, tpm, window=window, clock=clock, sleep=sleep) if rpm or tpm else None
        )

    # --- running -----------------------------------------------------------------------------------

    async def run(
        self, requests: Iterable[RequestLike] | AsyncIterable[RequestLike], on_result: ResultHandler
    ) -> BatchStats:
        """Send every request and hand each result to ``on_result`` as it completes.

        A request that fails (after its retries) is a result with its error, never an exception.
        Cancelling the run stops sending; results already handed over stay handed over, and no
        partial result is ever delivered. An exception raised by your own code (``on_result``, the
        ``requests`` iterable) stops the run and comes out as itself, not wrapped in an ExceptionGroup.

        Returns:
            The final tallies (also on :attr:`stats` while the run goes).

        Raises:
            BatchStoppedError: ``stop_after`` attempts in a row failed the same hopeless way (bad key,
                unknown endpoint, unreachable server); results not yet delivered are left unsent.
        """
        started = self._clock()
        self._breaker = StopBreaker(self.stop_after, self._clock)
        feed = Feed(requests, self._pack)
        try:
            with batch_span(self.client, self.stats), unwrapped():  # the run's parent span, with its counts
                async with anyio.create_task_group() as tg:
                    self._stop_scope = tg.cancel_scope
                    if feed.wants_worker(self.max_pending):
                        tg.start_soon(self._work, tg, feed, on_result)
            if self._breaker.reason is None:
                await self._deliver(self._breaker.flush(), on_result)
        finally:
            self.stats.elapsed = self._clock() - started
        if self._breaker.reason is not None:
            raise BatchStoppedError(self._breaker.reason)
        return self.stats

    @asynccontextmanager
    async def results(
        self, requests: Iterable[RequestLike] | AsyncIterable[RequestLike]
    ) -> AsyncIterator[AsyncIterator[BatchResult]]:
        """``async with runner.results(requests) as results: async for result in results: ...``

        Leaving the block early cancels the requests still running; an exception raised in the block
        comes out as itself (``except ValueError`` catches it), not wrapped in an ExceptionGroup.
        """
        send, receive = anyio.create_memory_object_stream[BatchResult](self.max_pending)

        async def produce() -> None:
            async with send:
                await self.run(requests, send.send)

        with unwrapped():
            async with anyio.create_task_group() as tg:
                tg.start_soon(produce)
                async with receive:
                    yield receive
                tg.cancel_scope.cancel()

    async def _work(self, tg: Any, feed: Feed, on_result: ResultHandler) -> None:
        """One worker: takes requests until the input ends. A worker holds one request at a time (in flight
        or waiting to retry), so ``max_pending`` workers bound the unfinished requests; one more starts
        only once every worker holds a request and this one has its slot, so at most one new request waits
        for a slot at a time -- retries get freed slots first."""
        while (request := await feed.take()) is not None:
            await self._slots.acquire()
            self.stats.started += len(request.parts) if isinstance(request, PackedRequest) else 1
            if feed.wants_worker(self.max_pending):
                tg.start_soon(self._work, tg, feed, on_result)
            result = await self.process(request, slot_held=True)
            if isinstance(request, PackedRequest):
                results = await self._unpacked(request, result)
            else:
                results = [result]
            kept = [result for result in results if not self._breaker.hold(result)]
            if kept:
                await self._deliver([*self._breaker.flush(), *kept], on_result)
            feed.done()

    async def _unpacked(self, request: BatchRequest, result: BatchResult) -> list[BatchResult]:
        """The results of a request's lines: itself, or each line of a packed request. A packed request
        the server keeps refusing with a 400 that blames an input is halved until the input at fault is
        alone in its request, so that the other lines still get their vectors; a 400 naming another
        parameter fails every line of the pack at once."""
        if not isinstance(request, PackedRequest):
            return [result]
        if may_be_one_input(result) and len(request.parts) > 1:
            results = []
            for half in split(request):
                results += await self._unpacked(half, await self.process(half))
            return results
        return unpack(request, result)

    async def _deliver(self, results: list[BatchResult], on_result: ResultHandler) -> None:
        for result in results:
            self.stats.record(result)
            delivered = on_result(result)
            if delivered is not None and inspect.isawaitable(delivered):
                await delivered
