"""``responses.stream()``: context managers and iterators of typed events, sync and async.

Thin shells over :mod:`holyclient._send`'s event streams, which hold the state, iterate, close and open
the stream: these say only that each raw event goes to :class:`ResponseStreamState`, where all the
logic lives, and what the final response is. The request is sent on entering the ``with`` block, and
leaving it closes the response even when the stream was not read to the end.
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


class _ResponseEvents(Generic[TextFormatT]):
    """What both response streams add to their shell: raw events through the state machine."""

    _state: ResponseStreamState[TextFormatT]

    def _handle(self, item: ResponseStreamEvent) -> Iterable[ResponseStreamEvent]:
        return self._state.handle_event(item)

    def _final(self) -> ParsedResponse[TextFormatT]:
        if self._state.completed_response is None:
            raise RuntimeError("Didn't receive a `response.completed` event.")
        return self._state.completed_response


class ResponseStream(
    _ResponseEvents[TextFormatT],
    EventStream["ResponseStreamEvent", "ResponseStreamEvent", ResponseStreamState[TextFormatT]],
):
    """An iterator of stream events that also accumulates the response."""

    def get_final_response(self) -> ParsedResponse[TextFormatT]:
        """Read the stream to the end and return the response, decoded as ``responses.parse()`` would.

        Raises:
            RuntimeError: the stream ended without a ``response.completed`` event.
        """
        self.until_done()
        return self._final()


class ResponseStreamManager(StreamManager[ResponseStream[TextFormatT]]):
    """What ``responses.stream()`` returns: ``with`` it to send the request and get a :class:`ResponseStream`."""

    def __init__(
        self, api_request: Callable[[], Stream[ResponseStreamEvent]], state: ResponseStreamState[TextFormatT]
    ) -> None:
        super().__init__(ResponseStream, api_request, lambda: state)


class AsyncResponseStream(
    _ResponseEvents[TextFormatT],
    AsyncEventStream["ResponseStreamEvent", "ResponseStreamEvent", ResponseStreamState[TextFormatT]],
):
    """The async twin of :class:`ResponseStream`."""

    async def get_final_response(self) -> ParsedResponse[TextFormatT]:
        """Async twin of :meth:`ResponseStream.get_final_response`."""
        await self.until_done()
        return self._final()


class AsyncResponseStreamManager(AsyncStreamManager[AsyncResponseStream[TextFormatT]]):
    """The async twin of :class:`ResponseStreamManager` (``async with``); sends nothing until entered."""

    def __init__(
        self,
        api_request: Callable[[], Awaitable[AsyncStream[ResponseStreamEvent]]],
        state: ResponseStreamState[TextFormatT],
    ) -> None:
        super().__init__(AsyncResponseStream, api_request, lambda: state)
