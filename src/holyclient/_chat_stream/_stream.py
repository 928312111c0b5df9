"""``chat.completions.stream()``: context managers and iterators of typed events, sync and async.

Thin shells: they pull chunks from a :class:`~holyclient.Stream` (or its async twin) and hand them
to :class:`ChatCompletionStreamState`; all the logic lives there. The request is sent on entering
the ``with`` block, and leaving it closes the response even when the stream was not read to the end.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ._accumulate import is_completion_chunk
from ._state import ChatCompletionStreamState, Event

if TYPE_CHECKING:
    from typing import Self

    from .._parsing import ParsedChatCompletion
    from .._send import AsyncStream, Stream
    from ..types._chat import ChatCompletionChunk

ResponseFormatT = TypeVar("ResponseFormatT")


class ChatCompletionStream(Generic[ResponseFormatT]):
    """An iterator of stream events that also accumulates the completion."""

    def __init__(
        self,
        raw_stream: Stream[ChatCompletionChunk],
        state: ChatCompletionStreamState[ResponseFormatT],
    ) -> None:
        self._raw_stream = raw_stream
        self._state = state
        self._iterator = self._events()
        self.response = raw_stream.response

    def _events(self) -> Iterator[Event]:
        for chunk in self._raw_stream:
            if is_completion_chunk(chunk):
                yield from self._state.handle_chunk(chunk)

    def __iter__(self) -> Iterator[Event]:
        return self._iterator

    def __next__(self) -> Event:
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


class ChatCompletionStreamManager(Generic[ResponseFormatT]):
    """What ``stream()`` returns: ``with`` it to send the request and get a :class:`ChatCompletionStream`."""

    def __init__(
        self,
        api_request: Callable[[], Stream[ChatCompletionChunk]],
        *,
        response_format: type[ResponseFormatT] | Mapping[str, Any] | None,
        input_tools: Iterable[Mapping[str, Any]] | None,
    ) -> None:
        self._api_request = api_request
        self._response_format = response_format
        self._input_tools = input_tools
        self._stream: ChatCompletionStream[ResponseFormatT] | None = None

    def __enter__(self) -> ChatCompletionStream[ResponseFormatT]:
        state = ChatCompletionStreamState(
            input_tools=self._input_tools, response_format=self._response_format
        )
        self._stream = ChatCompletionStream(self._api_request(), state)
        return self._stream

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._stream is not None:
            self._stream.close()


class AsyncChatCompletionStream(Generic[ResponseFormatT]):
    """The async twin of :class:`ChatCompletionStream`."""

    def __init__(
        self,
        raw_stream: AsyncStream[ChatCompletionChunk],
        state: ChatCompletionStreamState[ResponseFormatT],
    ) -> None:
        self._raw_stream = raw_stream
        self._state = state
        self._iterator = self._events()
        self.response = raw_stream.response

    async def _events(self) -> AsyncIterator[Event]:
        async for chunk in self._raw_stream:
            if is_completion_chunk(chunk):
                for event in self._state.handle_chunk(chunk):
                    yield event

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._iterator

    async def __anext__(self) -> Event:
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
        """Async twin of :meth:`ChatCompletionStream.until_done`."""
        async for _ in self._iterator:
            pass
        return self

    async def get_final_completion(self) -> ParsedChatCompletion[ResponseFormatT]:
        """Async twin of :meth:`ChatCompletionStream.get_final_completion`."""
        await self.until_done()
        return self._state.get_final_completion()

    @property
    def current_completion_snapshot(self) -> ParsedChatCompletion[Any]:
        return self._state.current_completion_snapshot


class AsyncChatCompletionStreamManager(Generic[ResponseFormatT]):
    """The async twin of :class:`ChatCompletionStreamManager` (``async with``).

    ``api_request`` is called on entering, so a manager that is never entered sends nothing (and leaves
    no un-awaited coroutine behind).
    """

    def __init__(
        self,
        api_request: Callable[[], Awaitable[AsyncStream[ChatCompletionChunk]]],
        *,
        response_format: type[ResponseFormatT] | Mapping[str, Any] | None,
        input_tools: Iterable[Mapping[str, Any]] | None,
    ) -> None:
        self._api_request = api_request
        self._response_format = response_format
        self._input_tools = input_tools
        self._stream: AsyncChatCompletionStream[ResponseFormatT] | None = None

    async def __aenter__(self) -> AsyncChatCompletionStream[ResponseFormatT]:
        state = ChatCompletionStreamState(
            input_tools=self._input_tools, response_format=self._response_format
        )
        self._stream = AsyncChatCompletionStream(await self._api_request(), state)
        return self._stream

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._stream is not None:
            await self._stream.close()
