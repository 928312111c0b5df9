"""Streamed chat completions: ``Stream`` and ``AsyncStream`` over one shared decoder.

Both are iterators and context managers; leaving the ``with`` block (or calling ``close()``)
closes the HTTP response, so an early ``break`` does not leak a connection. Each stream is charged to
the client's usage tracker through its :class:`~holyclient.pricing._stream_usage.StreamMeter` however it ends:
read to the end, left early, cut by a dropped connection, or garbage-collected without being closed
(a finaliser settles it, so its budget reservation is not held forever).

A chat stream whose body ends cleanly but without a ``finish_reason`` and without ``[DONE]`` (a proxy
that closes streams that way) ends for its caller as openai's does, without an error, but is marked:
``stream.truncated`` is True, a warning is logged, its span says so, and it is charged as a stream cut
part-way (its outcome is unknown: the server may have gone on and billed the rest).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from asyncio import current_task
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from time import monotonic
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from .._constants import LOGGER_NAME
from .._core import DONE, SSEDecoder, parse_model, stream_error
from .._core._deadlines import EventClock
from .._exceptions import APIResponseValidationError
from ._stream_ending import Ending

logger = logging.getLogger(LOGGER_NAME)

if TYPE_CHECKING:
    from ..pricing import StreamMeter

T = TypeVar("T")
X = TypeVar("X")
ChunksT = TypeVar("ChunksT")


def _watch(stream: object, meter: StreamMeter | None) -> None:
    """Settle the meter if ``stream`` is collected unclosed (never at interpreter exit: nothing to save)."""
    if meter is not None:
        weakref.finalize(stream, meter.abandon).atexit = False


def first_event(chunks: Iterator[bytes], clock: EventClock | None = None) -> bytes:
    """The bytes up to the stream's first event, read before the stream is handed over.

    SSE comments (``: PROCESSING`` keep-alives) carry no event: reading stops at the first real one, so
    an error the server opens with is seen whatever came before it (a Router fails over on it). Reading
    stops too when ``clock``'s first-event limit passed (see :mod:`._deadlines`).
    """
    probe, head = SSEDecoder(), bytearray()
    for chunk in chunks:
        head += chunk
        if probe.feed(chunk) or (clock is not None and clock.fired):
            break
    return bytes(head)


async def afirst_event(chunks: AsyncIterator[bytes], clock: EventClock | None = None) -> bytes:
    """Async twin of :func:`first_event`."""
    probe, head = SSEDecoder(), bytearray()
    async for chunk in chunks:
        head += chunk
        if probe.feed(chunk) or (clock is not None and clock.fired):
            break
    return bytes(head)


def reported_usage(stream: Any) -> Any:
    """The usage the server reported in ``stream`` (None until it does), also when the usage-only chunk
    was hidden from the caller because holyclient, not the caller, asked for it. For a feature that must
    know what a stream cost without showing the caller a chunk it did not ask for (``parse()``'s
    fallbacks)."""
    meter = getattr(stream, "_meter", None)
    return meter.usage if meter is not None else None


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
        #: Events skipped because they were not JSON (see :meth:`_skip`).
        self.skipped = 0
        #: Told of each skipped event (the call's span, when traced).
        self.on_skip: Callable[[], None] | None = None
        #: The last item decoded: whether the stream said it ended is read from it (:meth:`ended_early`).
        self.last: Any = None

    def feed(self, chunk: bytes) -> list[T]:
        if self._pending is not None:
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

    def ended_early(self) -> bool:
        """Whether a chat (or completions) stream whose body ended stopped before its answer did: no
        ``[DONE]``, and its last chunk neither finished a choice nor carried the usage (which comes after
        the finish). Other streams (a Responses stream's events carry no ``choices``) are not judged."""
        last = self.last
        if self.done or last is None:
            return False
        choices = getattr(last, "choices", None)
        if choices is None:
            return False
        if not choices:
            return getattr(last, "usage", None) is None
        return all(getattr(choice, "finish_reason", None) is None for choice in choices)

    def _skip(self) -> None:
        """An event that is not JSON (a relay garbled it) is skipped and counted, and reading goes on:
        the stream fails only if it cannot be completed (its end was in the garbled event: then it ended
        early). openai raises ``json.JSONDecodeError`` on it instead (see the streaming guide)."""
        self.skipped += 1
        logger.warning("Skipped a stream event that is not valid JSON (%d in this stream).", self.skipped)
        if self.on_skip is not None:
            self.on_skip()

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
            # ``stream_error``'s own first test, made here first: every chunk passes this line
            error = stream_error(data, self._response, request=self._request) if b'"error"' in data else None
            if error is not None:
                if not items:
                    raise error
                # chunks that arrived in the same read come first; the error on the next feed or flush
                self._pending = error
                break
            try:
                item = parse_model(self._cast_to, data, self._response, request=self._request)  # type: ignore[type-var]
            except APIResponseValidationError as exc:
                if not getattr(exc, "retryable", False):  # JSON of the wrong shape: not a garbled event
                    raise
                self._skip()
                continue
            if self._on_chunk is not None:
                self._on_chunk(item)
            items.append(item)
        if items:
            self.last = items[-1]
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


def _shown(items: list[T], show: Callable[[Any], bool] | None) -> Iterator[T]:
    """``items`` as the caller sees them: the meter (``show``) hides the usage-only chunk the caller did
    not ask for. Read item by item, so that a caller who stops early leaves the rest unseen."""
    for item in items:
        if show is None or show(item):
            yield item


# The sync and async readers share their opening and closing reads (:func:`_shown`); the read of each
# chunk is written out in both, so that a chunk costs no call beyond the decoder's and the meter's.


def _items(
    decoder: ChunkDecoder[T],
    meter: StreamMeter | None,
    first: bytes,
    chunks: Iterator[bytes],
    clock: EventClock,
) -> Iterator[T]:
    """The stream's chunks, parsed; the usage-only chunk the caller did not ask for is hidden by the meter.
    ``clock`` says when each wait for an event began (``since``: None while the caller holds the stream);
    a read its watchdog interrupted ends in the clock's error (see :mod:`._deadlines`)."""
    show = meter.observe if meter is not None else None
    yield from _shown(decoder.feed(first), show)
    clock.since = monotonic()
    try:
        for chunk in chunks:
            if decoder.done:
                break
            items = decoder.feed(chunk)
            if items:
                clock.since = None
                for item in items:
                    if show is None or show(item):
                        yield item
                clock.since = monotonic()
            elif clock.fired:  # only comments came while the limit passed (no socket to shut down)
                break
    except Exception:
        if not clock.fired:
            raise
    if clock.fired:
        raise clock.error()
    yield from _shown(decoder.flush(), show)


async def _aitems(
    decoder: ChunkDecoder[T],
    meter: StreamMeter | None,
    first: bytes,
    chunks: AsyncIterator[bytes],
    clock: EventClock,
) -> AsyncIterator[T]:
    """Async twin of :func:`_items`: a read whose limit passed is cancelled by the clock's timer."""
    show = meter.observe if meter is not None else None
    for item in _shown(decoder.feed(first), show):
        yield item
    clock.since, clock.task = monotonic(), current_task()
    try:
        async for chunk in chunks:
            if decoder.done:
                break
            items = decoder.feed(chunk)
            if items:
                clock.since = None
                for item in items:
                    if show is None or show(item):
                        yield item
                clock.since, clock.task = monotonic(), current_task()
    except asyncio.CancelledError:
        if not cancelled_by(clock):
            raise
    if clock.fired:
        raise clock.error()
    for item in _shown(decoder.flush(), show):
        yield item


def cancelled_by(clock: EventClock) -> bool:
    """Whether the cancellation being handled is ``clock``'s own: taken back, the clock's error is raised
    instead; another cancellation propagates."""
    if not clock.fired:
        return False
    task = current_task()
    return task is None or task.uncancel() == 0


def _bytes(
    decoder: ChunkDecoder[Any],
    meter: StreamMeter | None,
    first: bytes,
    chunks: Iterator[bytes],
    clock: EventClock,
) -> Iterator[bytes]:
    """The body as it arrives, decoded on the side only so that the meter sees its text; a chunk with a
    ``data:`` line counts as an event for ``clock``."""
    _observe_bytes(decoder, meter, first)
    clock.since = None
    yield first
    clock.since = monotonic()
    try:
        for chunk in chunks:
            _observe_bytes(decoder, meter, chunk)
            waited, clock.since = clock.since, None
            yield chunk
            clock.since = monotonic() if b"data:" in chunk else waited
    except Exception:
        if not clock.fired:
            raise
    if clock.fired:
        raise clock.error()


async def _abytes(
    decoder: ChunkDecoder[Any],
    meter: StreamMeter | None,
    first: bytes,
    chunks: AsyncIterator[bytes],
    clock: EventClock,
) -> AsyncIterator[bytes]:
    """Async twin of :func:`_bytes`."""
    _observe_bytes(decoder, meter, first)
    clock.since = None
    yield first
    clock.since, clock.task = monotonic(), current_task()
    try:
        async for chunk in chunks:
            _observe_bytes(decoder, meter, chunk)
            waited, clock.since = clock.since, None
            yield chunk
            clock.since, clock.task = (monotonic() if b"data:" in chunk else waited), current_task()
    except asyncio.CancelledError:
        if not cancelled_by(clock):
            raise
    if clock.fired:
        raise clock.error()


class _Reading(Generic[T, ChunksT]):
    """What a stream holds, sync or async: the response, the decoder, the chunks still to read, the bytes
    read before it was handed over, and the meter that charges it (settled even if the stream is
    collected unclosed). ``_items_of`` / ``_bytes_of`` read it, as parsed chunks or as the bytes sent."""

    _items_of: ClassVar[Callable[..., Any]]
    _bytes_of: ClassVar[Callable[..., Any]]

    def __init__(
        self,
        decoder: ChunkDecoder[T],
        response: Any,
        chunks: ChunksT,
        first: bytes,
        meter: StreamMeter | None = None,
        clock: EventClock | None = None,
    ) -> None:
        self.response = response
        #: The stream's deadlines (see :mod:`._deadlines`); none for a stream opened without them.
        self._clock = clock if clock is not None else EventClock(None, None, 0.0)
        self._decoder = decoder
        self._chunks = chunks
        self._first = first
        self._meter = meter
        #: Whether the stream ended cleanly before its answer did (see the module docstring).
        self.truncated = False
        self._iterator = self._iterate()
        _watch(self, meter)

    @property
    def malformed_events(self) -> int:
        """Events skipped so far because they were not valid JSON (a relay garbled them); the stream
        read on past each one (openai's raises on the first)."""
        return self._decoder.skipped

    def _guarded(self, body: Any) -> Any:
        raise NotImplementedError

    def _iterate(self) -> Any:
        return self._guarded(
            type(self)._items_of(self._decoder, self._meter, self._first, self._chunks, self._clock)
        )

    def _raw(self) -> Any:
        """The body as it arrives (``with_streaming_response``), still charged: the meter counts its text."""
        return self._guarded(
            type(self)._bytes_of(self._decoder, self._meter, self._first, self._chunks, self._clock)
        )


class Stream(_Reading[T, Iterator[bytes]]):
    """An iterator of parsed chunks from a server-sent-events response."""

    _items_of = _items
    _bytes_of = _bytes
    _iterator: Generator[T, None, None]

    def _guarded(self, body: Iterator[X]) -> Generator[X, None, None]:
        """``body``, read to its end or left early, with the stream settled however it ends (see
        :class:`~._stream_ending.Ending`)."""
        ending = Ending()
        try:
            yield from body
            ending.read_to_the_end(self)
        except Exception as exc:  # anything from the wire becomes ours, redacted (see clean_failure)
            if ending.caught(exc, self):
                raise
        finally:
            self._clock.stopped = True
            ending.settle(self._meter)
            self.response.close()
            self._decoder.close()
        ending.raise_failure()

    def __iter__(self) -> Iterator[T]:
        return self._iterator

    def __next__(self) -> T:
        return next(self._iterator)

    def close(self) -> None:
        """Close the connection; safe to call more than once."""
        self._clock.stopped = True
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


class AsyncStream(_Reading[T, AsyncIterator[bytes]]):
    """The async twin of :class:`Stream`."""

    _items_of = _aitems
    _bytes_of = _abytes
    _iterator: AsyncGenerator[T, None]

    async def _guarded(self, body: AsyncIterator[X]) -> AsyncGenerator[X, None]:
        """Async twin of :meth:`Stream._guarded`."""
        ending = Ending()
        try:
            async for item in body:
                yield item
            ending.read_to_the_end(self)
        except Exception as exc:  # anything from the wire becomes ours, redacted (see clean_failure)
            if ending.caught(exc, self):
                raise
        finally:
            self._clock.stopped = True
            ending.settle(self._meter)  # before the await: a cancelled close must not skip the charge
            await self.response.aclose()
            self._decoder.close()
        ending.raise_failure()

    def __aiter__(self) -> AsyncIterator[T]:
        return self._iterator

    async def __anext__(self) -> T:
        return await self._iterator.__anext__()

    async def close(self) -> None:
        """Close the connection; safe to call more than once."""
        self._clock.stopped = True
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
