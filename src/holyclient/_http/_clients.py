"""The HTTP clients holyclient makes for itself, offered under openai's names for ``http_client=``.

``DefaultHttpxClient(proxy=...)`` means what it means in openai: the SDK's own client, with the SDK's
defaults (timeouts, connection limits, redirects), and the caller's changes on top. Passing a plain
``httpx2.Client()`` instead gets httpx2's defaults (a 5 s timeout). ``DefaultAioHttpClient`` is the async
client on holyclient's aiohttp transport (what ``AsyncClient`` uses by default on asyncio without a proxy
from the environment); ``DefaultAsyncHttpxClient`` the same client on httpx2's own transport. The clients
``Client`` / ``AsyncClient`` make when none is given come from here, so there is one set of defaults.
"""

from __future__ import annotations

import weakref
from http.cookiejar import Cookie, CookieJar
from typing import Any

import httpx2

from ._transport import default_timeout, limits

#: The transport under each HTTP client holyclient made for itself with exactly one (no proxy mounts):
#: what a request built elsewhere is sent on as it is (:func:`own_transport`).
_OWN: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
#: The cookie jar of each async HTTP client holyclient made for itself (see :class:`_Jar`).
_JARS: weakref.WeakKeyDictionary[Any, _Jar] = weakref.WeakKeyDictionary()


class _Jar(CookieJar):
    """A cookie jar that says whether it was ever given a cookie (``held``), read without a call: while
    it holds none, the async client's direct wire (``holyclient._send._direct``) has no cookie to send."""

    held = False

    def set_cookie(self, cookie: Cookie) -> None:
        self.held = True
        super().set_cookie(cookie)


def _with_defaults(kwargs: dict[str, Any]) -> dict[str, Any]:
    kwargs.setdefault("timeout", default_timeout(None))
    kwargs.setdefault("limits", limits(None))
    kwargs.setdefault("follow_redirects", True)
    return kwargs


class DefaultHttpxClient(httpx2.Client):
    """An ``httpx2.Client`` with holyclient's defaults; pass it (customised) as ``Client(http_client=...)``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**_with_defaults(kwargs))


class DefaultAsyncHttpxClient(httpx2.AsyncClient):
    """An ``httpx2.AsyncClient`` with holyclient's defaults, on httpx2's own transport."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**_with_defaults(kwargs))


class DefaultAioHttpClient(httpx2.AsyncClient):
    """An ``httpx2.AsyncClient`` with holyclient's defaults on its aiohttp transport.

    A ``transport=``, ``proxy=`` or ``mounts=`` of the caller's is kept as given (a custom transport would
    bypass a proxy).
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs = _with_defaults(kwargs)
        if not {"transport", "proxy", "mounts"} & kwargs.keys():
            kwargs["transport"] = _aiohttp_transport(kwargs["limits"])
        super().__init__(**kwargs)


def _aiohttp_transport(pool_limits: Any) -> httpx2.AsyncBaseTransport:
    from ._aiohttp import AiohttpTransport
    from ._pool import ShardedAsyncTransport

    def sharded() -> httpx2.AsyncBaseTransport:
        return ShardedAsyncTransport(
            max_connections=pool_limits.max_connections,
            max_keepalive_connections=pool_limits.max_keepalive_connections,
        )

    return AiohttpTransport(max_connections=pool_limits.max_connections, fallback=sharded)


#: openai 3's names for the same clients.
DefaultHttpx2Client = DefaultHttpxClient
DefaultAsyncHttpx2Client = DefaultAsyncHttpxClient


def new_sync_client(timeout: Any, max_connections: int | None = None) -> Any:
    """holyclient's default sync HTTP client.

    Without a proxy from the environment its transport is made here, as httpx2 would make it (the
    default TLS, HTTP/1.1, the same limits), and remembered (:func:`own_transport`); with one, httpx2
    makes its proxy mounts as usual.
    """
    import urllib.request

    pool_limits = limits(max_connections)
    if urllib.request.getproxies():
        return DefaultHttpxClient(timeout=timeout, limits=pool_limits)
    transport = httpx2.HTTPTransport(limits=pool_limits)
    client = DefaultHttpxClient(timeout=timeout, limits=pool_limits, transport=transport)
    _OWN[client] = transport
    return client


def new_async_client(timeout: Any, max_connections: int | None = None) -> Any:
    """holyclient's default async HTTP client: aiohttp, or httpx2 when the environment sets a proxy."""
    import urllib.request

    pool_limits = limits(max_connections)
    if urllib.request.getproxies():  # a custom transport would bypass the proxy the environment asks for
        return DefaultAsyncHttpxClient(timeout=timeout, limits=pool_limits)
    transport = _aiohttp_transport(pool_limits)
    jar = _Jar()
    client = DefaultAioHttpClient(timeout=timeout, limits=pool_limits, transport=transport, cookies=jar)
    _OWN[client] = transport
    _JARS[client] = jar
    return client


def own_cookie_jar(http: Any) -> Any:
    """The cookie jar of an async HTTP client holyclient made for itself (it says whether it ever held a
    cookie: ``held``), else None."""
    return _JARS.get(http)


def own_transport(http: Any) -> Any:
    """The one transport under ``http`` when holyclient made it (:func:`new_sync_client`,
    :func:`new_async_client` without a proxy), else None: a request built by another client (openai's,
    through ``as_openai()``) is handed to it as it is, without a second client's send around it (whose
    redirects, cookies and hooks belong to the client that built the request)."""
    return _OWN.get(http)
