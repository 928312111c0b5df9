"""The default async transport: httpx2 requests sent by aiohttp's connection pool.

The async client keeps httpx2's ``AsyncClient`` on top (request building, redirects, cookies, decoding,
``MockTransport`` in tests) and hands the wire to aiohttp, whose asyncio-native pool costs a fraction of
httpcore2's per request: measured against the local server at concurrency 64, 455 µs of CPU per request
for aiohttp against 2,470 µs for httpx2 (``benchmarks/bench_client.py``). A batch of thousands of
requests is CPU-bound on the client long before the server is busy; this is what keeps its event loop
free to start the next request the moment a slot opens.

aiohttp runs on asyncio only. Under another async library (trio) the request goes through the
``fallback`` transport instead. aiohttp is imported on the first request, not with the package.

Timeouts follow httpx's meaning, which aiohttp's own do not all cover: ``pool`` bounds the wait for a
free connection, ``connect`` bounds opening one *including DNS resolution* (as httpcore does), ``write``
bounds each write of the body (aiohttp has no write timeout: a peer that never reads would stall a
request forever), ``read`` each wait for the answer. The first three share one ``asyncio.timeout`` per
request whose deadline moves with the phase (:class:`_Phase`); ``read`` is aiohttp's ``sock_read``.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import AsyncIterable, AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import httpx2

from ._aiohttp_errors import translated
from ._sessions import LoopSessions

if TYPE_CHECKING:
    import aiohttp

#: Seconds an idle connection stays in the pool (httpx's default keep-alive expiry).
KEEPALIVE_EXPIRY = 5.0
#: Bodies larger than this are handed to aiohttp in slices of this size, so that the write timeout sees
#: each one go out; a smaller body fits the transport's buffer (aiohttp waits to drain above 64 KiB).
WRITE_SLICE = 64 * 1024


class _Phase:
    """Which bounded phase a request is in (``pool``, ``connect``, ``write``) and its moving deadline.

    One per request, reachable from the connector through a context variable (the connector is shared
    by every request, the deadline is not). Outside those phases the deadline is off and aiohttp's
    ``sock_read`` bounds the wait for the answer. When the deadline passes, the task sending the
    request is cancelled and the cancellation turned into the phase's timeout: what ``asyncio.timeout``
    does, but its deadline is bound to the task that entered it, and aiohttp writes the body from
    another task.
    """

    __slots__ = ("_handle", "_task", "expired", "name", "timeouts")

    def __init__(self, timeouts: dict[str, float | None]) -> None:
        self.name: str | None = None
        self.timeouts = timeouts
        self.expired = False
        self._task: asyncio.Task[Any] | None = None
        self._handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        self._task = asyncio.current_task()

    def stop(self) -> None:
        """The request has its answer (or failed): no phase applies any more."""
        self._task = None
        self.timeouts = {}  # a body still being written arms no deadline any more
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def enter(self, name: str | None) -> None:
        self.name = name
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        seconds = self.timeouts.get(name) if name is not None else None
        if seconds is not None:  # the connector runs in the request's task (a watched body started it)
            self._task = self._task or asyncio.current_task()
            self._handle = asyncio.get_running_loop().call_later(seconds, self._expire)

    def _expire(self) -> None:
        if self._task is not None:
            self.expired = True
            self._task.cancel()

    def timed_out(self) -> bool:
        """Whether a cancellation was ours; if so it is consumed (``uncancel``) so it reads as a timeout."""
        if not self.expired:
            return False
        uncancel = getattr(self._task or asyncio.current_task(), "uncancel", None)
        if uncancel is not None:  # Python 3.11+: keep the task's cancellation count balanced
            uncancel()
        return True

    def error(self, message: str) -> Exception:
        kind = {"pool": httpx2.PoolTimeout, "connect": httpx2.ConnectTimeout, "write": httpx2.WriteTimeout}
        return kind.get(self.name or "", httpx2.ReadTimeout)(message)


_PHASE: contextvars.ContextVar[_Phase | None] = contextvars.ContextVar(
    "holyclient_aiohttp_phase", default=None
)


async def _sliced(data: bytes) -> AsyncIterator[memoryview]:
    view = memoryview(data)
    for start in range(0, len(view), WRITE_SLICE):
        yield view[start : start + WRITE_SLICE]


async def _watched(body: AsyncIterable[Any], phase: _Phase) -> AsyncIterator[Any]:
    """The body, restarting the write deadline each time aiohttp asks for the next piece."""
    async for piece in body:
        phase.enter("write")
        yield piece
    phase.enter(None)  # all written: from here on, the read timeout


class _Body(httpx2.AsyncByteStream):
    """An aiohttp response body as an httpx2 stream; closing it early drops the connection."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.content.iter_any():
                yield chunk
        except Exception as exc:  # as httpx2's (not a context manager: this runs for every answer)
            mapped = translated(exc)
            if mapped is exc:
                raise
            raise mapped from exc

    async def aclose(self) -> None:
        # a fully read body leaves its connection to the pool; a half-read one cannot be reused
        if self._response.content.at_eof():
            self._response.release()
        else:
            self._response.close()


