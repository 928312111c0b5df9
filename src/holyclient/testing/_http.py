"""A minimal, strict HTTP/1.1 server protocol on ``asyncio.Protocol``.

Why not ``asyncio`` streams or a framework: the local server must never be the bottleneck of a
benchmark, and a ``Protocol`` lets a response that needs no waiting be written straight from
``data_received`` -- no task, no reader/writer pair per request. Only when a handler has to wait
(latency, faults, paced streams) does the connection start a task, and it stops parsing further
pipelined requests until that task is done, so responses always leave in request order.

Supported: keep-alive (HTTP/1.1 default, ``Connection: close``, HTTP/1.0 opt-in), ``Content-Length``
and ``chunked`` request bodies, ``Expect: 100-continue``, pipelining, back-pressure in both
directions. Anything ambiguous (both framings, bad lengths, folded headers) is answered 400 and the
connection closed, which is what a strict origin server does.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from http import HTTPStatus
from typing import Any

from ._http_parse import MAX_HEAD_BYTES, ProtocolError, Request, content_length, parse_chunked, parse_head

logger = logging.getLogger("holyclient.testing")

#: While a handler task runs, stop reading once this much pipelined input is buffered.
_PAUSE_READING_AT = 1024 * 1024

REASONS: dict[int, bytes] = {s.value: s.phrase.encode("latin-1") for s in HTTPStatus}

Handler = Callable[["Request", "HTTPConnection"], "Coroutine[Any, Any, None] | None"]


class HTTPConnection(asyncio.Protocol):
    """One client connection: parses requests and offers the write API handlers use."""

    def __init__(
        self,
        handler: Handler,
        on_open: Callable[[HTTPConnection], None] | None = None,
        on_close: Callable[[HTTPConnection], None] | None = None,
        next_id: Callable[[], str] | None = None,
    ) -> None:
        self._handler = handler
        self._next_id = next_id
        self._on_open = on_open
        self._on_close = on_close
        self._buf = bytearray()
        self._pending: Request | None = None
        self._pending_chunked = False
        self._pending_length = 0
        self._task: asyncio.Task[None] | None = None
        self._reading_paused = False
        self._writing_paused = False
        self._drain_waiter: asyncio.Future[None] | None = None
        self._stream_chunked = True
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self._eof = False  # kept for debugging: the peer half-closed

    # -- asyncio.Protocol -------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        if self._on_open is not None:
            self._on_open(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self._task is not None and not self._task.done():
            self._task.cancel()  # a client that gave up must not keep a hang or a sleep alive
        waiter = self._drain_waiter
        if waiter is not None and not waiter.done():
            waiter.set_exception(ConnectionResetError("connection lost"))
        if self._on_close is not None:
            self._on_close(self)

    def data_received(self, data: bytes) -> None:
        if self.closed:
            return
        self._buf += data
        if self._task is None:
            self._process()
        elif len(self._buf) > _PAUSE_READING_AT and not self._reading_paused and self.transport:
            self._reading_paused = True
            self.transport.pause_reading()

    def eof_received(self) -> bool | None:
        # A client that half-closes has given up (a timed-out client, a killed process): returning
        # None closes the transport, and connection_lost cancels any hang or sleep in progress.
        self._eof = True
        return None

    def pause_writing(self) -> None:
        self._writing_paused = True

    def resume_writing(self) -> None:
        self._writing_paused = False
        waiter = self._drain_waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # -- request loop -----------------------------------------------------------------------------
    def _process(self) -> None:
        while not self.closed:
            try:
                request = self._next_request()
            except ProtocolError as exc:
                self._protocol_error(exc)
                return
            if request is None:
                return
            try:
                result = self._handler(request, self)
            except Exception:  # a bug or a failing user hook: answer 500 rather than kill the loop
                logger.exception("local server handler failed")
                self._protocol_error(ProtocolError(500, "the local server failed to handle the request"))
                return
            if result is not None:
                self._task = asyncio.get_running_loop().create_task(result)
                self._task.add_done_callback(self._task_done)
                return

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._task = None
        if not task.cancelled() and task.exception() is not None:
            logger.error("local server handler failed", exc_info=task.exception())
            self.close()
            return
        if self._reading_paused and self.transport is not None and not self.closed:
            self._reading_paused = False
            self.transport.resume_reading()
        if self._buf and not self.closed:
            self._process()

    def _next_request(self) -> Request | None:
        buf = self._buf
        if self._pending is None:
            while buf[:2] == b"\r\n":  # RFC 9112 2.2: ignore empty lines before a request line
                del buf[:2]
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > MAX_HEAD_BYTES:
                    raise ProtocolError(431, "request head too large")
                return None
            if end > MAX_HEAD_BYTES:
                raise ProtocolError(431, "request head too large")
            request = parse_head(bytes(buf[:end]))
            del buf[: end + 4]
            encoding = request.headers.get("transfer-encoding")
            if encoding is not None:
                if "content-length" in request.headers:
                    raise ProtocolError(400, "both Transfer-Encoding and Content-Length")
                if encoding.lower().replace(" ", "") != "chunked":
                    raise ProtocolError(501, "unsupported Transfer-Encoding")
                self._pending_chunked = True
            else:
                self._pending_chunked = False
                self._pending_length = content_length(request.headers)
            self._pending = request
            if request.headers.get("expect", "").lower() == "100-continue" and self.transport is not None:
                self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        request = self._pending
        if self._pending_chunked:
            parsed = parse_chunked(buf)
            if parsed is None:
                return None
            request.body, consumed = parsed
        else:
            consumed = self._pending_length
            if len(buf) < consumed:
                return None
            request.body = bytes(buf[:consumed])
        del buf[:consumed]
        self._pending = None
        return request

    def _protocol_error(self, exc: ProtocolError) -> None:
        kind = b"server_error" if exc.status >= 500 else b"invalid_request_error"
        body = (
            b'{"error":{"message":"'
            + exc.message.encode()
            + b'","type":"'
            + kind
            + b'","param":null,"code":null}}'
        )
        headers = [("Content-Type", "application/json")]
        if self._next_id is not None:
            headers.append(("x-request-id", self._next_id()))
        self.send(exc.status, headers, body, keep_alive=False)

    # -- write API used by handlers ---------------------------------------------------------------
    @staticmethod
    def _head(status: int, headers: list[tuple[str, str]]) -> bytearray:
        out = bytearray(b"HTTP/1.1 %d %s\r\n" % (status, REASONS.get(status, b"Unknown")))
        for name, value in headers:
            out += f"{name}: {value}\r\n".encode("latin-1")
        return out

    def send(self, status: int, headers: list[tuple[str, str]], body: bytes, *, keep_alive: bool) -> None:
        """Write a complete response with ``Content-Length``; close afterwards unless ``keep_alive``."""
        if self.closed or self.transport is None:
            return
        out = self._head(status, headers)
        out += b"Content-Length: %d\r\n" % len(body)
        if not keep_alive:
            out += b"Connection: close\r\n"
        out += b"\r\n"
        out += body
        self.transport.write(out)
        if not keep_alive:
            self.close()

    def send_partial(
        self, status: int, headers: list[tuple[str, str]], body: bytes, sent: int, *, close: bool = True
    ) -> None:
        """Declare the full ``Content-Length`` but write only ``sent`` bytes, then close (``close=False``:
        leave the connection open and silent, the caller closes it later)."""
        if self.closed or self.transport is None:
            return
        out = self._head(status, headers)
        out += b"Content-Length: %d\r\n\r\n" % len(body)
        out += body[:sent]
        self.transport.write(out)
        if close:
            self.close()

    def start_stream(self, status: int, headers: list[tuple[str, str]], *, chunked: bool) -> None:
        """Send the head of a streamed body: chunked (HTTP/1.1) or close-delimited (HTTP/1.0)."""
        if self.closed or self.transport is None:
            return
        self._stream_chunked = chunked
        out = self._head(status, headers)
        out += b"Transfer-Encoding: chunked\r\n\r\n" if chunked else b"Connection: close\r\n\r\n"
        self.transport.write(out)

    def send_stream(
        self,
        status: int,
        headers: list[tuple[str, str]],
        events: list[bytes],
        *,
        chunked: bool,
        complete: bool,
        keep_alive: bool,
    ) -> None:
        """Write a whole streamed response in one go: head, one chunk per event, and the end.

        With ``complete=False`` the terminating chunk is withheld and the connection closed: a stream
        cut in the middle.
        """
        if self.closed or self.transport is None:
            return
        out = self._head(status, headers)
        out += b"Transfer-Encoding: chunked\r\n\r\n" if chunked else b"Connection: close\r\n\r\n"
        for event in events:
            if chunked:
                out += b"%x\r\n%b\r\n" % (len(event), event)
            else:
                out += event
        if complete and chunked:
            out += b"0\r\n\r\n"
        self.transport.write(out)
        if not (complete and chunked and keep_alive):
            self.close()

    def send_data(self, data: bytes) -> None:
        if self.closed or self.transport is None or not data:
            return
        if self._stream_chunked:
            self.transport.write(b"%x\r\n%b\r\n" % (len(data), data))
        else:
            self.transport.write(data)

    def end_stream(self, *, keep_alive: bool) -> None:
        if self.closed or self.transport is None:
            return
        if self._stream_chunked:
            self.transport.write(b"0\r\n\r\n")
            if keep_alive:
                return
        self.close()

    async def drain(self) -> None:
        """Wait while the transport's write buffer is above its high-water mark."""
        if self.closed:
            raise ConnectionResetError("connection closed")
        if not self._writing_paused:
            return
        self._drain_waiter = asyncio.get_running_loop().create_future()
        try:
            await self._drain_waiter
        finally:
            self._drain_waiter = None

    def close(self) -> None:
        """Close after flushing what was written (a FIN, not a reset)."""
        if not self.closed and self.transport is not None:
            self.closed = True
            self.transport.close()

    def abort(self) -> None:
        if self.transport is not None:
            self.closed = True
            self.transport.abort()
