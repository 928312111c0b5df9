"""One batch request's life: budget, admission, attempts, retries, usage (the runner's per-request half).

:class:`~holyclient.batch._runner.BatchRunner` decides what to send and when; :class:`RequestProcessor`
sends one request until it has a result. Split from ``_runner.py`` so each half reads on its own.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio

from .._constants import LOGGER_NAME, PATHS
from .._core._parse import parse_error_body
from .._core._request import RequestOptions
from .._exceptions import (
    APIConnectionError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
    BudgetExceededError,
)
from ..ratelimit._estimate import TokenEstimator
from ..ratelimit._window import Clock, Sleep
from ._answers import read_answer, usage_of
from ._concurrency import AdaptiveConcurrency, Slots
from ._guard import SlotHold, StopBreaker
from ._pack import PackedRequest
from ._types import BatchRequest, BatchResult, BatchStats, request_fingerprint
from ._wire import DirectSender

if TYPE_CHECKING:
    from .._client._client import AsyncClient
    from .._core._retry import RetryPolicy
    from ..ratelimit import Feedback, Limiter

logger = logging.getLogger(LOGGER_NAME)

#: Retries that may use a short, flat backoff after an isolated failure (the first retry's backoff scaled
#: by :attr:`AdaptiveConcurrency.backoff_scale`); later ones wait the policy's full backoff, so that a
#: request still spans tens of seconds of retries before it is given up (a stalled server recovers).
QUICK_RETRIES = 6


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


class RequestProcessor:
    """Sends one request with retries and turns whatever happens into a :class:`BatchResult`.

    A base of :class:`~holyclient.batch._runner.BatchRunner`, which sets these attributes.
    """

    client: AsyncClient
    max_retries: int
    timeout: Any
    adaptive: AdaptiveConcurrency | None
    limiter: Limiter | None
    estimator: TokenEstimator
    stats: BatchStats
    _slots: Slots
    _clock: Clock
    _sleep: Sleep
    _policy: RetryPolicy
    _breaker: StopBreaker
    _stop_scope: anyio.CancelScope | None
    _wire: DirectSender | None

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
