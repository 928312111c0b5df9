"""The HTTP library boundary: the default transports and the translation of their errors.

The sync default is httpx2 (the successor of httpx the official SDK moved to), chosen by measurement:
httpx 0.28's connection pool scans every connection on each request and collapses at high concurrency
(encode/httpx#3215). The async default keeps httpx2's client on top of aiohttp's connection pool
(:mod:`holyclient._http._aiohttp`), about half the CPU per request; off asyncio, or behind a proxy from the
environment, it uses httpx2, its connections spread over small pools (:mod:`holyclient._http._pool`); see
``benchmarks/bench_client.py``. A user may pass an ``httpx.Client`` / ``httpx.AsyncClient`` instead
(respx mocks it); both libraries share one API. Whatever any of them raises while sending becomes one of
our errors in :func:`translate_error`, with no list of types to fall behind."""

from __future__ import annotations

import sys
from typing import Any

from .._constants import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_KEEPALIVE_CONNECTIONS,
    DEFAULT_TIMEOUT,
)
from .._exceptions import APIConnectionError, APITimeoutError, HolyClientError


def default_timeout(timeout: Any) -> Any:
    import httpx2

    if isinstance(timeout, (int, float)):
        return httpx2.Timeout(float(timeout), connect=min(float(timeout), DEFAULT_CONNECT_TIMEOUT))
    return httpx2.Timeout(DEFAULT_TIMEOUT, connect=DEFAULT_CONNECT_TIMEOUT) if timeout is None else timeout


def request_timeout(timeout: Any) -> Any:
    """A ``Timeout`` as the ``(connect, read, write, pool)`` tuple both httpx and httpx2 accept.

    Each library takes the other's ``Timeout`` object for a number and fails when connecting, so the
    default (an ``httpx2.Timeout``) would break every request made through a user-supplied ``httpx.Client``.
    """
    if all(hasattr(timeout, name) for name in ("connect", "read", "write", "pool")):
        return (timeout.connect, timeout.read, timeout.write, timeout.pool)
    return timeout


def timeout_extension(timeout: Any) -> dict[str, Any]:
    """What ``build_request(timeout=...)`` puts in the request's ``timeout`` extension (both libraries)."""
    import httpx2

    extension: dict[str, Any] = httpx2.Timeout(request_timeout(timeout)).as_dict()
    return extension


def limits(max_connections: int | None) -> Any:
    """The connection limits of holyclient's clients (``max_connections`` or the default)."""
    import httpx2

    connections = max_connections or DEFAULT_MAX_CONNECTIONS
    return httpx2.Limits(
        max_connections=connections,
        max_keepalive_connections=min(connections, max(DEFAULT_MAX_KEEPALIVE_CONNECTIONS, connections)),
    )


def aiohttp_transport_of(http: Any) -> Any:
    """The :class:`~holyclient._http._aiohttp.AiohttpTransport` under an async client made by
    :func:`new_async_client`, or ``None`` (another transport, or mounts for proxies): what a step that
    sends on the wire itself may use."""
    from ._aiohttp import AiohttpTransport

    transport = getattr(http, "_transport", None)  # httpx2's own client, which we built
    if not isinstance(transport, AiohttpTransport) or getattr(http, "_mounts", None):
        return None
    return transport


def _families() -> list[Any]:
    return [module for name in ("httpx2", "httpx") if (module := sys.modules.get(name)) is not None]


def _is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, TimeoutError) or any(
        isinstance(exc, module.TimeoutException) for module in _families()
    )


def translate_error(exc: BaseException, request: Any, attempts: int = 1) -> BaseException:
    """Our error for anything raised while sending or reading, or ``exc`` itself when it is already ours.

    This is a catch-all by design, not a list of types: httpx's ``DecodingError`` and
    ``TooManyRedirects`` are not ``TransportError``s, aiohttp may raise ``RuntimeError``, and whatever a
    library adds next must not escape untranslated, since its ``request`` holds the unredacted
    ``Authorization`` header. Every such error becomes an :class:`APIConnectionError` (retried like a
    dropped connection), or :class:`APITimeoutError` for a timeout, carrying the redacted request and
    openai's text (``Connection error.``, ``Request timed out.``); the library's own words are kept as a
    note on the error, with any secret header value blanked out. The library's exception is not chained (raise
    outside the ``except`` block): its traceback frames and ``request`` hold the key. Cancellation and
    other ``BaseException``s come back unchanged.
    """
    from .._core import redacted_request, redacted_text

    if isinstance(exc, HolyClientError) or not isinstance(exc, Exception):  # ours, or cancellation
        return exc
    safe = redacted_request(request)
    # openai's own text, which apps log and match; what the library said is kept as a note (it prints
    # with the traceback), redacted: the library's exception is not kept, its ``request`` holds the key
    detail = redacted_text(f"{type(exc).__name__}: {exc}".rstrip(": "), request)
    error: APIConnectionError
    if _is_timeout(exc):
        error = APITimeoutError(request=safe, attempts=attempts)
    else:
        error = APIConnectionError(request=safe, attempts=attempts)
    error.add_note(detail)
    return error
