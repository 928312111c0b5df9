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
import logging
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio

from .._base import NOT_GIVEN, RequestOptions, parse_error_body
from .._constants import LOGGER_NAME
from .._exceptions import (
    APIConnectionError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
    BudgetExceededError,
)
from ._answers import PATHS, read_answer, usage_of
from ._guard import BatchStoppedError, SlotHold, StopBreaker, unwrapped
from ._pack import DEFAULT_PACK_TOKENS, PackedRequest, Packer, split, unpack
from ._ratelimit import AdaptiveConcurrency, Clock, Sleep, Slots, TokenEstimator
from ._types import CHAT_COMPLETIONS_URL, BatchRequest, BatchResult, BatchStats, request_fingerprint
from ._wire import DirectSender

if TYPE_CHECKING:
    from .._client import AsyncClient
    from ..ratelimit import Feedback, Limiter

logger = logging.getLogger(LOGGER_NAME)

#: Retries per request. Higher than a single call's default: a batch of thousands meets every transient
#: fault there is, and a request given up on is a hole in the output (with 20% faults, 2 retries lose
#: 0.8% of requests; 8 lose about one in two million).
DEFAULT_BATCH_MAX_RETRIES = 8
DEFAULT_CONCURRENCY = 64
#: Retries that may use a short, flat backoff after an isolated failure (the first retry's backoff scaled
#: by :attr:`AdaptiveConcurrency.backoff_scale`); later ones wait the policy's full backoff, so that a
#: request still spans tens of seconds of retries before it is given up (a stalled server recovers).
QUICK_RETRIES = 6

ResultHandler = Callable[[BatchResult], "Awaitable[None] | None"]
RequestLike = BatchRequest | Mapping[str, Any]


def as_request(item: RequestLike, position: int) -> BatchRequest:
    """A :class:`BatchRequest` from one, from a Batch API input line, or from a bare request body.

    A bare body (a mapping with ``messages``) gets its 1-based ``position`` as ``custom_id``.
    """
    if isinstance(item, BatchRequest):
        return item
    if "custom_id" in item and "body" in item:
        return BatchRequest(
            str(item["custom_id"]), item["body"], str(item.get("url") or CHAT_COMPLETIONS_URL)
        )
    if "messages" in item:
        return BatchRequest(str(position), item)
    raise TypeError("a batch request needs custom_id and body, or is a chat request body with messages")


async def _aiter(items: Iterable[RequestLike] | AsyncIterable[RequestLike]) -> AsyncIterator[RequestLike]:
    if isinstance(items, AsyncIterable):
        async for item in items:
            yield item
    else:
        for item in items:
            yield item


