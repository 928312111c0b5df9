"""``responses.stream()``: context managers and iterators of typed events, sync and async.

Thin shells over :mod:`holyclient._send`'s event streams: they hand each raw event to
:class:`ResponseStreamState`, where all the logic lives. The request is sent on entering the ``with``
block, and leaving it closes the response even when the stream was not read to the end.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Generic, TypeVar

from .._send import AsyncEventStream, AsyncStreamManager, EventStream, StreamManager
from ._state import ResponseStreamState

if TYPE_CHECKING:
    from .._send import AsyncStream, Stream
    from ..types._parsed_response import ParsedResponse
    from ..types.responses import ResponseStreamEvent

TextFormatT = TypeVar("TextFormatT")


def _final(state: ResponseStreamState[TextFormatT]) -> ParsedResponse[TextFormatT]:
    if state.completed_response is None:
        raise RuntimeError("Didn't receive a `response.completed` event.")
    return state.completed_response


class ResponseStream(EventStream["ResponseStreamEvent", "ResponseStreamEvent"], Generic[TextFormatT]):
    """An iterator of stream events that also accumulates the response."""

    def __init__(
        self, raw_stream: Stream[ResponseStreamEvent], state: ResponseStreamState[TextFormatT]
    ) -> None:
        self._state = state
        super().__init__(raw_stream)

    def _handle(self, item: ResponseStreamEvent) -> Iterable[ResponseStreamEvent]:
        return self._state.handle_event(item)

    def get_final_response(self) -> ParsedResponse[TextFormatT]:
        """Read the stream to the end and return the response, decoded as ``responses.parse()`` would.

        Raises:
            RuntimeError: the stream ended without a ``response.completed`` event.
        """
        self.until_done()
        return _final(self._state)


class ResponseStreamManager(StreamManager[ResponseStream[TextFormatT]]):
    """What ``responses.stream()`` returns: ``with`` it to send the request and get a :class:`ResponseStream`."""

    def __init__(
        self, api_request: Callable[[], Stream[ResponseStreamEvent]], state: ResponseStreamState[TextFormatT]
    ) -> None:
        super().__init__(lambda: ResponseStream(api_request(), state))


class AsyncResponseStream(
    AsyncEventStream["ResponseStreamEvent", "ResponseStreamEvent"], Generic[TextFormatT]
):
    """The async twin of :class:`ResponseStream`."""

    def __init__(
        self, raw_stream: AsyncStream[ResponseStreamEvent], state: ResponseStreamState[TextFormatT]
    ) -> None:
        self._state = state
        super().__init__(raw_stream)

    def _handle(self, item: ResponseStreamEvent) -> Iterable[ResponseStreamEvent]:
        return self._state.handle_event(item)

    async def get_final_response(self) -> ParsedResponse[TextFormatT]:
        """Async twin of :meth:`ResponseStream.get_final_response`."""
        await self.until_done()
        return _final(self._state)


class AsyncResponseStreamManager(AsyncStreamManager[AsyncResponseStream[TextFormatT]]):
    """The async twin of :class:`ResponseStreamManager` (``async with``); sends nothing until entered."""

    def __init__(
        self,
        api_request: Callable[[], Awaitable[AsyncStream[ResponseStreamEvent]]],
        state: ResponseStreamState[TextFormatT],
    ) -> None:
        async def open_stream() -> AsyncResponseStream[TextFormatT]:
            return AsyncResponseStream(await api_request(), state)

        super().__init__(open_stream)
