"""``ParsedResponse`` and its parts: a Responses API answer with the text and tool arguments decoded.

What ``client.responses.parse()`` and the ``responses.stream()`` helper return. Each class subclasses
the plain response model, so code written against ``Response`` keeps working on a parsed one; the type
parameter is the ``text_format`` class. ``InputTokenCountResponse`` answers ``input_tokens.count()``.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import Field, SerializeAsAny, field_validator

from ._model import BaseModel
from ._responses import Response, ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText
from ._structured_output import CarriesStructuredOutput

ContentType = TypeVar("ContentType")


class ParsedResponseOutputText(ResponseOutputText, Generic[ContentType]):
    parsed: ContentType | None = None
    """The text validated into the ``text_format`` class (``None`` without one)."""


class ParsedResponseOutputMessage(ResponseOutputMessage, Generic[ContentType]):
    content: list[SerializeAsAny[BaseModel]] = Field(default_factory=list)

    @field_validator("content", mode="before")
    @classmethod
    def _content_by_type(cls, value: Any) -> Any:
        """Text parts become parsed ones; any other part is what the plain message makes of it."""
        return _each(value, {"output_text": ParsedResponseOutputText}, _plain_part)


class ParsedResponseFunctionToolCall(ResponseFunctionToolCall):
    parsed_arguments: object = None
    """The arguments decoded: an instance of the tool's model for ``pydantic_function_tool`` tools,
    plain JSON data for other strict tools, ``None`` otherwise."""


class ParsedResponse(CarriesStructuredOutput, Response, Generic[ContentType]):
    output: list[SerializeAsAny[BaseModel]] = Field(default_factory=list)  # type: ignore[assignment]

    @field_validator("output", mode="before")
    @classmethod
    def _output_by_type(cls, value: Any) -> Any:
        """Messages and function calls become parsed ones; any other item is what ``Response`` makes of it."""
        kinds: dict[str, type[BaseModel]] = {
            "message": ParsedResponseOutputMessage,
            "function_call": ParsedResponseFunctionToolCall,
        }
        return _each(value, kinds, _plain_item)

    @property
    def output_parsed(self) -> ContentType | None:
        """The first decoded ``output_text`` of the output messages, as openai's."""
        for item in self.output:
            if isinstance(item, ParsedResponseOutputMessage):
                for part in item.content:
                    if isinstance(part, ParsedResponseOutputText) and part.parsed:
                        return part.parsed  # type: ignore[no-any-return]
        return None


def _each(value: Any, kinds: dict[str, type[BaseModel]], other: Any) -> Any:
    """Validate each dict of a list into the class its ``type`` names, or with ``other``."""
    if not isinstance(value, list):
        return value
    return [
        (kinds[item["type"]].model_validate(item) if item.get("type") in kinds else other(item))
        if isinstance(item, dict)
        else item
        for item in value
    ]


# Parts and items this module does not specialise are validated exactly as the plain models do, whatever
# their classes are: only the public ``Response`` / ``ResponseOutputMessage`` are relied on.
def _plain_item(item: dict[str, Any]) -> Any:
    return Response.model_validate({"id": "", "output": [item]}).output[0]


def _plain_part(part: dict[str, Any]) -> Any:
    message = {"id": "", "type": "message", "role": "assistant", "status": "completed", "content": [part]}
    return ResponseOutputMessage.model_validate(message).content[0]