class _Usage:
    """A usage already in the chat completion's terms (:func:`._answers.usage_of`) as the client's
    ``_settle`` takes it, without a pydantic round trip per request."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = data

    def model_dump(self) -> dict[str, Any]:
        return dict(self._data)


def _error(code: str, message: str) -> dict[str, str]:
    return {"code": code, "message": message}


class BatchRunner:
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
        self._wire = DirectSender.for_client(client)
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
        pending = Slots(self.max_pending)  # takes a free place without yielding, unlike anyio.Semaphore
        self._breaker = StopBreaker(self.stop_after, self._clock)
        try:
            with unwrapped():
                async with anyio.create_task_group() as tg:
                    self._stop_scope = tg.cancel_scope
                    position = 0
                    packer = Packer(*self._pack) if self._pack is not None else None
                    async for item in _aiter(requests):
                        position += 1
                        request = as_request(item, position)
                        for ready in packer.add(request) if packer is not None else (request,):
                            await self._start(tg, ready, pending, on_result)
                    for ready in packer.flush() if packer is not None else ():
                        await self._start(tg, ready, pending, on_result)
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

    async def _start(self, tg: Any, request: BatchRequest, pending: Slots, on_result: ResultHandler) -> None:
        await pending.acquire()
        # a new request waits here, not in a task: retries get freed slots first
        await self._slots.acquire()
        self.stats.started += len(request.parts) if isinstance(request, PackedRequest) else 1
        tg.start_soon(self._run_one, request, pending, on_result)

    async def _run_one(self, request: BatchRequest, pending: Slots, on_result: ResultHandler) -> None:
        try:
            result = await self.process(request, slot_held=True)
            results = await self._unpacked(request, result)
            kept = [result for result in results if not self._breaker.hold(result)]
            if kept:
                await self._deliver([*self._breaker.flush(), *kept], on_result)
        finally:
            pending.release()

    async def _unpacked(self, request: BatchRequest, result: BatchResult) -> list[BatchResult]:
        """The results of a request's lines: itself, or each line of a packed request. A packed request
        the server keeps refusing with a 400 is halved until the input at fault is alone in its request,
        so that the other lines still get their vectors."""
        if not isinstance(request, PackedRequest):
            return [result]
        if result.status_code == 400 and len(request.parts) > 1:
            results = []
            for half in split(request):
                results += await self._unpacked(half, await self.process(half))
            return results
        return unpack(request, result)

    async def _deliver(self, results: list[BatchResult], on_result: ResultHandler) -> None:
        for result in results:
            self.stats.record(result)
            delivered = on_result(result)
            if inspect.isawaitable(delivered):
                await delivered

    # --- one request ------------------------------------------------------------------------------

    async def process(self, request: BatchRequest, *, slot_held: bool = False) -> BatchResult:
        """Send one request with retries; always returns its result (errors included).

        Whatever goes wrong in the request's life -- the budget check, counting its tokens, sending,
        reading, parsing -- ends as a result with an ``error``; only cancellation propagates.

        Args:
            slot_held: the caller already holds a concurrency slot for the first attempt.
        """
        slot = SlotHold(self._slots, slot_held)
        model: str | None = None
        reservation: Any = None
        try:
            body = dict(request.body)
            model = str(body.get("model") or "") or None
            if request.url not in PATHS:
                raise ValueError(f"unsupported url {request.url!r} (supported: {', '.join(PATHS)})")
            options = RequestOptions(
                "POST", PATHS[request.url], body=body, timeout=self.timeout, max_retries=0
            )
            try:
                reservation = self.client._reserve(options)
            except BudgetExceededError as exc:
                return BatchResult(
                    request.custom_id, error=_error("budget_exceeded", str(exc)), attempts=0, model=model
                )
            result = await self._with_retries(request, options, model, slot)
        except Exception as exc:  # by construction: a failed request is a result, never an exception
            logger.debug("Batch request %s failed", request.custom_id, exc_info=True)
            result = BatchResult(
                request.custom_id, error=_error("request_failed", self._scrub(exc)), model=model
            )
        except BaseException:  # cancelled: release what the budget held for it
            self._release(reservation)
            raise
        finally:
            slot.release()
        self._settle(reservation, result)
        if not isinstance(request, PackedRequest):  # a packed request's lines carry their own
            result.fingerprint = request_fingerprint(request.body)
        return result

    def _scrub(self, exc: Exception) -> str:
        """The error's text for the output file, without the API key whatever the error put in it."""
        text = f"{type(exc).__name__}: {exc}"
        key = str(getattr(self.client, "api_key", "") or "")
        return text.replace(key, "***") if len(key) >= 8 else text

    def _release(self, reservation: Any) -> None:
        try:
            self.client._settle(reservation, None, None)
        except Exception:  # pragma: no cover - settling a reservation has no I/O to fail
            logger.debug("Releasing a batch reservation failed", exc_info=True)

    async def _with_retries(
        self, request: BatchRequest, options: RequestOptions, model: str | None, slot: SlotHold
    ) -> BatchResult:
        retries_done = 0
        while True:
            result, failure = await self._attempt_in_slot(request, options, model, slot)
            if failure is None or retries_done >= self.max_retries or not self._policy.should_retry(failure):
                break
            scale = 1.0
            if (
                getattr(failure, "retry_after", None) is None
                and self.adaptive is not None
                and retries_done < QUICK_RETRIES
            ):
                scale = self.adaptive.backoff_scale  # below 1 while failures are isolated
            # an isolated failure waits a short time that does not grow -- a request that meets two or
            # three random faults in a row is unlucky, not a sign of trouble
            delay = self._policy.delay(failure, retries_done if scale >= 1.0 else 0) * scale
            retries_done += 1
            self.stats.retries += 1
            logger.debug("Batch request %s: %s; retrying in %.2fs", request.custom_id, failure, delay)
            await self._sleep(delay)  # outside the slot: another request is sent meanwhile
        result.attempts = retries_done + 1
        return result

    def _settle(self, reservation: Any, result: BatchResult) -> None:
        """Record the request's usage on the client's tracker (and release its budget reservation)."""
        if not result.ok or result.usage is None:
            self._release(reservation)
            return
        try:
            self.client._settle(reservation, result.model, _Usage(result.usage))
        except Exception:  # an odd usage object: the result stands, the reservation is released
            logger.debug("Batch request %s: usage not recorded", result.custom_id, exc_info=True)
            self._release(reservation)

    async def _attempt_in_slot(
        self, request: BatchRequest, options: RequestOptions, model: str | None, slot: SlotHold
    ) -> tuple[BatchResult, BaseException | None]:
        body = options.body or {}
        await slot.acquire()
        try:
            admission = None
            estimate, raw_prompt = 0, 0
            if self.limiter is not None:
                if self.limiter.tpm:
                    estimate, raw_prompt = self.estimator.estimate(body, request.url)
                admission = await self.limiter.acquire(model or "unknown", estimate)
            sent = self._clock()
            self.stats.attempts += 1
            result, failure = await self._attempt(request, options, model)
        finally:
            slot.release()
        self._breaker.on_attempt(failure)
        if self._breaker.tripped and self._stop_scope is not None:
            self._stop_scope.cancel()
        rate_limited = (
            isinstance(failure, APIStatusError)
            and failure.status_code == 429
            and (failure.code != "insufficient_quota")
        )
        if rate_limited:
            self.stats.rate_limited += 1
        if failure is None:
            self.stats.success_seconds += self._clock() - sent
            self.stats.successful_attempts += 1
        if self.adaptive is not None:
            self.adaptive.on_attempt(
                rate_limited=rate_limited, failed=failure is not None, seconds=self._clock() - sent
            )
            self._slots.resize(self.adaptive.slots)
            self.stats.concurrency = self._slots.size
        if admission is not None and self.limiter is not None:
            await self.limiter.observe(admission, self._feedback(result, failure, raw_prompt))
        return result, failure

    def _feedback(self, result: BatchResult, failure: BaseException | None, raw_prompt: int) -> Feedback:
        """What the limiter learns from one attempt: real usage, or a refusal's pause and headers."""
        from ..ratelimit import Feedback, read_feedback

        if result.ok and result.usage is not None and raw_prompt:
            self.estimator.observe(raw_prompt, int(result.usage.get("prompt_tokens") or 0))
            return Feedback(total_tokens=int(result.usage.get("total_tokens") or 0))
        response = getattr(failure, "response", None)
        if isinstance(failure, APIStatusError) and response is not None:
            return read_feedback(int(response.status_code), response.headers)
        return Feedback()

    async def _attempt(
        self, request: BatchRequest, options: RequestOptions, model: str | None
    ) -> tuple[BatchResult, BaseException | None]:
        """One HTTP attempt, without retry: the result it would leave, and the error to judge retrying by."""
        client = self.client
        try:
            answer: Any = None
            if self._wire is not None and self._wire.usable():
                answer = await self._wire.send(options, options.body or {})
                exchange = answer.httpx  # httpx2 objects, built only for an error
                if 300 <= answer.status_code < 400:  # a redirect: httpx2 follows it, as for any call
                    answer = None
            if answer is None:
                http_request, answer = await client._send_raw(options)
                exchange = lambda: (http_request, answer)  # noqa: E731
        except APIConnectionError as failure:
            code = "timeout" if isinstance(failure, APITimeoutError) else "connection_error"
            return BatchResult(request.custom_id, error=_error(code, str(failure)), model=model), failure
        request_id = answer.headers.get("x-request-id")
        status = int(answer.status_code)
        if status >= 400:
            http_request, response = exchange()
            status_error = client._status_error(response, answer.content, http_request)
            # the whole body the server sent (the error's ``body`` may be only its ``error`` object)
            body = parse_error_body(answer.content)
            return BatchResult(request.custom_id, status, request_id, body, model=model), status_error
        try:
            raw = read_answer(request.url, answer.content, exchange)
        except APIResponseValidationError as exc:
            error = _error("invalid_response", exc.message)
            return BatchResult(request.custom_id, status, request_id, exc.body, error, model=model), exc
        answered = raw.get("model")
        return BatchResult(
            request.custom_id,
            status,
            request_id,
            raw,
            model=answered if isinstance(answered, str) and answered else model,
            usage=usage_of(raw),
        ), None
