"""The batch runner's fast path: a :class:`~holyclient._steps.SendStep` that sends its POSTs on the
client's aiohttp session.

On a fast endpoint (embeddings answer in milliseconds) the client's CPU is the limit, and most of it
went to the layers between the runner and the socket: httpx2 building a request (URL parsing,
header objects), its client (auth, redirects, cookies) and the response stream re-read through
an adapter. A batch request needs none of that -- one URL per endpoint, a JSON body -- so
:class:`DirectWire` sends from what the pipeline prepared (the attempt's key, identity headers and
default query: :meth:`~holyclient._steps.Prepared.url`, :meth:`~holyclient._steps.Prepared.wire_headers`,
cached per key) through the transport's own wire step (:func:`holyclient._http._aiohttp.send`, the same
timeouts and error mapping as every other call). Everything else -- budget, key provider, limiter,
error translation, usage -- is the pipeline's, as for any call. An error is translated (redacted,
key-free) against an httpx2 request built only then; a status error or an unreadable answer is judged
on an httpx2 response built only then (:meth:`~holyclient._steps.Exchange.httpx`).

It sends by itself only where that changes nothing else: a JSON POST, the client's own pool on the
aiohttp transport, on asyncio, no proxy mounted. Anything else goes on down the chain (httpx2), and so
does an attempt answered with a redirect httpx2 follows (sent again through httpx2, which follows it).
"""

from __future__ import annotations

import asyncio
import json
import zlib
from typing import TYPE_CHECKING, Any

from .._core import NOT_GIVEN
from .._http import aiohttp_transport_of, default_timeout, request_timeout
from .._send import Exchange, asent, http_client_of, owns_pool

if TYPE_CHECKING:
    from .._send import AsyncSend, Prepared, Preparer

_DECODERS = {"gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}
#: The answers httpx2 follows (given a ``Location``): only these are sent again through it. Any other
#: 3xx (300, 304, a 307 without ``Location``) is the answer, as httpx2 would leave it: a POST sent again
#: may be processed, and billed, again.
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
#: ``json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)`` (httpx2's body) without
#: building an encoder per request.
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _decoded(content: bytes, encoding: str) -> bytes:
    import httpx2

    try:
        return zlib.decompress(content, _DECODERS[encoding])
    except zlib.error as exc:  # as httpx2 reports it (then translated like any error while reading)
        raise httpx2.DecodingError(f"Failed to decode {encoding} content: {exc}") from None


class Answer:
    """A response as the runner reads it: status, headers, the whole body."""

    __slots__ = ("content", "headers", "status_code")

    def __init__(self, status: int, headers: Any, content: bytes) -> None:
        self.status_code = status
        self.headers = headers
        self.content = content


class DirectWire:
    """The fast path as a send step (see the module docstring); one per runner, for every client it meets
    (a Router's targets each have their own pipeline and session)."""

    def __init__(self) -> None:
        self._wire: Any = (
            None  # holyclient._http._aiohttp, imported on the first request (it imports aiohttp)
        )
        self._transports: dict[int, tuple[Preparer, Any]] = {}
        self._loop: Any = None  # the event loop last found to be asyncio's (a loop's tasks all are)
        #: The aiohttp timeouts of each timeout setting met, keyed by the setting (a number) or its
        #: identity, the setting kept beside them so that its ``id`` cannot be reused while cached.
        self._timeouts: dict[Any, tuple[Any, dict[str, float | None]]] = {}

    def transport(self, pipeline: Preparer) -> Any:
        """The aiohttp transport ``pipeline``'s requests may be sent on, or ``None``."""
        known = self._transports.get(id(pipeline))
        if known is None or known[0] is not pipeline:
            client = pipeline.client
            transport = aiohttp_transport_of(http_client_of(client)) if owns_pool(client) else None
            known = self._transports[id(pipeline)] = (pipeline, transport)
        return known[1]

    def usable(self) -> bool:
        """Whether this task runs on asyncio (aiohttp's only loop; trio goes through httpx2): asked of
        sniffio once per event loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # trio's own loop
            return False
        if loop is self._loop:
            return True
        import sniffio

        if sniffio.current_async_library() != "asyncio":
            return False
        self._loop = loop
        return True

    def _timeout(self, pipeline: Preparer, timeout: Any) -> dict[str, float | None]:
        """The aiohttp timeouts of a request: its own ``timeout``, else its client's as it is now (a
        client's ``timeout`` may be reassigned between runs)."""
        setting = pipeline.client.timeout if timeout is NOT_GIVEN else timeout
        key = setting if isinstance(setting, (int, float)) else id(setting)
        known = self._timeouts.get(key)
        if known is not None and (known[0] is setting or isinstance(setting, (int, float))):
            return known[1]
        connect, read, write, pool = request_timeout(default_timeout(setting))
        timeouts = {"connect": connect, "read": read, "write": write, "pool": pool}
        self._timeouts[key] = (setting, timeouts)
        return timeouts

    async def __call__(self, prepared: Prepared, send: AsyncSend) -> Exchange:
        """Send a JSON POST on the session; anything else, or a redirect, down the chain.

        Raises:
            APIConnectionError: (or ``APITimeoutError``) when no answer was obtained.
        """
        options = prepared.options
        transport = self.transport(prepared.pipeline)
        if (
            transport is None
            or options.method != "POST"
            or options.stream
            or options.content is not None
            or not self.usable()
        ):
            return await send(prepared)
        wire = self._wire
        if wire is None:
            from .._http import _aiohttp as wire

            self._wire = wire
        # outside the wire: a body that is not JSON fails the request (as httpx2's would), unretried
        data = _JSON.encode(options.body or {})
        timeouts = self._timeout(prepared.pipeline, options.timeout)

        async def exchange() -> tuple[Any, bytes]:
            session = await transport.session()
            url = prepared.url()
            response = await wire.send(
                session, "POST", url, prepared.wire_headers(), data.encode(), timeouts, tls=transport.tls(url)
            )
            content = await wire.read_body(response)
            encoding = response.headers.get("Content-Encoding", "").lower()
            return response, _decoded(content, encoding) if encoding in _DECODERS else content

        response, content = await asent(exchange, prepared.request)  # the library's errors translated
        if response.status in _REDIRECTS and "Location" in response.headers:  # httpx2 follows it
            return await send(prepared)
        return Exchange(prepared, Answer(response.status, response.headers, content))
