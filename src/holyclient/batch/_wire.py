"""The batch runner's direct path: its POSTs sent straight on the client's aiohttp session.

On a fast endpoint (embeddings answer in milliseconds) the client's CPU is the limit, and most of it
went to the layers between the runner and the socket: httpx2 building a request (URL parsing,
header objects), its client (auth, redirects, cookies) and the response stream re-read through
an adapter. A batch request needs none of that -- one URL per endpoint, headers fixed for the run,
a JSON body -- so :class:`DirectSender` builds each request's headers once and sends through the
transport's own wire step (:func:`holyclient._http._aiohttp.send`, the same timeouts and error mapping as
every other call). The guarantees are the client's own, on the rare paths that need them: an error
is translated by :func:`~holyclient._http._transport.translate_error` (redacted, key-free) against an httpx2
request built only then; a status error or an unreadable answer is judged on an httpx2 response
built only then, by the client's own code (``Retry-After`` included).

It is used only where it changes nothing else: the client's own pool on the aiohttp transport,
running on asyncio, no proxy mounted. Anything else goes through ``client._send_raw``, and so does an
attempt answered with a redirect (sent again through httpx2, which follows redirects as every call does).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._core._request import NOT_GIVEN, RequestOptions, build_headers
from .._http._transport import default_timeout, request_timeout, translate_error
from .._send._attempts import mark_never_sent

if TYPE_CHECKING:
    from .._client._client import AsyncClient

_DECODERS = {"gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def _decoded(content: bytes, encoding: str) -> bytes:
    import httpx2

    try:
        return zlib.decompress(content, _DECODERS[encoding])
    except zlib.error as exc:  # as httpx2 reports it (then translated like any error while reading)
        raise httpx2.DecodingError(f"Failed to decode {encoding} content: {exc}") from None


class Answer:
    """A response as the runner reads it: status, headers, the whole body; httpx2 objects on demand."""

    __slots__ = ("_sender", "content", "headers", "options", "status_code")

    def __init__(
        self, sender: DirectSender, options: RequestOptions, status: int, headers: Any, content: bytes
    ) -> None:
        self._sender = sender
        self.options = options
        self.status_code = status
        self.headers = headers
        self.content = content

    def httpx(self) -> tuple[Any, Any]:
        """``(request, response)`` as httpx2 objects, for the client's error and parsing code."""
        import httpx2

        request = self._sender.request(self.options)
        response = httpx2.Response(
            self.status_code, headers=list(self.headers.items()), content=self.content, request=request
        )
        return request, response


class DirectSender:
    """Sends a client's batch requests on its aiohttp session (see the module docstring)."""

    def __init__(self, client: AsyncClient, transport: Any) -> None:
        self.client = client
        self._transport = transport
        headers = build_headers(client.api_key, client.default_headers, None)
        headers = {"Accept-Encoding": "gzip, deflate", **headers, "Content-Type": "application/json"}
        self._headers = list(headers.items())
        self._timeouts: dict[Any, dict[str, float | None]] = {}

    @classmethod
    def for_client(cls, client: AsyncClient) -> DirectSender | None:
        """A sender for ``client``, or ``None`` when its requests must go through httpx2."""
        from .._client._client import AsyncClient
        from .._http._aiohttp import AiohttpTransport

        if type(client)._send_raw is not AsyncClient._send_raw:
            return None  # a subclass that sends its own way (timing, routing) keeps doing so
        http = client._http
        transport = getattr(http, "_transport", None)
        if (
            not client._owns_http
            or not isinstance(transport, AiohttpTransport)
            or getattr(http, "_mounts", None)
        ):
            return None
        return cls(client, transport)

    @staticmethod
    def usable() -> bool:
        """Whether this task runs on asyncio (aiohttp's only loop; trio goes through httpx2)."""
        import sniffio

        return sniffio.current_async_library() == "asyncio"

    def _timeout(self, options: RequestOptions) -> dict[str, float | None]:
        key = options.timeout if isinstance(options.timeout, (int, float)) else id(options.timeout)
        timeouts = self._timeouts.get(key)
        if timeouts is None:
            timeout = (
                self.client.timeout if options.timeout is NOT_GIVEN else default_timeout(options.timeout)
            )
            connect, read, write, pool = request_timeout(timeout)
            timeouts = {"connect": connect, "read": read, "write": write, "pool": pool}
            self._timeouts[key] = timeouts
        return timeouts

    def request(self, options: RequestOptions) -> Any:
        """The httpx2 request ``options`` stand for (errors carry it, redacted)."""
        return self.client._build_request(options)

    async def send(self, options: RequestOptions, body: Mapping[str, Any]) -> Answer:
        """POST ``body``; the whole answer, whatever its status.

        Raises:
            APIConnectionError: (or ``APITimeoutError``) when no answer was obtained, as from ``_send_raw``.
        """
        from .._http._aiohttp import read_body, send

        url = self.client.base_url + options.path
        # outside the ``try``: a body that is not JSON fails the request (as httpx2's would), unretried
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        try:
            session = self._transport._sessions.current() or await self._transport._sessions.here()
            response = await send(session, "POST", url, self._headers, data, self._timeout(options))
            content = await read_body(response)
            encoding = response.headers.get("Content-Encoding", "").lower()
            if encoding in _DECODERS:
                content = _decoded(content, encoding)
        except Exception as exc:
            error: BaseException | None = mark_never_sent(translate_error(exc, self.request(options)), exc)
        else:
            error = None
        if error is not None:  # raised outside ``except``: the library error (and its key) is not chained
            raise error
        return Answer(self, options, response.status, response.headers, content)
