"""Per-call retry bookkeeping, sans-IO: the headers each attempt carries, and whether a failure happened
before the request left.

A timeout or a dropped connection *after* the request was sent leaves its outcome unknown: the server may
have processed and billed it. The attempt's ledger then keeps its hold as spent (the endpoint declares
which failures are "maybe billed": :mod:`holyclient.pricing._charging`), and its retries say what they are:

* Every attempt of a POST carries the same ``Idempotency-Key`` (one per call, the first attempt
  included, or the server has nothing to match a retry against), so a server that supports the header
  can answer a retry from the first attempt's result instead of doing the work twice. The key is
  ``holyclient-retry-`` and 128 random bits in hex (openai-python's would be ``stainless-python-retry-`` and
  a UUID4; formatting a UUID costs more than the rest of this module per call, and buys nothing here).
* Every attempt carries ``x-stainless-retry-count`` (0, then 1, 2 ...): the header openai-python sends on
  every request, so a relay or proxy that reads it sees the same from us as from the official SDK.

A caller's own ``extra_headers`` of the same names win, as in openai-python.

:func:`mark_never_sent` records on our connection error when the HTTP library said the connection was
never made; every other connection error counts as possibly processed.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, TypeVar

from .._exceptions import APIConnectionError

if TYPE_CHECKING:
    from .._core import RequestOptions
    from .._otel._telemetry import Call

T = TypeVar("T")

__all__ = [
    "ATTEMPT_HEADER",
    "IDEMPOTENCY_HEADER",
    "Attempts",
    "mark_never_sent",
    "new_idempotency_key",
    "with_idempotency_key",
]

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
    """One call's attempts: the options of each, with a stable idempotency key and the attempt number.

    The budget is held per attempt by the send pipeline (:class:`~holyclient.pricing.Ledger`): an
    attempt whose outcome is unknown may have been billed, so its reservation is kept as spent
    (uncertain) and the next attempt reserves anew -- it may then be refused with
    :class:`~holyclient.BudgetExceededError`, but the budget holds even if the server does not deduplicate.

    Args:
        options: the call's options.
    """

    __slots__ = ("_count", "_key", "_options", "_set_count", "call")

    def __init__(self, options: RequestOptions) -> None:
        self._options = options
        given = {name.lower() for name in options.extra_headers} if options.extra_headers else ()
        self._set_count = ATTEMPT_HEADER not in given
        wants_key = options.method != "GET" and IDEMPOTENCY_HEADER.lower() not in given
        self._key = new_idempotency_key() if wants_key else None
        self._count = 0
        #: The call's span and metrics (:class:`~holyclient._otel._telemetry.Call`), when instrumented.
        self.call: Call | None = None

    def count(self) -> int:
        """How many attempts were made so far."""
        return self._count

    @property
    def options(self) -> RequestOptions:
        """The call's options, as the caller gave them."""
        return self._options

    def next(self) -> RequestOptions:
        """The options of the next attempt."""
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
        return self._options.replaced(extra_headers=headers)


def new_idempotency_key() -> str:
    """A new ``Idempotency-Key`` (see the module docstring)."""
    return f"holyclient-retry-{os.urandom(16).hex()}"


def with_idempotency_key(options: RequestOptions) -> RequestOptions:
    """``options`` carrying one ``Idempotency-Key`` (a new one, unless they carry theirs, or a GET): for a
    caller that runs one logical request as several calls -- a Router failing over from one target's
    client to the next -- so that every attempt of every call carries the same key."""
    extra = options.extra_headers
    if options.method == "GET" or (extra and any(n.lower() == "idempotency-key" for n in extra)):
        return options
    return options.replaced(extra_headers={IDEMPOTENCY_HEADER: new_idempotency_key(), **(extra or {})})


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
