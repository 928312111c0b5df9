"""``responses.stream()``: context managers and iterators of typed events, sync and async.

Thin shells: they pull raw events from a :class:`~holyclient.Stream` (or its async twin) and hand them
to :class:`ResponseStreamState`; all the logic lives there. The request is sent on entering the
``with`` block, and leaving it closes the response even when the stream was not read to the end.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Generic, TypeVar

from ._state import ResponseStreamState

if TYPE_CHECKING:
    from typing import Self

    from .._send import AsyncStream, Stream
    from ..types._parsed_response import ParsedResponse
    from ..types.responses import ResponseStreamEvent

TextFormatT = TypeVar("TextFormatT")


def _final(state: ResponseStreamState[TextFormatT]) -> ParsedResponse[TextFormatT]:
    if state.completed_response is None:
        raise RuntimeError("Didn't receive a `response.completed` event.")
    return state.completed_response


class ResponseStream(Generic[TextFormatT]):
    """An iterator of stream events that also accumulates the response."""

    def __init__(
        self, raw_stream: Stream[ResponseStreamEvent], state: ResponseStreamState[TextFormatT]
    ) -> None:
        self._raw_stream = raw_stream
        self._state = state
        self._iterator = self._events()
        self.response = raw_stream.response

    def _events(self) -> Iterator[ResponseStreamEvent]:
        for event in self._raw_stream:
            yield from self._state.handle_event(event)

    def __iter__(self) -> Iterator[ResponseStreamEvent]:
        return self._iterator

    def __next__(self) -> ResponseStreamEvent:
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

    def get_final_response(self) -> ParsedResponse[TextFormatT]:
        """Read the stream to the end and return the response, decoded as ``responses.parse()`` would.

        Raises:
            RuntimeError: the stream ended without a ``response.completed`` event.
        """
        self.until_done()
        return _final(self._state)


class ResponseStreamManager(Generic[TextFormatT]):
    """What ``responses.stream()`` returns: ``with`` it to send the request and get a :class:`ResponseStream`."""

    def __init__(
        self, api_request: Callable[[], Stream[ResponseStreamEvent]], state: ResponseStreamState[TextFormatT]
    ) -> None:
        self._api_request = api_request
        self._state = state
        self._stream: ResponseStream[TextFormatT] | None = None

    def __enter__(self) -> ResponseStream[TextFormatT]:
        self._stream = ResponseStream(self._api_request(), self._state)
        return self._stream

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._stream is not None:
            self._stream.close()


class AsyncResponseStream(Generic[TextFormatT]):
    """The async twin of :class:`ResponseStream`."""

    def __init__(
        self, raw_stream: AsyncStream[ResponseStreamEvent], state: ResponseStreamState[TextFormatT]
    ) -> None:
        self._raw_stream = raw_stream
        self._state = state
        self._iterator = self._events()
        self.response = raw_stream.response

    async def _events(self) -> AsyncIterator[ResponseStreamEvent]:
        async for event in self._raw_stream:
            for out in self._state.handle_event(event):
                yield out

    def __aiter__(self) -> AsyncIterator[ResponseStreamEvent]:
        return self._iterator

    async def __anext__(self) -> ResponseStreamEvent:
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
        """Async twin of :meth:`ResponseStream.until_done`."""
        async for _ in self._iterator:
            pass
        return self

    async def get_final_response(self) -> ParsedResponse[TextFormatT]:
        """Async twin of :meth:`ResponseStream.get_final_response`."""
        await self.until_done()
        return _final(self._state)


class AsyncResponseStreamManager(Generic[TextFormatT]):
    """The async twin of :class:`ResponseStreamManager` (``async with``); sends nothing until entered."""

    def __init__(
        self,
        api_request: Callable[[], Awaitable[AsyncStream[ResponseStreamEvent]]],
        state: ResponseStreamState[TextFormatT],
    ) -> None:
        self._api_request = api_request
        self._state = state
        self._stream: AsyncResponseStream[TextFormatT] | None = None

    async def __aenter__(self) -> AsyncResponseStream[TextFormatT]:
        self._stream = AsyncResponseStream(await self._api_request(), self._state)
        return self._stream

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._stream is not None:
            await self._stream.close()