async def send(
    session: aiohttp.ClientSession,
    method: str,
    url: str,
    headers: Any,
    content: bytes | AsyncIterable[bytes],
    timeouts: dict[str, float | None],
    *,
    sni_hostname: str | None = None,
    tls: Any = True,
) -> aiohttp.ClientResponse:
    """Send one request on ``session`` under httpx's four timeouts; errors come out as httpx2's.

    The transport's wire step, also used as is by the async client's direct wire
    (:mod:`holyclient._send._direct`), so that both send, time out and fail the same way. ``tls``: what
    secures an https request (:meth:`AiohttpTransport.tls`).
    """
    phase = _Phase(timeouts)
    data: Any
    if isinstance(content, bytes) and len(content) <= WRITE_SLICE:
        data = content or None  # written at once: the connector starts the phase's clock if it waits
    else:  # written by aiohttp's own task, in pieces: the deadline cancels this request's task
        # a large body goes out in slices, so that a peer that stops reading trips the write timeout
        data = _watched(_sliced(content) if isinstance(content, bytes) else content, phase)
        phase.start()
    token = _PHASE.set(phase)
    try:
        try:
            return await session.request(
                method,
                _url(url),
                headers=headers,
                data=data,
                allow_redirects=False,
                timeout=_client_timeout(timeouts.get("connect"), timeouts.get("read")),
                server_hostname=sni_hostname,
                ssl=tls,
            )
        except Exception as exc:  # as httpx2's
            mapped = translated(exc)
            if mapped is exc:
                raise
            raise mapped from exc
    except (asyncio.CancelledError, Exception):  # whatever our cancellation became inside aiohttp
        if not phase.timed_out():
            raise
        raise phase.error(f"{phase.name} timeout for {method} {url}") from None
    finally:
        if phase._task is not None:  # a deadline was armed, or a body is still being written
            phase.stop()
        _PHASE.reset(token)


async def read_body(response: aiohttp.ClientResponse) -> bytes:
    """The whole body (errors as httpx2's); the connection goes back to the pool."""
    try:
        return await response.read()
    except Exception as exc:  # as httpx2's
        mapped = translated(exc)
        if mapped is exc:
            raise
        raise mapped from exc
    finally:
        response.release()


def _running_on_asyncio() -> bool:
    import sniffio

    return sniffio.current_async_library() == "asyncio"


@functools.lru_cache(maxsize=64)
def _client_timeout(connect: float | None, read: float | None) -> aiohttp.ClientTimeout:
    """aiohttp's timeouts for httpx's ``connect`` and ``read`` (cached: a batch sends thousands of
    requests with the same two, and building the frozen dataclass was a visible share of its CPU)."""
    import aiohttp

    # The wait for a pooled connection and the opening of one (DNS included) are bounded by our own
    # deadline (see ``_Connector``); aiohttp's ``connect`` would lump both into one budget. Its
    # ``sock_read`` is the longest silence while reading, like httpx's ``read``.
    return aiohttp.ClientTimeout(total=None, connect=None, sock_connect=connect, sock_read=read)


@functools.lru_cache(maxsize=256)
def _url(url: str) -> Any:
    """The URL as aiohttp's ``yarl.URL``, already encoded (cached: a batch posts to one or two URLs)."""
    import yarl

    return yarl.URL(url, encoded=True)


