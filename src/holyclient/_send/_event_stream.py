"""The shells of the stream helpers (``chat.completions.stream()``, ``responses.stream()``): an iterator of
typed events over a :class:`~._streaming.Stream`, and the context manager that opens it.

Each helper keeps its logic in a sans-IO state machine (``ChatCompletionStreamState``,
``ResponseStreamState``) and says only how one raw item becomes events (:meth:`EventStream._handle`)
and what its final result is; holding the state, iterating, closing, ``until_done``, opening the stream
with a state and the ``with`` blocks are written once here, sync and async. The request is sent on
entering the ``with`` block, and leaving it closes the response even when the stream was not read to
the end.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Generic, Protocol, Self, TypeVar

if TYPE_CHECKING:
    from ._streaming import AsyncStream, Stream

RawT = TypeVar("RawT")
EventT = TypeVar("EventT")
StateT = TypeVar("StateT")


class _Closes(Protocol):
    def close(self) -> None: ...


class _AsyncCloses(Protocol):
    async def close(self) -> None: ...


StreamT = TypeVar("StreamT", bound=_Closes)
AsyncStreamT = TypeVar("AsyncStreamT", bound=_AsyncCloses)


class EventStream(Generic[RawT, EventT, StateT]):
    """An iterator of events made from a raw stream's items by a helper's state machine ``state``."""

    def __init__(self, raw_stream: Stream[RawT], state: StateT) -> None:
        self._raw_stream = raw_stream
        self._state = state
        self._iterator = self._events()
        self.response = raw_stream.response

    def _handle(self, item: RawT) -> Iterable[EventT]:
        """The events one raw item makes (the helper's state machine decides)."""
        raise NotImplementedError

    def _events(self) -> Iterator[EventT]:
        for item in self._raw_stream:
            yield from self._handle(item)

    def __iter__(self) -> Iterator[EventT]:
        return self._iterator

    def __next__(self) -> EventT:
        return next(self._iterator)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the response; safe to call more than once."""
        self._raw_stream.close()

    def until_done(self) -> Self:
        """Read the stream to the end (the events are still accumulated)."""
        for _ in self._iterator:
            pass
        return self


class AsyncEventStream(Generic[RawT, EventT, StateT]):
    """The async twin of :class:`EventStream`."""

    def __init__(self, raw_stream: AsyncStream[RawT], state: StateT) -> None:
        self._raw_stream = raw_stream
        self._state = state
        self._iterator = self._events()
        self.response = raw_stream.response

    def _handle(self, item: RawT) -> Iterable[EventT]:
        """The events one raw item makes (the helper's state machine decides)."""
        raise NotImplementedError

    async def _events(self) -> AsyncIterator[EventT]:
        async for item in self._raw_stream:
            for event in self._handle(item):
                yield event

    def __aiter__(self) -> AsyncIterator[EventT]:
        return self._iterator

    async def __anext__(self) -> EventT:
        return await self._iterator.__anext__()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the response; safe to call more than once."""
        await self._raw_stream.close()

    async def until_done(self) -> Self:
        """Async twin of :meth:`EventStream.until_done`."""
        async for _ in self._iterator:
            pass
        return self


class StreamManager(Generic[StreamT]):
    """What a ``stream()`` helper returns: ``with`` it to send the request and get its event stream.

    Args:
        event_stream: the helper's event stream class, made from the raw stream and a state.
        api_request: sends the request and returns the raw stream.
        new_state: makes the helper's state machine for the stream, before the request is sent.
    """

    def __init__(
        self,
        event_stream: Callable[[Stream[RawT], StateT], StreamT],
        api_request: Callable[[], Stream[RawT]],
        new_state: Callable[[], StateT],
    ) -> None:
        def open_stream() -> StreamT:
            state = new_state()
            return event_stream(api_request(), state)

        self._open = open_stream
        self._stream: StreamT | None = None

    def __enter__(self) -> StreamT:
        self._stream = self._open()
        return self._stream

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._stream is not None:
            self._stream.close()


class AsyncStreamManager(Generic[AsyncStreamT]):
    """The async twin of :class:`StreamManager` (``async with``): the request is made on entering, so a
    manager that is never entered sends nothing (and leaves no un-awaited coroutine behind)."""

    def __init__(
        self,
        event_stream: Callable[[AsyncStream[RawT], StateT], AsyncStreamT],
        api_request: Callable[[], Awaitable[AsyncStream[RawT]]],
        new_state: Callable[[], StateT],
    ) -> None:
        async def open_stream() -> AsyncStreamT:
            state = new_state()
            return event_stream(await api_request(), state)

        self._open = open_stream
        self._stream: AsyncStreamT | None = None

    async def __aenter__(self) -> AsyncStreamT:
        self._stream = await self._open()
        return self._stream

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._stream is not None:
            await self._stream.close()
