"""The typed events ``chat.completions.stream()`` yields, named and shaped as the official SDK's.

Every event has a ``type`` string to dispatch on (``event.type == "content.delta"``); ``snapshot``
fields are the accumulated state *after* the chunk that produced the event.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar, Union

from .._parsing import ParsedChatCompletion
from ..types import BaseModel as _Event
from ..types._chat import ChatCompletionChunk, TokenLogprob

ResponseFormatT = TypeVar("ResponseFormatT")


class ChunkEvent(_Event):
    """Every chunk, as received, with the completion accumulated so far."""

    type: Literal["chunk"]
    chunk: ChatCompletionChunk
    snapshot: ParsedChatCompletion[Any]


class ContentDeltaEvent(_Event):
    type: Literal["content.delta"]
    delta: str
    snapshot: str
    """The content so far."""
    parsed: object | None = None
    """With a ``response_format`` class: the content so far, parsed as partial JSON (plain data)."""


class ContentDoneEvent(_Event, Generic[ResponseFormatT]):
    type: Literal["content.done"]
    content: str
    parsed: ResponseFormatT | None = None
    """With a ``response_format`` class: the content validated into it."""


class RefusalDeltaEvent(_Event):
    type: Literal["refusal.delta"]
    delta: str
    snapshot: str


class RefusalDoneEvent(_Event):
    type: Literal["refusal.done"]
    refusal: str


class FunctionToolCallArgumentsDeltaEvent(_Event):
    type: Literal["tool_calls.function.arguments.delta"]
    name: str
    index: int
    arguments: str
    """The JSON text so far."""
    parsed_arguments: object
    """For strict tools, the arguments so far parsed as partial JSON; else ``None``."""
    arguments_delta: str


class FunctionToolCallArgumentsDoneEvent(_Event):
    type: Literal["tool_calls.function.arguments.done"]
    name: str
    index: int
    arguments: str
    parsed_arguments: object
    """For ``pydantic_function_tool`` tools an instance of the model; JSON data for other strict tools."""


class LogprobsContentDeltaEvent(_Event):
    type: Literal["logprobs.content.delta"]
    content: list[TokenLogprob]
    snapshot: list[TokenLogprob]


class LogprobsContentDoneEvent(_Event):
    type: Literal["logprobs.content.done"]
    content: list[TokenLogprob]


class LogprobsRefusalDeltaEvent(_Event):
    type: Literal["logprobs.refusal.delta"]
    refusal: list[TokenLogprob]
    snapshot: list[TokenLogprob]


class LogprobsRefusalDoneEvent(_Event):
    type: Literal["logprobs.refusal.done"]
    refusal: list[TokenLogprob]


ChatCompletionStreamEvent = Union[  # noqa: UP007 - a runtime alias users may import
    ChunkEvent,
    ContentDeltaEvent,
    ContentDoneEvent[Any],
    RefusalDeltaEvent,
    RefusalDoneEvent,
    FunctionToolCallArgumentsDeltaEvent,
    FunctionToolCallArgumentsDoneEvent,
    LogprobsContentDeltaEvent,
    LogprobsContentDoneEvent,
    LogprobsRefusalDeltaEvent,
    LogprobsRefusalDoneEvent,
]
