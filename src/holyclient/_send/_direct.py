"""The async wire on aiohttp: an attempt sent on the session of holyclient's own transport, without httpx2.

On loopback a request's CPU went mostly to the layers between the pipeline and the socket: httpx2
building a request (URL parsing, header objects), its client (auth, redirects, cookies, hooks) and the
answer read a second time through the transport adapter -- more than aiohttp's whole request. An
attempt needs none of that to reach the wire: :class:`DirectWire` sends from what the pipeline prepared
(the attempt's key, identity headers and default query: :meth:`~._steps.Prepared.url`,
:meth:`~._steps.Prepared.wire_headers`) through the transport's own wire step
(:func:`holyclient._http._aiohttp.send`: the same timeouts and error mapping as a request through
httpx2) and reads the body once. Every async attempt of a client -- resource calls, the batch runner's,
a Router target's -- takes it through :meth:`~._pipeline.Pipeline.asend`; the httpx2 objects an error,
``with_raw_response`` or a type other than a model needs are built only then
(:meth:`~._steps.Exchange.httpx`, an error translated against :meth:`~._steps.Prepared.request`).

It sends by itself only where that changes nothing: holyclient's own HTTP client (no caller's client,
whose hooks, auth and mounts must see the request), on the aiohttp transport, on asyncio, a JSON body
or none, not a stream, not in raw-response mode, no cookie in the client's jar. Anything else goes
through httpx2; a redirect answer is handed to httpx2, which follows it by its own rules. A ``Set-Cookie`` answer is kept in the client's jar as httpx2 keeps it, and
the next requests carrying the cookie go through httpx2.
"""

from __future__ import annotations

import asyncio
import json
import zlib
from typing import TYPE_CHECKING, Any

from .._core import NOT_GIVEN
from .._http import aiohttp_transport_of, default_timeout, own_cookie_jar, request_timeout
from ._steps import Exchange, asent, clean_failure

if TYPE_CHECKING:
    from ._steps import PipelineClient, Prepared

__all__ = ["Answer", "DirectWire"]

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
    """A response read whole off the wire: status, headers, the decoded body (and the body as it came,
    from which :meth:`httpx` builds httpx2's response when one is asked for)."""

    #: ``__dict__``: a caller may mark an answer as it marks httpx2's (a Router names its target on it)
    __slots__ = ("__dict__", "content", "headers", "raw", "status_code")

    def __init__(self, status: int, headers: Any, content: bytes, raw: bytes | None = None) -> None:
        self.status_code = status
        self.headers = headers
        self.content = content
        self.raw: bytes | None = content if raw is None else raw

    def cleaned(self, content: bytes) -> None:
        """The body with something cut out (an echoed key): what came off the wire is no longer it."""
        self.content = content
        self.raw = None

    def httpx(self, request: Any) -> Any:
        """This answer as an ``httpx2.Response`` to ``request`` (httpx2 decodes the body as it came)."""
        import httpx2

        headers = list(self.headers.items())
        if self.raw is None:  # cleaned after decoding: the body is no longer in its encoding
            headers = [(name, value) for name, value in headers if name.lower() != "content-encoding"]
        return httpx2.Response(
            self.status_code,
            headers=headers,
            content=self.content if self.raw is None else self.raw,
            request=request,
        )


