"""The HTTP library boundary: the default transports and the translation of their errors.

The sync default is httpx2 (the successor of httpx the official SDK moved to), chosen by measurement:
httpx 0.28's connection pool scans every connection on each request and collapses at high concurrency
(encode/httpx#3215). The async default keeps httpx2's client on top of aiohttp's connection pool
(:mod:`holyclient._aiohttp`), about half the CPU per request; off asyncio, or behind a proxy from the
environment, it uses httpx2, its connections spread over small pools (:mod:`holyclient._pool`); see
``benchmarks/bench_client.py``. A user may pass an ``httpx.Client`` / ``httpx.AsyncClient`` instead
(respx mocks it); both libraries share one API, so the clients only need to recognise both families of
exceptions."""

from __future__ import annotations

import sys
from typing import Any

from ._constants import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_KEEPALIVE_CONNECTIONS,
    DEFAULT_TIMEOUT,
)
from ._exceptions import APIConnectionError, APITimeoutError


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


def _limits(max_connections: int | None) -> Any:
    import httpx2

    connections = max_connections or DEFAULT_MAX_CONNECTIONS
    return httpx2.Limits(
        max_connections=connections,
        max_keepalive_connections=min(connections, max(DEFAULT_MAX_KEEPALIVE_CONNECTIONS, connections)),
    )


def new_sync_client(timeout: Any, max_connections: int | None = None) -> Any:
    import httpx2

    return httpx2.Client(timeout=timeout, limits=_limits(max_connections), follow_redirects=True)


def new_async_client(timeout: Any, max_connections: int | None = None) -> Any:
    import urllib.request

    import httpx2

    limits = _limits(max_connections)
    if urllib.request.getproxies():  # a custom transport would bypass the proxy the environment asks for
        return httpx2.AsyncClient(timeout=timeout, limits=limits, follow_redirects=True)
    from ._aiohttp import AiohttpTransport
    from ._pool import ShardedAsyncTransport

    def sharded() -> httpx2.AsyncBaseTransport:
        return ShardedAsyncTransport(
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
        )

    transport = AiohttpTransport(max_connections=limits.max_connections, fallback=sharded)
    return httpx2.AsyncClient(timeout=timeout, transport=transport, follow_redirects=True)


def _families() -> list[Any]:
    return [module for name in ("httpx2", "httpx") if (module := sys.modules.get(name)) is not None]


def translate_error(exc: BaseException, request: Any, attempts: int = 1) -> BaseException:
    """Our error for an HTTP-library error, or ``exc`` itself when it is not one.

    The library's exception is not chained (``from None`` at the raise site): its ``request`` holds the
    unredacted ``Authorization`` header.
    """
    from ._base import redacted_request

    for module in _families():
        if isinstance(exc, module.TimeoutException):
            return APITimeoutError(
                f"Request timed out: {exc}", request=redacted_request(request), attempts=attempts
            )
        if isinstance(exc, module.TransportError):
            message = f"Connection error: {type(exc).__name__}: {exc}".rstrip(": ")
            return APIConnectionError(message, request=redacted_request(request), attempts=attempts)
    return exc


def is_transport_error(exc: BaseException) -> bool:
    return any(isinstance(exc, module.TransportError) for module in _families())
