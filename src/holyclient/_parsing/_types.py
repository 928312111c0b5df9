"""``ParsedChatCompletion`` and its parts: a chat completion with the content and tool arguments decoded.

Each class subclasses the plain response model, so code written against ``ChatCompletion`` keeps
working on a parsed one; the type parameter is the ``response_format`` class.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from ..types._chat import (
    ChatCompletion,
    ChatCompletionMessage,
    ChatCompletionMessageToolCall,
    Choice,
    Function,
)
from ..types._structured_output import CarriesStructuredOutput

ContentType = TypeVar("ContentType")


class ParsedFunction(Function):
    parsed_arguments: object | None = None
    """The arguments decoded: an instance of the tool's model for ``pydantic_function_tool`` tools,
    plain JSON data for other strict tools, ``None`` otherwise."""


class ParsedFunctionToolCall(ChatCompletionMessageToolCall):
    function: ParsedFunction | None = None


class ParsedChatCompletionMessage(ChatCompletionMessage, Generic[ContentType]):
    parsed: ContentType | None = None
    """The content validated into the ``response_format`` class (``None`` on a refusal or with no class)."""
    tool_calls: list[ParsedFunctionToolCall] | None = None  # type: ignore[assignment]


class ParsedChoice(Choice, Generic[ContentType]):
    message: ParsedChatCompletionMessage[ContentType]


class ParsedChatCompletion(CarriesStructuredOutput, ChatCompletion, Generic[ContentType]):
    choices: list[ParsedChoice[ContentType]]  # type: ignore[assignment]
