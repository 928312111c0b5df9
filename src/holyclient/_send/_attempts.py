"""Per-call retry bookkeeping, sans-IO: the headers each attempt carries, and whether a failure's outcome is known.

A timeout or a dropped connection *after* the request was sent leaves its outcome unknown: the server may
have processed and billed it. The budget then keeps the request's reservation as spent (see
:func:`outcome_unknown`), and its retries say what they are:

* Every attempt of a POST carries the same ``Idempotency-Key`` (one per call, the first attempt
  included, or the server has nothing to match a retry against), so a server that supports the header
  can answer a retry from the first attempt's result instead of doing the work twice. The key is
  ``holyclient-retry-`` and 128 random bits in hex (openai-python's would be ``stainless-python-retry-`` and
  a UUID4; formatting a UUID costs more than the rest of this module per call, and buys nothing here).
* Every attempt carries ``x-stainless-retry-count`` (0, then 1, 2 ...): the header openai-python sends on
  every request, so a relay or proxy that reads it sees the same from us as from the official SDK.

A caller's own ``extra_headers`` of the same names win, as in openai-python.

:func:`outcome_unknown` assumes the worst: an :class:`APIConnectionError` counts as possibly processed
unless the HTTP library said the connection was never made, and so does a 2xx answer we could not read.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from .._exceptions import APIConnectionError, APIResponseValidationError

if TYPE_CHECKING:
    from .._core._request import RequestOptions
    from ..pricing._tracker import Reservation, UsageTracker

T = TypeVar("T")

__all__ = ["ATTEMPT_HEADER", "IDEMPOTENCY_HEADER", "Attempts", "mark_never_sent", "outcome_unknown"]

IDEMPOTENCY_HEADER = "Idempotency-Key"
ATTEMPT_HEADER = "x-stainless-retry-count"

#: httpx/httpx2 errors raised before any byte of the request left: the server cannot have seen it.
_NEVER_SENT = (
    "ConnectError",
    "ConnectTimeout",
    "PoolTimeout",
    "ProxyError",
    "UnsupportedProtocol",
    "LocalProtocolError",
)


class Attempts:
    """One call's attempts: the options of each (stable idempotency key, attempt number) and its budget hold.

    The call's worst case is reserved when it starts. An attempt whose outcome is unknown may have been
    billed, so before the next attempt its reservation is kept as spent (uncertain) and a new one is
    made: the retry may then be refused with :class:`~holyclient.BudgetExceededError`, but the budget
    holds even if the server does not deduplicate.

    Args:
        options: the call's options.
        tracker: the client's usage tracker.
        reserve: reserves the call's worst case (returns None when no budget is set).
    """

    __slots__ = (
        "_count",
        "_key",
        "_options",
        "_reserve",
        "_set_count",
        "_tracker",
        "_unknown",
        "reservation",
    )

    def __init__(
        self,
        options: RequestOptions,
        tracker: UsageTracker,
        reserve: Callable[[RequestOptions], Reservation | None],
    ) -> None:
        self._options = options
        self._tracker = tracker
        self._reserve = reserve
        self.reservation = reserve(options)
        given = {name.lower() for name in options.extra_headers or ()}
        self._set_count = ATTEMPT_HEADER not in given
        wants_key = options.method != "GET" and IDEMPOTENCY_HEADER.lower() not in given
        self._key = f"holyclient-retry-{os.urandom(16).hex()}" if wants_key else None
        self._count = 0
        self._unknown = False

    def send(self, fn: Callable[[RequestOptions], T]) -> T:
        """Make the next attempt with ``fn``."""
        options = self._next()
        try:
            return fn(options)
        except BaseException as exc:
            self._unknown = outcome_unknown(exc)
            raise

    async def asend(self, fn: Callable[[RequestOptions], Awaitable[T]]) -> T:
        """Async twin of :meth:`send`."""
        options = self._next()
        try:
            return await fn(options)
        except BaseException as exc:
            self._unknown = outcome_unknown(exc)
            raise

    def failed(self, exc: BaseException) -> None:
        """Settle the reservation of a call that failed for good with ``exc``."""
        if self.reservation is None:
            return
        if outcome_unknown(exc):
            self._tracker.settle_uncertain(self.reservation)
        else:
            self._tracker.settle(self.reservation, None)

    def _next(self) -> RequestOptions:
        if self._unknown and self.reservation is not None:  # the last attempt may have been billed
            self._tracker.settle_uncertain(self.reservation)
            self.reservation = None
            self.reservation = self._reserve(self._options)
        self._unknown = False
        headers: dict[str, str] = {}
        if self._key is not None:
            headers[IDEMPOTENCY_HEADER] = self._key
        if self._set_count:
            headers[ATTEMPT_HEADER] = str(self._count)
        self._count += 1
        if not headers:
            return self._options
        if self._options.extra_headers:
            headers.update(self._options.extra_headers)
        return dataclasses.replace(self._options, extra_headers=headers)


def mark_never_sent(error: BaseException, cause: BaseException) -> BaseException:
    """Record on our connection ``error`` when ``cause`` (the HTTP library's) happened before sending."""
    if isinstance(error, APIConnectionError) and _never_sent(cause):
        error.maybe_processed = False
    return error


def _never_sent(cause: BaseException) -> bool:
    for name in ("httpx2", "httpx"):
        module = sys.modules.get(name)
        if module is not None and any(
            isinstance(cause, kind)
            for kind in (getattr(module, n, None) for n in _NEVER_SENT)
            if kind is not None
        ):
            return True
    return False


def outcome_unknown(exc: BaseException) -> bool:
    """Whether the server may have processed (and billed) the request that failed with ``exc``.

    True for a connection error after sending, and for a success answer we could not read (a 2xx whose
    body is garbled or the wrong shape: the work was done, but its usage is lost).
    """
    if isinstance(exc, APIConnectionError):
        return exc.maybe_processed
    return isinstance(exc, APIResponseValidationError) and 200 <= (exc.status_code or 0) < 300
