"""The HTTP transports: httpx2, the aiohttp adapter, per-loop sessions and pools; the one place errors
from the wire are translated."""

from __future__ import annotations

from typing import Any

from ._transport import (
    aiohttp_transport_of,
    default_timeout,
    request_timeout,
    translate_error,
)

__all__ = [
    "aiohttp_transport_of",
    "default_timeout",
    "new_async_client",
    "new_sync_client",
    "ready",
    "request_timeout",
    "translate_error",
]


# The default clients import httpx2 (and aiohttp): loaded when a client first sends, not at import.
def new_sync_client(timeout: Any, max_connections: int | None = None) -> Any:
    """holyclient's default sync HTTP client (see :mod:`holyclient._http._clients`)."""
    from ._clients import new_sync_client as make

    return make(timeout, max_connections)


def new_async_client(timeout: Any, max_connections: int | None = None) -> Any:
    """holyclient's default async HTTP client (see :mod:`holyclient._http._clients`)."""
    from ._clients import new_async_client as make

    return make(timeout, max_connections)


def ready(http: Any) -> None:
    """Load now what ``http``'s first request would load on its own: the aiohttp transport's library
    and TLS context (an httpx2 transport loads its own when the client is made)."""
    transport = aiohttp_transport_of(http)
    if transport is not None:
        transport.ready()