class DirectWire:
    """The wire of one pipeline on aiohttp (see the module docstring)."""

    __slots__ = ("_http", "_jar", "_loop", "_timeouts", "_transport", "_wire")

    def __init__(self) -> None:
        self._wire: Any = (
            None  # holyclient._http._aiohttp, imported on the first request (it imports aiohttp)
        )
        self._http: Any = None  # the HTTP client last looked at, and the aiohttp transport under it
        self._transport: Any = None
        self._jar: Any = None  # the cookie jar of that client
        self._loop: Any = None  # the event loop last found to be asyncio's (a loop's tasks all are)
        #: The aiohttp timeouts of each timeout setting met, keyed by the setting (a number) or its
        #: identity, the setting kept beside them so that its ``id`` cannot be reused while cached.
        self._timeouts: dict[Any, tuple[Any, dict[str, float | None]]] = {}

    def transport(self, http: Any) -> Any:
        """The aiohttp transport ``http`` sends on, when holyclient made ``http`` for itself; else ``None``."""
        if http is not self._http:
            self._jar = own_cookie_jar(http)  # only the async clients holyclient made have one
            self._transport = aiohttp_transport_of(http) if self._jar is not None else None
            self._http = http
        return self._transport

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

    def _timeout(self, client: PipelineClient, timeout: Any) -> dict[str, float | None]:
        """The aiohttp timeouts of a request: its own ``timeout``, else its client's as it is now (a
        client's ``timeout`` may be reassigned)."""
        setting = client.timeout if timeout is NOT_GIVEN else timeout
        key = setting if isinstance(setting, (int, float)) else id(setting)
        known = self._timeouts.get(key)
        if known is not None and (known[0] is setting or isinstance(setting, (int, float))):
            return known[1]
        connect, read, write, pool = request_timeout(default_timeout(setting))
        timeouts = {"connect": connect, "read": read, "write": write, "pool": pool}
        if len(self._timeouts) >= 64:  # per-call timeouts that vary: keep the cache bounded
            self._timeouts.clear()
        self._timeouts[key] = (setting, timeouts)
        return timeouts

    def takes(self, prepared: Prepared) -> Any:
        """The transport to send ``prepared`` on by itself, or ``None`` (then it goes through httpx2)."""
        options = prepared.options
        if options.stream or options.content is not None:
            return None
        client = prepared.pipeline.client
        http = client._http
        transport = self._transport if http is self._http else self.transport(http)
        # raw responses wrap httpx2's own response; httpx2 sends the jar's cookies
        if transport is None or client._response_cls is not None or self._jar.held:
            return None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # trio's own loop
            return None
        return transport if loop is self._loop or self.usable() else None

    async def send(self, prepared: Prepared, transport: Any) -> Exchange:
        """Send ``prepared`` on ``transport``'s session (a redirect is followed by httpx2).

        Raises:
            APIConnectionError: (or ``APITimeoutError``) when no answer was obtained.
        """
        options, pipeline = prepared.options, prepared.pipeline
        wire = self._wire
        if wire is None:
            from .._http import _aiohttp as wire

            self._wire = wire
        body = options.body if options.method != "GET" else None
        # outside the wire: a body that is not JSON fails the request (as httpx2's would), unretried
        data = b"" if body is None else _JSON.encode(body).encode()
        timeouts = self._timeout(pipeline.client, options.timeout)
        url = pipeline.url(options)
        headers = pipeline.wire_headers(prepared.key, options.extra_headers, json=body is not None)
        tls = transport.tls(url) if url.startswith("https:") else True  # plain http: aiohttp's default
        try:
            session = transport.current_session() or await transport.session()
            response = await wire.send(session, options.method, url, headers, data, timeouts, tls=tls)
            try:  # the whole body, once; the connection goes back to the pool
                raw = await response.read()
            finally:
                response.release()
            encoding = response.headers.get("Content-Encoding", "").lower()
            content = _decoded(raw, encoding) if encoding in _DECODERS else raw
        except Exception as exc:  # the library's errors, translated (redacted) outside this block
            failure: BaseException | None = clean_failure(wire.translated(exc), prepared.request)
        else:
            failure = None
        if failure is not None:
            raise failure
        status, answered = response.status, response.headers
        exchange = Exchange(prepared, Answer(status, answered, content, raw))
        if "Set-Cookie" in answered:  # kept as httpx2 keeps it: the next requests carry it
            prepared.pipeline.client._http.cookies.extract_cookies(exchange.httpx()[1])
        if status in _REDIRECTS and "Location" in answered:
            return await _followed(exchange)
        return exchange


async def _followed(exchange: Exchange) -> Exchange:
    """A redirect followed by the HTTP client from the answer already read, by httpx2's rules (a 303 as
    a GET, no ``Authorization`` to another host, its redirect limit), as its own send would have."""
    http = exchange.prepared.pipeline.client._http
    request, response = exchange.httpx()
    moved = http._build_redirect_request(request, response)  # httpx2's one place for those rules
    answer = await asent(lambda: http.send(moved), lambda: moved)
    answer.history = [response, *answer.history]
    return Exchange(exchange.prepared, answer, answer)
