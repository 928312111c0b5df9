"""Reading a stream's chunks, sans-IO but for the iteration: the decoder (bytes in, parsed chunks out)
and the readers :class:`~._streaming.Stream` and :class:`~._streaming.AsyncStream` iterate -- as parsed
chunks or as the bytes sent -- keeping the stream's :class:`~holyclient._core.EventClock` (see
:mod:`._stream_deadlines`)."""

from __future__ import annotations

import asyncio
import logging
from asyncio import current_task
from collections.abc import AsyncIterator, Callable, Iterator
from time import monotonic
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._constants import LOGGER_NAME
from .._core import DONE, EventClock, SSEDecoder, parse_model, stream_error
from .._exceptions import APIResponseValidationError

if TYPE_CHECKING:
    from ..pricing import StreamMeter

__all__ = ["ChunkDecoder", "aread_bytes", "aread_items", "cancelled_by", "read_bytes", "read_items"]

T = TypeVar("T")

logger = logging.getLogger(LOGGER_NAME)


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
        self.on_skip: Callable[[int], None] | None = None
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
        early). openai raises ``json.JSONDecodeError`` on it instead (docs/guides/switching-from-openai.md)."""
        self.skipped += 1
        logger.warning("Skipped a stream event that is not valid JSON (%d in this stream).", self.skipped)
        if self.on_skip is not None:
            self.on_skip(self.skipped)

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


def read_items(
    decoder: ChunkDecoder[T],
    meter: StreamMeter | None,
    first: bytes,
    chunks: Iterator[bytes],
    clock: EventClock,
) -> Iterator[T]:
    """The stream's chunks, parsed; the usage-only chunk the caller did not ask for is hidden by the meter.
    ``clock`` says when each wait for an event began (``since``: None while the caller holds the stream);
    a read its watchdog interrupted ends in the clock's error (see :mod:`._stream_deadlines`)."""
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


async def aread_items(
    decoder: ChunkDecoder[T],
    meter: StreamMeter | None,
    first: bytes,
    chunks: AsyncIterator[bytes],
    clock: EventClock,
) -> AsyncIterator[T]:
    """Async twin of :func:`read_items`: a read whose limit passed is cancelled by the clock's timer."""
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


def read_bytes(
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


async def aread_bytes(
    decoder: ChunkDecoder[Any],
    meter: StreamMeter | None,
    first: bytes,
    chunks: AsyncIterator[bytes],
    clock: EventClock,
) -> AsyncIterator[bytes]:
    """Async twin of :func:`read_bytes`."""
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
