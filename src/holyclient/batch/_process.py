"""One batch request's life: budget, admission, attempts, retries, usage (the runner's per-request half).

:class:`~holyclient.batch._runner.BatchRunner` decides what to send and when; :class:`RequestProcessor`
sends one request until it has a result. Split from ``_runner.py`` so each half reads on its own.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import anyio

from .._constants import LOGGER_NAME, PATHS
from .._core import RequestOptions, parse_error_body
from .._exceptions import (
    APIConnectionError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
    BudgetExceededError,
    error_text,
)
from .._send import sender_of, status_error
from ..ratelimit import Clock, Sleep, TokenEstimator
from ._answers import read_answer, usage_of
from ._concurrency import AdaptiveConcurrency, Slots
from ._guard import SlotHold, StopBreaker
from ._pack import PackedRequest
from ._types import BatchRequest, BatchResult, BatchStats, request_fingerprint

if TYPE_CHECKING:
    from .._client import AsyncClient
    from .._core import RetryPolicy
    from .._send import Exchange, SendStep
    from ..ratelimit import Feedback, Limiter

logger = logging.getLogger(LOGGER_NAME)

#: Retries that may use a short, flat backoff after an isolated failure (the first retry's backoff scaled
#: by :attr:`AdaptiveConcurrency.backoff_scale`); later ones wait the policy's full backoff, so that a
#: request still spans tens of seconds of retries before it is given up (a stalled server recovers).
QUICK_RETRIES = 6


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
    _steps: tuple[SendStep, ...]

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
        try:
            body = dict(request.body)
            model = str(body.get("model") or "") or None
            if request.url not in PATHS:
                raise ValueError(f"unsupported url {request.url!r} (supported: {', '.join(PATHS)})")
            options = RequestOptions(
                "POST", PATHS[request.url], body=body, timeout=self.timeout, max_retries=0
            )
            result = await self._with_retries(request, options, model, slot)
        except Exception as exc:  # by construction: a failed request is a result, never an exception
            logger.debug("Batch request %s failed", request.custom_id, exc_info=True)
            result = BatchResult(
                request.custom_id, error=_error("request_failed", self._scrub(exc)), model=model
            )
        finally:
            slot.release()
        if not isinstance(request, PackedRequest):  # a packed request's lines carry their own
            result.fingerprint = request_fingerprint(request.body)
        return result

    def _scrub(self, exc: Exception) -> str:
        """The error's text for the output file, without the API key whatever the error put in it."""
        text = f"{type(exc).__name__}: {exc}"
        key = str(getattr(self.client, "api_key", "") or "")
        return text.replace(key, "***") if len(key) >= 8 else text

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
            logger.debug(
                "Batch request %s: %s; retrying in %.2fs", request.custom_id, error_text(failure), delay
            )
            await self._sleep(delay)  # outside the slot: another request is sent meanwhile
        # a request the budget refused was never sent: that attempt does not count
        result.attempts = retries_done + (0 if isinstance(failure, BudgetExceededError) else 1)
        return result

    @staticmethod
    def _settle(exchange: Exchange, result: BatchResult) -> None:
        """The pipeline's settlement step: the answer's usage on its client's tracker (a Router's target
        included), or the reservation released when the answer reports none."""
        try:
            exchange.settle(result.model, result.usage)
        except Exception as exc:  # an odd usage object: the result stands, the reservation is released
            logger.debug("Batch request %s: usage not recorded", result.custom_id, exc_info=True)
            exchange.failed(exc)

    async def _attempt_in_slot(
        self, request: BatchRequest, options: RequestOptions, model: str | None, slot: SlotHold
    ) -> tuple[BatchResult, BaseException | None]:
        body = options.body or {}
        if not slot.held:  # a retry, or a request packed again
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
            result, failure, answer = await self._attempt(request, options, model)
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
        seconds = self._clock() - sent
        if failure is None:
            self.stats.success_seconds += seconds
            self.stats.successful_attempts += 1
        if self.adaptive is not None:
            self.adaptive.on_attempt(rate_limited=rate_limited, failed=failure is not None, seconds=seconds)
            if (slots := self.adaptive.slots) != self._slots.size:
                self._slots.resize(slots)
                self.stats.concurrency = self._slots.size
        if admission is not None and self.limiter is not None:
            await self.limiter.observe(admission, self._feedback(result, answer, raw_prompt))
        return result, failure

    def _feedback(self, result: BatchResult, answer: Any, raw_prompt: int) -> Feedback:
        """What the limiter learns from one attempt's ``answer`` (``None``: none came): a refusal's pause,
        the server's remaining budget from any answer -- a 2xx's too, so that workers sharing a limiter
        see the budget shrink before the 429s --, and a success's real usage."""
        from ..ratelimit import Feedback, read_feedback

        total = None
        if result.ok and result.usage is not None and raw_prompt:
            self.estimator.observe(raw_prompt, int(result.usage.get("prompt_tokens") or 0))
            total = int(result.usage.get("total_tokens") or 0)
        if answer is None:
            return Feedback()
        return read_feedback(int(answer.status_code), answer.headers, total)

    async def _attempt(
        self, request: BatchRequest, options: RequestOptions, model: str | None
    ) -> tuple[BatchResult, BaseException | None, Any]:
        """One attempt through the client's send pipeline (its budget, key, identity, error translation
        and usage; the fast path as a send step), without retry: the result it would leave, the error
        to judge retrying by, and the answer (status and headers, for the limiter; ``None``: none came)."""
        try:
            exchange = await sender_of(self.client).asend(options, steps=self._steps, limited=False)
        except APIConnectionError as failure:
            code = "timeout" if isinstance(failure, APITimeoutError) else "connection_error"
            return (
                BatchResult(request.custom_id, error=_error(code, error_text(failure)), model=model),
                failure,
                None,
            )
        except BudgetExceededError as refused:
            error = _error("budget_exceeded", str(refused))
            return BatchResult(request.custom_id, error=error, attempts=0, model=model), refused, None
        try:
            return (*self._judge(request, exchange, model), exchange.response)
        except BaseException as exc:  # whatever failed after the answer: its reservation is not kept held
            exchange.failed(exc)
            raise

    def _judge(
        self, request: BatchRequest, exchange: Exchange, model: str | None
    ) -> tuple[BatchResult, BaseException | None]:
        """An attempt's answer as its result: parsed, or the status error to judge retrying by."""
        exchange.unechoed()  # the OUTPUT line never holds the key, even if the server echoed it
        answer = exchange.response
        request_id = answer.headers.get("x-request-id")
        status = int(answer.status_code)
        if status >= 400:
            http_request, response = exchange.httpx()
            refused = status_error(self.client, response, answer.content, http_request)
            exchange.failed(refused)
            # the whole body the server sent (the error's ``body`` may be only its ``error`` object)
            body = parse_error_body(answer.content, http_request)  # redacted: a server may echo the key
            return BatchResult(request.custom_id, status, request_id, body, model=model), refused
        try:
            raw = read_answer(request.url, answer.content, exchange.httpx)
        except BaseException as exc:
            exchange.failed(exc)  # a 2xx we could not read may have been billed: kept as uncertain
            if not isinstance(exc, APIResponseValidationError):
                raise
            error = _error("invalid_response", error_text(exc))
            return BatchResult(request.custom_id, status, request_id, exc.body, error, model=model), exc
        answered = raw.get("model")
        result = BatchResult(
            request.custom_id,
            status,
            request_id,
            raw,
            model=answered if isinstance(answered, str) and answered else model,
            usage=usage_of(raw),
        )
        result.keep_answer(answer.content)  # written as it came (the key cut out above)
        self._settle(exchange, result)
        return result, None
