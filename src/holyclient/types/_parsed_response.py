"""``ParsedResponse`` and its parts: a Responses API answer with the text and tool arguments decoded.

What ``client.responses.parse()`` and the ``responses.stream()`` helper return. Each class subclasses
the plain response model, so code written against ``Response`` keeps working on a parsed one; the type
parameter is the ``text_format`` class. ``InputTokenCountResponse`` answers ``input_tokens.count()``.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import Field, PrivateAttr, SerializeAsAny, field_validator

from ._model import BaseModel
from .responses import (
    _OUTPUT_KINDS,
    Response,
    ResponseFunctionToolCall,
    ResponseOutputItem,
    ResponseOutputMessage,
    ResponseOutputRefusal,
    ResponseOutputText,
    _by_type,
)

ContentType = TypeVar("ContentType")


class ParsedResponseOutputText(ResponseOutputText, Generic[ContentType]):
    parsed: ContentType | None = None
    """The text validated into the ``text_format`` class (``None`` without one)."""


class ParsedResponseOutputMessage(ResponseOutputMessage, Generic[ContentType]):
    content: list[SerializeAsAny[BaseModel]] = Field(default_factory=list)

    @field_validator("content", mode="before")
    @classmethod
    def _content_by_type(cls, value: Any) -> Any:
        kinds: dict[str, type[BaseModel]] = {
            "output_text": ParsedResponseOutputText,
            "refusal": ResponseOutputRefusal,
        }
        return _by_type(value, kinds, BaseModel)


class ParsedResponseFunctionToolCall(ResponseFunctionToolCall):
    parsed_arguments: object = None
    """The arguments decoded: an instance of the tool's model for ``pydantic_function_tool`` tools,
    plain JSON data for other strict tools, ``None`` otherwise."""


_PARSED_KINDS: dict[str, type[BaseModel]] = {
    **_OUTPUT_KINDS,
    "message": ParsedResponseOutputMessage,
    "function_call": ParsedResponseFunctionToolCall,
}


class ParsedResponse(Response, Generic[ContentType]):
    output: list[SerializeAsAny[ResponseOutputItem]] = Field(default_factory=list)

    @field_validator("output", mode="before")
    @classmethod
    def _output_by_type(cls, value: Any) -> Any:
        return _by_type(value, _PARSED_KINDS, ResponseOutputItem)

    @property
    def output_parsed(self) -> ContentType | None:
        """The first decoded ``output_text`` of the output messages, as openai's."""
        for item in self.output:
            if isinstance(item, ParsedResponseOutputMessage):
                for part in item.content:
                    if isinstance(part, ParsedResponseOutputText) and part.parsed:
                        return part.parsed  # type: ignore[no-any-return]
        return None


class InputTokenCountResponse(BaseModel):
    """The input tokens of a Responses request (``client.responses.input_tokens.count``)."""

    input_tokens: int
    object: Literal["response.input_tokens"] = "response.input_tokens"
    _source: Literal["server", "local"] = PrivateAttr(default="server")

    @property
    def source(self) -> Literal["server", "local"]:
        """``"server"`` when the server counted; ``"local"`` when it lacks the endpoint and holyclient's
        offline counter did (an estimate for non-OpenAI models; see ``holyclient.count_request``)."""
        return self._source
