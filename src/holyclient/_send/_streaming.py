"""Streamed chat completions: ``Stream`` and ``AsyncStream`` over one shared decoder.

Both are iterators and context managers; leaving the ``with`` block (or calling ``close()``)
closes the HTTP response, so an early ``break`` does not leak a connection. Each stream is charged to
the client's usage tracker through its :class:`~holyclient.pricing._stream_usage.StreamMeter` however it ends:
read to the end, left early, cut by a dropped connection, or garbage-collected without being closed
(a finaliser settles it, so its budget reservation is not held forever).
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._core import DONE, SSEDecoder, parse_model, stream_error
from .._http import translate_error
from ._steps import clean_failure

if TYPE_CHECKING:
    from ..pricing import Outcome, StreamMeter

T = TypeVar("T")


def _watch(stream: object, meter: StreamMeter | None) -> None:
    """Settle the meter if ``stream`` is collected unclosed (never at interpreter exit: nothing to save)."""
    if meter is not None:
        weakref.finalize(stream, meter.abandon).atexit = False


def first_event(chunks: Iterator[bytes]) -> bytes:
    """The bytes up to the stream's first event, read before the stream is handed over.

    SSE comments (``: PROCESSING`` keep-alives) carry no event: reading stops at the first real one, so
    an error the server opens with is seen whatever came before it (a Router fails over on it).
    """
    probe, head = SSEDecoder(), bytearray()
    for chunk in chunks:
        head += chunk
        if probe.feed(chunk):
            break
    return bytes(head)


async def afirst_event(chunks: AsyncIterator[bytes]) -> bytes:
    """Async twin of :func:`first_event`."""
    probe, head = SSEDecoder(), bytearray()
    async for chunk in chunks:
        head += chunk
        if probe.feed(chunk):
            break
    return bytes(head)


def opening_error(stream: Any) -> Any:
    """The error a stream opens with (an ``APIStatusError``), or ``None``: an SSE error event in the bytes
    read before the caller got any.

    A relay that is overloaded may answer 200 and send ``data: {"error": ...}`` as its first event;
    nothing has reached the caller yet, so a Router can still send the request to another target
    (closing this stream with :meth:`Stream.refuse`).
    """
    first = getattr(stream, "_first", b"")
    if not first or b'"error"' not in first:
        return None
    events = SSEDecoder().feed(first)
    if not events:
        return None
    response = stream.response
    return stream_error(events[0], response, request=getattr(response, "request", None))


class ChunkDecoder(Generic[T]):
    """Sans-IO: bytes in, parsed chunks out; raises the server's error event as a status error."""

    def __init__(
        self,
        cast_to: type[T],
        response: Any,
        request: Any,
        on_chunk: Callable[[Any], None] | None = None,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self._sse = SSEDecoder()
        self._on_close = on_close
        self._cast_to = cast_to
        self._response = response
        self._request = request
        self._on_chunk = on_chunk
        self._pending: Exception | None = None
        self.done = False

    def feed(self, chunk: bytes) -> list[T]:
        self._raise_pending()
        return self._decode(self._sse.feed(chunk))

    def flush(self) -> list[T]:
        """The events left when the body ends, including a last one with no trailing newline."""
        self._raise_pending()
        return self._decode(self._sse.flush())

    def _raise_pending(self) -> None:
        error, self._pending = self._pending, None
        if error is not None:
            raise error

    def close(self) -> None:
        """Run the close hook once (it releases a budget reservation a usage chunk did not settle)."""
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()

    def _decode(self, events: list[bytes]) -> list[T]:
        items: list[T] = []
        for data in events:
            if self.done:
                break
            if data == DONE:
                self.done = True
                break
            error = stream_error(data, self._response, request=self._request)
            if error is not None:
                if not items:
                    raise error
                # chunks that arrived in the same read come first; the error on the next feed or flush
                self._pending = error
                break
            item = parse_model(self._cast_to, data, self._response, request=self._request)  # type: ignore[type-var]
            if self._on_chunk is not None:
                self._on_chunk(item)
            items.append(item)
        return items


def _observe_bytes(decoder: ChunkDecoder[Any], meter: StreamMeter | None, chunk: bytes) -> None:
    """Decode a chunk the caller reads as bytes, only so that the meter sees its text."""
    if meter is None or decoder.done:
        return
    try:
        for item in decoder.feed(chunk):
            meter.observe(item)
    except Exception:  # an error event or a bad chunk: the caller sees it in the bytes; we stop counting
        decoder.done = True


class Stream(Generic[T]):
    """An iterator of parsed chunks from a server-sent-events response."""

    def __init__(
        self,
        decoder: ChunkDecoder[T],
        response: Any,
        chunks: Iterator[bytes],
        first: bytes,
        meter: StreamMeter | None = None,
    ) -> None:
        self.response = response
        self._decoder = decoder
        self._chunks = chunks
        self._first = first
        self._meter = meter
        self._iterator = self._iterate()
        _watch(self, meter)

    def _iterate(self) -> Generator[T, None, None]:
        decoder, meter = self._decoder, self._meter
        show = meter.observe if meter is not None else None
        failure: BaseException | None = None
        outcome: Outcome = "early"
        try:
            for item in decoder.feed(self._first):
                if show is None or show(item):
                    yield item
            for chunk in self._chunks:
                if decoder.done:
                    break
                for item in decoder.feed(chunk):
                    if show is None or show(item):
                        yield item
            for item in decoder.flush():
                if show is None or show(item):
                    yield item
            outcome = "complete"
        except Exception as exc:  # anything from the wire becomes ours, redacted (see clean_failure)
            failure = clean_failure(exc, lambda: self.response.request)
            if failure is exc:  # our own error (an error event, a bad chunk): the outcome is known
                raise
            outcome = "unknown"
        finally:
            if meter is not None:
                meter.finish(outcome, failure)
            self.response.close()
            decoder.close()
        if failure is not None:  # raised outside ``except``: the library error (and its key) is not chained
            raise failure

    def _raw(self) -> Iterator[bytes]:
        """The body as it arrives (``with_streaming_response``), still charged: the meter counts its text."""
        outcome: Outcome = "early"
        failure: BaseException | None = None
        try:
            _observe_bytes(self._decoder, self._meter, self._first)
            yield self._first
            for chunk in self._chunks:
                _observe_bytes(self._decoder, self._meter, chunk)
                yield chunk
            outcome = "complete"
        except Exception as exc:
            failure = translate_error(exc, self.response.request)
            if failure is exc:
                raise
            outcome = "unknown"
        finally:
            if self._meter is not None:
                self._meter.finish(outcome)
            self.close()
        if failure is not None:
            raise failure

    def __iter__(self) -> Iterator[T]:
        return self._iterator

    def __next__(self) -> T:
        return next(self._iterator)

    def close(self) -> None:
        """Close the connection; safe to call more than once."""
        self._iterator.close()
        self.response.close()
        self._decoder.close()
        if self._meter is not None:  # a stream closed before its first read never ran ``_iterate``
            self._meter.finish("early")

    def refuse(self) -> None:
        """Close a stream whose opening event is an error, charging nothing: the server generated
        nothing (a router that sends the request elsewhere must not pay for it here too)."""
        if self._meter is not None:
            self._meter.finish("refused")
        self.close()

    def __enter__(self) -> Stream[T]:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncStream(Generic[T]):
    """The async twin of :class:`Stream`."""

    def __init__(
        self,
        decoder: ChunkDecoder[T],
        response: Any,
        chunks: AsyncIterator[bytes],
        first: bytes,
        meter: StreamMeter | None = None,
    ) -> None:
        self.response = response
        self._decoder = decoder
        self._chunks = chunks
        self._first = first
        self._meter = meter
        self._iterator = self._iterate()
        _watch(self, meter)

    async def _iterate(self) -> AsyncGenerator[T, None]:
        decoder, meter = self._decoder, self._meter
        show = meter.observe if meter is not None else None
        failure: BaseException | None = None
        outcome: Outcome = "early"
        try:
            for item in decoder.feed(self._first):
                if show is None or show(item):
                    yield item
            async for chunk in self._chunks:
                if decoder.done:
                    break
                for item in decoder.feed(chunk):
                    if show is None or show(item):
                        yield item
            for item in decoder.flush():
                if show is None or show(item):
                    yield item
            outcome = "complete"
        except Exception as exc:  # anything from the wire becomes ours, redacted (see clean_failure)
            failure = clean_failure(exc, lambda: self.response.request)
            if failure is exc:  # our own error (an error event, a bad chunk): the outcome is known
                raise
            outcome = "unknown"
        finally:
            if meter is not None:  # before the await: a cancelled close must not skip the charge
                meter.finish(outcome, failure)
            await self.response.aclose()
            decoder.close()
        if failure is not None:
            raise failure

    async def _raw(self) -> AsyncIterator[bytes]:
        """Async twin of :meth:`Stream._raw`."""
        outcome: Outcome = "early"
        failure: BaseException | None = None
        try:
            _observe_bytes(self._decoder, self._meter, self._first)
            yield self._first
            async for chunk in self._chunks:
                _observe_bytes(self._decoder, self._meter, chunk)
                yield chunk
            outcome = "complete"
        except Exception as exc:
            failure = translate_error(exc, self.response.request)
            if failure is exc:
                raise
            outcome = "unknown"
        finally:
            if self._meter is not None:  # before the await: a cancelled close must not skip the charge
                self._meter.finish(outcome)
            await self.close()
        if failure is not None:
            raise failure

    def __aiter__(self) -> AsyncIterator[T]:
        return self._iterator

    async def __anext__(self) -> T:
        return await self._iterator.__anext__()

    async def close(self) -> None:
        """Close the connection; safe to call more than once."""
        if self._meter is not None:
            self._meter.finish("early")  # first: the awaits below may be cancelled
        await self._iterator.aclose()
        await self.response.aclose()
        self._decoder.close()

    async def refuse(self) -> None:
        """Async twin of :meth:`Stream.refuse`."""
        if self._meter is not None:
            self._meter.finish("refused")
        await self.close()

    async def __aenter__(self) -> AsyncStream[T]:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
