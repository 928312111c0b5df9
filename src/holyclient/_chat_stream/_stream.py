"""``chat.completions.stream()``: context managers and iterators of typed events, sync and async.

Thin shells over :mod:`holyclient._send`'s event streams: they hand each chunk to
:class:`ChatCompletionStreamState`, where all the logic lives. The request is sent on entering the
``with`` block, and leaving it closes the response even when the stream was not read to the end.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .._send import AsyncEventStream, AsyncStreamManager, EventStream, StreamManager
from ._accumulate import is_completion_chunk
from ._state import ChatCompletionStreamState, Event

if TYPE_CHECKING:
    from .._parsing import ParsedChatCompletion
    from .._send import AsyncStream, Stream
    from ..types._chat import ChatCompletionChunk

ResponseFormatT = TypeVar("ResponseFormatT")


class ChatCompletionStream(EventStream["ChatCompletionChunk", Event], Generic[ResponseFormatT]):
    """An iterator of stream events that also accumulates the completion."""

    def __init__(
        self,
        raw_stream: Stream[ChatCompletionChunk],
        state: ChatCompletionStreamState[ResponseFormatT],
    ) -> None:
        self._state = state
        super().__init__(raw_stream)

    def _handle(self, item: ChatCompletionChunk) -> Iterable[Event]:
        return self._state.handle_chunk(item) if is_completion_chunk(item) else ()

    def get_final_completion(self) -> ParsedChatCompletion[ResponseFormatT]:
        """Read the stream to the end and return the completion, decoded as ``parse()`` would.

        Raises:
            LengthFinishReasonError, ContentFilterFinishReasonError: as ``parse()``.
        """
        self.until_done()
        return self._state.get_final_completion()

    @property
    def current_completion_snapshot(self) -> ParsedChatCompletion[Any]:
        return self._state.current_completion_snapshot


class ChatCompletionStreamManager(StreamManager[ChatCompletionStream[ResponseFormatT]]):
    """What ``stream()`` returns: ``with`` it to send the request and get a :class:`ChatCompletionStream`.

    ``state`` replaces the default state machine (``parse()``'s portable structured outputs pass one
    that decodes the way it asked); it is used once, by the one ``with`` block.
    """

    def __init__(
        self,
        api_request: Callable[[], Stream[ChatCompletionChunk]],
        *,
        response_format: type[ResponseFormatT] | Mapping[str, Any] | None,
        input_tools: Iterable[Mapping[str, Any]] | None,
        state: ChatCompletionStreamState[ResponseFormatT] | None = None,
    ) -> None:
        def open_stream() -> ChatCompletionStream[ResponseFormatT]:
            raw = api_request()  # first: the request may decide how the state decodes (``parse()``'s way)
            made = state or ChatCompletionStreamState(
                input_tools=input_tools, response_format=response_format
            )
            return ChatCompletionStream(raw, made)

        super().__init__(open_stream)


class AsyncChatCompletionStream(AsyncEventStream["ChatCompletionChunk", Event], Generic[ResponseFormatT]):
    """The async twin of :class:`ChatCompletionStream`."""

    def __init__(
        self,
        raw_stream: AsyncStream[ChatCompletionChunk],
        state: ChatCompletionStreamState[ResponseFormatT],
    ) -> None:
        self._state = state
        super().__init__(raw_stream)

    def _handle(self, item: ChatCompletionChunk) -> Iterable[Event]:
        return self._state.handle_chunk(item) if is_completion_chunk(item) else ()

    async def get_final_completion(self) -> ParsedChatCompletion[ResponseFormatT]:
        """Async twin of :meth:`ChatCompletionStream.get_final_completion`."""
        await self.until_done()
        return self._state.get_final_completion()

    @property
    def current_completion_snapshot(self) -> ParsedChatCompletion[Any]:
        return self._state.current_completion_snapshot


class AsyncChatCompletionStreamManager(AsyncStreamManager[AsyncChatCompletionStream[ResponseFormatT]]):
    """The async twin of :class:`ChatCompletionStreamManager` (``async with``); sends nothing until entered."""

    def __init__(
        self,
        api_request: Callable[[], Awaitable[AsyncStream[ChatCompletionChunk]]],
        *,
        response_format: type[ResponseFormatT] | Mapping[str, Any] | None,
        input_tools: Iterable[Mapping[str, Any]] | None,
        state: ChatCompletionStreamState[ResponseFormatT] | None = None,
    ) -> None:
        async def open_stream() -> AsyncChatCompletionStream[ResponseFormatT]:
            raw = await api_request()
            made = state or ChatCompletionStreamState(
                input_tools=input_tools, response_format=response_format
            )
            return AsyncChatCompletionStream(raw, made)

        super().__init__(open_stream)
