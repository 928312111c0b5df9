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

import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from .._core import EventClock, SSEDecoder
from ._chunk_reads import ChunkDecoder, aread_bytes, aread_items, read_bytes, read_items
from ._stream_ending import Ending

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
    stops too when ``clock``'s first-event limit passed (see :mod:`._stream_deadlines`).
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
        #: The stream's deadlines (see :mod:`._stream_deadlines`); none for a stream opened without them.
        self._clock = clock if clock is not None else EventClock(None, None, 0.0)
        self._decoder = decoder
        self._chunks = chunks
        self._first = first
        self._meter = meter
        #: Whether the stream ended cleanly before its answer did (see the module docstring).
        self.truncated = False
        #: Read as bytes (``with_streaming_response``): the caller parses the events, so one we could not
        #: parse is theirs to judge (openai's raw reads parse nothing).
        self._read_raw = False
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
        self._read_raw = True
        return self._guarded(
            type(self)._bytes_of(self._decoder, self._meter, self._first, self._chunks, self._clock)
        )


class Stream(_Reading[T, Iterator[bytes]]):
    """An iterator of parsed chunks from a server-sent-events response."""

    _items_of = read_items
    _bytes_of = read_bytes
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

    _items_of = aread_items
    _bytes_of = aread_bytes
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
