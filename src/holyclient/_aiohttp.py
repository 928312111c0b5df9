"""The default async transport: httpx2 requests sent by aiohttp's connection pool.

The async client keeps httpx2's ``AsyncClient`` on top (request building, redirects, cookies, decoding,
``MockTransport`` in tests) and hands the wire to aiohttp, whose asyncio-native pool costs a fraction of
httpcore2's per request: measured against the local server at concurrency 64, 455 µs of CPU per request
for aiohttp against 2,470 µs for httpx2 (``benchmarks/bench_client.py``). A batch of thousands of
requests is CPU-bound on the client long before the server is busy; this is what keeps its event loop
free to start the next request the moment a slot opens.

aiohttp runs on asyncio only. Under another async library (trio) the request goes through the
``fallback`` transport instead. aiohttp is imported on the first request, not with the package.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any

import httpx2

if TYPE_CHECKING:
    import aiohttp

#: Seconds an idle connection stays in the pool (httpx's default keep-alive expiry).
KEEPALIVE_EXPIRY = 5.0


def _translate(exc: BaseException) -> BaseException:
    """The httpx2 exception for an aiohttp/OS error (the clients already classify httpx2's), or ``exc``.

    A dropped connection must read as a connection error, not as a timeout, and a timeout while
    connecting differs from one while waiting for the answer: the names follow httpcore's choices.
    """
    import aiohttp

    message = str(exc) or type(exc).__name__
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return httpx2.ConnectTimeout(message)
    if isinstance(exc, (aiohttp.ServerTimeoutError, asyncio.TimeoutError, TimeoutError)):  # distinct on 3.10
        return httpx2.ReadTimeout(message)
    if isinstance(exc, (aiohttp.ClientProxyConnectionError, aiohttp.ClientHttpProxyError)):
        return httpx2.ProxyError(message)
    if isinstance(exc, aiohttp.ClientConnectorError):
        return httpx2.ConnectError(message)
    # closed without an answer, a body cut short, or an answer that is not valid HTTP
    if isinstance(
        exc, (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError, aiohttp.ClientResponseError)
    ):
        return httpx2.RemoteProtocolError(message)
    if isinstance(exc, (aiohttp.InvalidURL, aiohttp.NonHttpUrlClientError)):
        return httpx2.UnsupportedProtocol(message)
    if isinstance(exc, (aiohttp.ClientError, OSError)):
        return httpx2.ReadError(message)
    return exc


@contextlib.contextmanager
def _mapped_errors() -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        translated = _translate(exc)
        if translated is exc:
            raise
        raise translated from exc


class _Body(httpx2.AsyncByteStream):
    """An aiohttp response body as an httpx2 stream; closing it early drops the connection."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _mapped_errors():
            async for chunk in self._response.content.iter_any():
                yield chunk

    async def aclose(self) -> None:
        # a fully read body leaves its connection to the pool; a half-read one cannot be reused
        if self._response.content.at_eof():
            self._response.release()
        else:
            self._response.close()


def _running_on_asyncio() -> bool:
    import sniffio

    return sniffio.current_async_library() == "asyncio"


def _timeout(request: httpx2.Request) -> aiohttp.ClientTimeout:
    import aiohttp

    timeout = request.extensions.get("timeout") or {}
    # aiohttp's ``connect`` covers waiting for a pooled connection and opening one (httpx's ``pool``);
    # ``sock_read`` is the longest silence while reading, like httpx's ``read``. There is no write timeout.
    return aiohttp.ClientTimeout(
        total=None,
        connect=timeout.get("pool"),
        sock_connect=timeout.get("connect"),
        sock_read=timeout.get("read"),
    )


class AiohttpTransport(httpx2.AsyncBaseTransport):
    """An httpx2 transport that sends through an ``aiohttp.ClientSession`` (one per event loop).

    Args:
        max_connections: most connections open at once (aiohttp's connector ``limit``).
        fallback: builds the transport used when not running on asyncio.
    """

    def __init__(self, *, max_connections: int, fallback: Callable[[], httpx2.AsyncBaseTransport]) -> None:
        self._max_connections = max_connections
        self._fallback_factory = fallback
        self._fallback: httpx2.AsyncBaseTransport | None = None
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ssl_context: Any = None

    def _session_here(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is not None and self._loop is loop:
            return self._session
        if self._session is not None:
            self._retire(self._session)
        import aiohttp

        if self._ssl_context is None:  # httpx2's context: certifi's CAs, SSL_CERT_FILE, as before
            self._ssl_context = httpx2.create_ssl_context()
        connector = aiohttp.TCPConnector(
            limit=self._max_connections, keepalive_timeout=KEEPALIVE_EXPIRY, ssl=self._ssl_context
        )
        # httpx2 above this transport decodes bodies and keeps cookies; aiohttp must do neither
        self._session = aiohttp.ClientSession(
            connector=connector, auto_decompress=False, cookie_jar=aiohttp.DummyCookieJar()
        )
        self._loop = loop
        return self._session

    def _retire(self, session: aiohttp.ClientSession) -> None:
        """Let go of a session made on another event loop (a client reused across ``asyncio.run``)."""
        loop = self._loop
        if loop is not None and not loop.is_closed() and loop.is_running():
            asyncio.run_coroutine_threadsafe(session.close(), loop)
            return
        connector = session.connector
        session.detach()
        if connector is not None:
            connector._close()  # the loop is gone: only mark it closed (no transport left to close)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if not _running_on_asyncio():
            if self._fallback is None:
                self._fallback = self._fallback_factory()
            return await self._fallback.handle_async_request(request)
        import yarl

        session = self._session_here()
        headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() != "transfer-encoding"]
        data: Any
        try:
            data = request.content or None
        except httpx2.RequestNotRead:
            data = request.stream  # an async byte stream: aiohttp sends it chunked
        with _mapped_errors():
            response = await session.request(
                request.method,
                yarl.URL(str(request.url), encoded=True),
                headers=headers,
                data=data,
                allow_redirects=False,
                timeout=_timeout(request),
                server_hostname=request.extensions.get("sni_hostname"),
            )
        extensions: dict[str, Any] = {"http_version": b"HTTP/1.1"}
        if response.reason:
            extensions["reason_phrase"] = response.reason.encode("latin-1", "replace")
        return httpx2.Response(
            response.status,
            headers=list(response.raw_headers),
            stream=_Body(response),
            request=request,
            extensions=extensions,
        )

    async def aclose(self) -> None:
        if self._session is not None:
            session, self._session = self._session, None
            if self._loop is asyncio.get_running_loop():
                await session.close()
            else:
                self._retire(session)
        if self._fallback is not None:
            await self._fallback.aclose()