def _connector_class() -> type[aiohttp.TCPConnector]:
    import aiohttp

    class _Connector(aiohttp.TCPConnector):
        """A connector that tells the request's :class:`_Phase` when it waits for a free connection
        (``pool``) and when it opens one (``connect``, from DNS resolution to the end of TLS, as in
        httpcore). aiohttp's ``sock_connect`` starts after the host is resolved: a stalled resolver was
        bounded only by the pool timeout (600 s by default), and reported as a connect timeout.
        """

        if hasattr(aiohttp.TCPConnector, "_wait_for_available_connection"):  # aiohttp 3.11 and later

            async def _wait_for_available_connection(self, key: Any, traces: Any) -> None:
                # only while the pool is full: a request that finds a free connection arms no deadline
                phase = _PHASE.get()
                if phase is not None:
                    phase.enter("pool")  # left set on failure: the error is named after it
                await super()._wait_for_available_connection(key, traces)
                if phase is not None:
                    phase.enter(None)

        else:  # pragma: no cover  # an older aiohttp waits for a free connection inside connect()

            async def connect(self, req: Any, traces: Any, timeout: Any) -> Any:
                phase = _PHASE.get()
                if phase is not None:
                    phase.enter("pool")
                connection = await super().connect(req, traces, timeout)
                if phase is not None:
                    phase.enter(None)
                return connection

        async def _create_connection(self, req: Any, traces: Any, timeout: Any) -> Any:
            phase = _PHASE.get()
            if phase is not None:
                phase.enter("connect")  # left set on failure: the error is named after it
            result = await super()._create_connection(req, traces, timeout)
            if phase is not None:
                phase.enter(None)
            return result

    return _Connector


class AiohttpTransport(httpx2.AsyncBaseTransport):
    """An httpx2 transport that sends through an ``aiohttp.ClientSession`` (one per event loop).

    Args:
        max_connections: most connections open at once (aiohttp's connector ``limit``).
        fallback: builds the transport used when not running on asyncio.
        resolver: an ``aiohttp`` resolver (tests inject a slow one); aiohttp's default otherwise.
    """

    def __init__(
        self,
        *,
        max_connections: int,
        fallback: Callable[[], httpx2.AsyncBaseTransport],
        resolver: Any = None,
    ) -> None:
        self._max_connections = max_connections
        self._fallback_factory = fallback
        self._fallback: httpx2.AsyncBaseTransport | None = None
        self._resolver = resolver
        self._ssl_context: Any = None
        self._making_tls = threading.Lock()
        self._sessions = LoopSessions(self._new_session)

    def tls(self, url: str) -> Any:
        """What secures a request to ``url``: for https, httpx2's TLS context (certifi's CAs,
        ``SSL_CERT_FILE``), made on the first https request -- loading the CAs costs as much CPU as about
        forty loopback requests, and a plain-http server (a local relay, ``holyclient serve``) needs
        none; otherwise aiohttp's default (``True``), which plain http never uses."""
        if not url.startswith("https:"):
            return True
        if self._ssl_context is None:
            with self._making_tls:
                if self._ssl_context is None:
                    self._ssl_context = httpx2.create_ssl_context()
        return self._ssl_context

    def _new_session(self) -> aiohttp.ClientSession:
        import aiohttp

        # TLS per request (:meth:`tls`): each https request is given httpx2's context
        connector = _connector_class()(
            limit=self._max_connections, keepalive_timeout=KEEPALIVE_EXPIRY, resolver=self._resolver
        )
        # httpx2 above this transport decodes bodies and keeps cookies; aiohttp must do neither
        return aiohttp.ClientSession(
            connector=connector, auto_decompress=False, cookie_jar=aiohttp.DummyCookieJar()
        )

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if not _running_on_asyncio():
            if self._fallback is None:
                self._fallback = self._fallback_factory()
            return await self._fallback.handle_async_request(request)
        session = await self.session()
        headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() != "transfer-encoding"]
        try:
            content: Any = request.content
        except httpx2.RequestNotRead:
            content = request.stream  # async: aiohttp sends it chunked
        url = str(request.url)
        response = await send(
            session,
            request.method,
            url,
            headers,
            content,
            request.extensions.get("timeout") or {},
            sni_hostname=request.extensions.get("sni_hostname"),
            tls=self.tls(url),
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

    def ready(self) -> None:
        """Load now what a loop's first request loads (aiohttp, the TLS context): a traced first call
        then times the wire, not the imports (see ``Pipeline.ready``)."""
        import aiohttp  # noqa: F401

        _running_on_asyncio()
        self.tls("https:")

    def current_session(self) -> aiohttp.ClientSession | None:
        """This event loop's session if it was made (no coroutine: the wire's common case)."""
        return self._sessions.current()

    async def session(self) -> aiohttp.ClientSession:
        """This event loop's session (made on first use): for a step that sends on the wire itself."""
        return self._sessions.current() or await self._sessions.here()

    async def aclose(self) -> None:
        await self._sessions.close()
        if self._fallback is not None:
            await self._fallback.aclose()
