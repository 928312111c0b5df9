"""The HTTP transports: httpx2, the aiohttp adapter, per-loop sessions and pools; the one place errors
from the wire are translated."""

from __future__ import annotations

from typing import Any

from ._transport import (
    aiohttp_transport_of,
    default_timeout,
    request_timeout,
    timeout_extension,
    translate_error,
)

__all__ = [
    "aiohttp_transport_of",
    "default_timeout",
    "new_async_client",
    "new_sync_client",
    "own_cookie_jar",
    "own_transport",
    "ready",
    "request_timeout",
    "timeout_extension",
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


def own_transport(http: Any) -> Any:
    """The transport under an HTTP client holyclient made for itself (see
    :func:`holyclient._http._clients.own_transport`), or None."""
    if http is None or type(http).__module__.partition(".")[0] != "holyclient":
        return None  # not ours: nothing to look up (and httpx2 need not be imported)
    from ._clients import own_transport as lookup

    return lookup(http)


def own_cookie_jar(http: Any) -> Any:
    """The cookie jar under an async HTTP client holyclient made for itself (see
    :func:`holyclient._http._clients.own_cookie_jar`), or None."""
    if http is None or type(http).__module__.partition(".")[0] != "holyclient":
        return None
    from ._clients import own_cookie_jar as lookup

    return lookup(http)


def ready(http: Any) -> None:
    """Load now what ``http``'s first request would load on its own: the aiohttp transport's library
    and TLS context (an httpx2 transport loads its own when the client is made)."""
    transport = aiohttp_transport_of(http)
    if transport is not None:
        transport.ready()
