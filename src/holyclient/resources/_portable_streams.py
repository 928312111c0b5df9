"""``stream()`` with a format on every model: the opening that falls back, and the states that decode it.

The opening sends the way of asking the call's :class:`~holyclient._parsing.StructuredChat` (or
``StructuredResponse``) says, and the next one after a 400 that says the way is unavailable; each
opening goes through ``create(stream=True)``, so it is charged as any stream. The states are the
stream helpers' own, fed through the translators of :mod:`holyclient._parsing._portable_stream` when
the answer comes as a tool call, and the final result says how it was obtained. A stream is validated
as openai's is (pydantic's ``ValidationError`` at ``content.done``); it is not repaired, since its
events have already been read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from .._chat_stream import ChatCompletionStreamState
from .._exceptions import APIStatusError
from .._parsing import ChatToolAsContent, ResponseToolAsText, StructuredChat, StructuredResponse
from .._responses_stream import ResponseStreamState
from .._send import reported_usage

if TYPE_CHECKING:
    from .._parsing import ParsedChatCompletion
    from ..types._chat import ChatCompletionChunk
    from ..types._parsed_response import ParsedResponse
    from ..types.responses import ResponseStreamEvent

T = TypeVar("T")
Plan = TypeVar("Plan", StructuredChat, StructuredResponse)


def open_with_fallback(plan: Plan, create: Callable[[dict[str, Any]], T]) -> T:
    """Open the stream the current way, falling back after a refusal."""
    while True:
        try:
            return create(plan.request())
        except APIStatusError as error:
            if not plan.rejected(error):
                raise


async def async_open_with_fallback(plan: Plan, create: Callable[[dict[str, Any]], Awaitable[T]]) -> T:
    """Async twin of :func:`open_with_fallback`."""
    while True:
        try:
            return await create(plan.request())
        except APIStatusError as error:
            if not plan.rejected(error):
                raise


class PortableChatState(ChatCompletionStreamState[Any]):
    """The chat stream helper's state for a ``stream()`` with a class: a tool answer read as content."""

    def __init__(self, plan: StructuredChat, *, input_tools: Iterable[Mapping[str, Any]] | None) -> None:
        super().__init__(input_tools=input_tools, response_format=plan.format)
        self._plan = plan
        self._translate = ChatToolAsContent(plan.name)
        self._final: ParsedChatCompletion[Any] | None = None
        self._stream: Any = None

    def watching(self, stream: T) -> T:
        """Note the raw stream opened for this state: what it cost is read from it when it ends (its
        usage chunk stays hidden from a caller who did not ask for it)."""
        self._stream = stream
        return stream

    def handle_chunk(self, chunk: ChatCompletionChunk) -> list[Any]:
        if self._plan.method == "tool":
            chunk = self._translate(chunk)
        return super().handle_chunk(chunk)

    def get_final_completion(self) -> ParsedChatCompletion[Any]:
        if self._final is None:
            final = super().get_final_completion()
            self._plan.record(final.usage if final.usage is not None else reported_usage(self._stream))
            self._plan.finish(final)
            self._final = final
        return self._final


class PortableResponseState(ResponseStreamState[Any]):
    """The Responses stream helper's state for a ``stream()`` with a ``text_format``."""

    def __init__(self, plan: StructuredResponse, *, input_tools: Iterable[Mapping[str, Any]] | None) -> None:
        super().__init__(text_format=cast(type, plan.format), input_tools=input_tools)  # parse()'s: a class
        self._plan = plan
        self._translate = ResponseToolAsText(plan.name)

    def handle_event(self, event: ResponseStreamEvent) -> list[ResponseStreamEvent]:
        raws = self._translate(event) if self._plan.method == "tool" else [event]
        events: list[ResponseStreamEvent] = []
        for raw in raws:
            events += super().handle_event(raw)
        final: ParsedResponse[Any] | None = self.completed_response
        if final is not None and final.structured_output is None:
            self._plan.record(final.usage)
            self._plan.finish(final)
        return events
