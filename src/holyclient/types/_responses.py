"""The Responses API (``client.responses.create``): the ``Response`` object and its stream events.

Output items and stream events are told apart by their ``type`` field, as in openai. A type this
module does not know (the API grows new ones often) still parses, into the generic base class, so a
new item or event never breaks an old client.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import Field, SerializeAsAny, field_validator

from ._model import BaseModel
from ._response_config import (
    Conversation,
    IncompleteDetails,
    Reasoning,
    tool_choice_by_type,
    tools_by_type,
)
from .responses.response_text_config import ResponseTextConfig

# --- output items -------------------------------------------------------------------------------


# Fields are declared in openai's order, with openai's optional fields too (as ``None``), so that a
# response prints, reprs and dumps as openai's does. The open base classes (``ResponseOutputItem``,
# ``ResponseStreamEvent``) declare their common fields for the type checker only: declared at run time
# they would come first in every subclass, where openai puts them in alphabetical place; an item or event
# of a kind this module does not know keeps them as extra fields, readable as attributes all the same.


class ResponseOutputText(BaseModel):
    annotations: list[Any] = Field(default_factory=list)
    text: str = ""
    type: str = "output_text"
    logprobs: list[Any] | None = None


class ResponseOutputRefusal(BaseModel):
    refusal: str = ""
    type: str = "refusal"


class ResponseOutputItem(BaseModel):
    """Any output item; the known kinds below are subclasses."""

    if TYPE_CHECKING:
        type: str
        id: str | None


class ResponseOutputMessage(ResponseOutputItem):
    id: str | None = None
    # SerializeAsAny: the parts are validated into subclasses (parsed ones too); dumps keep their fields.
    content: list[SerializeAsAny[BaseModel]] = Field(default_factory=list)
    role: str = "assistant"
    status: str | None = None
    type: str = "message"
    phase: str | None = None

    @field_validator("content", mode="before")
    @classmethod
    def _content_by_type(cls, value: Any) -> Any:
        return _by_type(value, _CONTENT_KINDS, BaseModel)


class ResponseFunctionToolCall(ResponseOutputItem):
    arguments: str = ""
    """JSON text produced by the model; it may not be valid JSON, so it is kept as a string."""
    call_id: str = ""
    name: str = ""
    type: str = "function_call"
    id: str | None = None
    async_: bool | None = Field(default=None, alias="async")
    caller: Any | None = None
    namespace: str | None = None
    status: str | None = None


class ResponseReasoningItem(ResponseOutputItem):
    id: str | None = None
    summary: list[Any] = Field(default_factory=list)
    type: str = "reasoning"
    content: list[Any] | None = None
    encrypted_content: str | None = None
    status: str | None = None


_CONTENT_KINDS: dict[str, type[BaseModel]] = {
    "output_text": ResponseOutputText,
    "refusal": ResponseOutputRefusal,
}
_OUTPUT_KINDS: dict[str, type[BaseModel]] = {
    "message": ResponseOutputMessage,
    "function_call": ResponseFunctionToolCall,
    "reasoning": ResponseReasoningItem,
}


def _by_type(value: Any, kinds: dict[str, type[BaseModel]], fallback: type[BaseModel]) -> Any:
    """Validate each dict of a list into the class its ``type`` names (``fallback`` when unknown)."""
    if not isinstance(value, list):
        return value
    return [
        kinds.get(str(item.get("type")), fallback).model_validate(item) if isinstance(item, dict) else item
        for item in value
    ]


# --- the response -------------------------------------------------------------------------------


class InputTokensDetails(BaseModel):
    cache_write_tokens: int | None = None
    cached_tokens: int = 0
    cache_write_tokens_details: Any | None = None


class OutputTokensDetails(BaseModel):
    reasoning_tokens: int = 0


class ResponseUsage(BaseModel):
    input_tokens: int = 0
    input_tokens_details: InputTokensDetails | None = None
    output_tokens: int = 0
    output_tokens_details: OutputTokensDetails | None = None
    total_tokens: int = 0


class ResponseError(BaseModel):
    code: str | None = None
    message: str = ""
    misalignment: Any | None = None
    param: str | None = None
    type: str | None = None


class Response(BaseModel):
    id: str
    access_programs: Any | None = None
    created_at: float = 0
    error: ResponseError | None = None
    incomplete_details: IncompleteDetails | None = None
    instructions: Any = None
    metadata: dict[str, str] | None = None
    model: str = ""
    object: str = "response"
    # ``SerializeAsAny``: dump each item as the subclass it is (the declared class has no fields).
    output: list[SerializeAsAny[ResponseOutputItem]] = Field(default_factory=list)
    parallel_tool_calls: bool | None = None
    temperature: float | None = None
    tool_choice: Any | None = None  # a string, or the model an object's ``type`` names
    # each tool as the model its ``type`` names (``FunctionTool`` ...); see ``_response_config``
    tools: list[Any] | None = None
    top_p: float | None = None
    background: bool | None = None
    completed_at: float | None = None
    conversation: Conversation | None = None
    image: Any | None = None
    input_transformations: Any | None = None
    max_output_tokens: int | None = None
    max_tool_calls: int | None = None
    moderation: Any | None = None
    previous_response_id: str | None = None
    prompt: Any | None = None
    prompt_cache_diagnostics: Any | None = None
    prompt_cache_key: str | None = None
    prompt_cache_options: Any | None = None
    prompt_cache_retention: str | None = None
    reasoning: Reasoning | None = None
    safety_identifier: str | None = None
    service_tier: str | None = None
    status: str | None = None
    text: ResponseTextConfig | None = None
    tool_usage: Any | None = None
    top_logprobs: int | None = None
    truncation: str | None = None
    usage: ResponseUsage | None = None
    user: str | None = None

    @field_validator("output", mode="before")
    @classmethod
    def _output_by_type(cls, value: Any) -> Any:
        return _by_type(value, _OUTPUT_KINDS, ResponseOutputItem)

    @field_validator("tools", mode="before")
    @classmethod
    def _tools_by_type(cls, value: Any) -> Any:
        return tools_by_type(value)

    @field_validator("tool_choice", mode="before")
    @classmethod
    def _tool_choice_by_type(cls, value: Any) -> Any:
        return tool_choice_by_type(value)

    @property
    def output_text(self) -> str:
        """The text of every ``output_text`` part of every message item, joined (as openai computes it)."""
        return "".join(
            part.text
            for item in self.output
            if isinstance(item, ResponseOutputMessage)
            for part in item.content
            if isinstance(part, ResponseOutputText)
        )


# --- stream events ------------------------------------------------------------------------------


class ResponseStreamEvent(BaseModel):
    """Any event of a streamed response; the known kinds below are subclasses."""

    if TYPE_CHECKING:
        type: str
        sequence_number: int

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **kwargs: Any) -> ResponseStreamEvent:
        """Parse one SSE ``data`` payload into the event class its ``type`` names."""
        try:
            payload = json.loads(json_data)
        except ValueError:
            return super().model_validate_json(json_data, **kwargs)  # raises the usual ValidationError
        kind = (
            _EVENT_KINDS.get(str(payload.get("type")), ResponseStreamEvent)
            if isinstance(payload, dict)
            else cls
        )
        return kind.model_validate(payload)

    # The client's stream accounting reads ``usage`` and ``model`` of each item, as on a chat chunk: the
    # final ``response.completed`` event carries both inside its ``response``, so the stream is charged.
    @property
    def usage(self) -> ResponseUsage | None:
        response = getattr(self, "response", None)
        return response.usage if isinstance(response, Response) else None

    @property
    def model(self) -> str | None:
        response = getattr(self, "response", None)
        return response.model if isinstance(response, Response) else None


class _ResponseLifecycleEvent(ResponseStreamEvent):
    response: SerializeAsAny[Response]
    sequence_number: int = 0
    type: str


class ResponseCreatedEvent(_ResponseLifecycleEvent):
    type: str = "response.created"


class ResponseInProgressEvent(_ResponseLifecycleEvent):
    type: str = "response.in_progress"


class ResponseCompletedEvent(_ResponseLifecycleEvent):
    type: str = "response.completed"


class ResponseFailedEvent(_ResponseLifecycleEvent):
    type: str = "response.failed"


class ResponseIncompleteEvent(_ResponseLifecycleEvent):
    type: str = "response.incomplete"


class ResponseOutputItemAddedEvent(ResponseStreamEvent):
    item: SerializeAsAny[ResponseOutputItem]
    output_index: int = 0
    sequence_number: int = 0
    type: str = "response.output_item.added"

    @field_validator("item", mode="before")
    @classmethod
    def _item_by_type(cls, value: Any) -> Any:
        return _by_type([value], _OUTPUT_KINDS, ResponseOutputItem)[0]


class ResponseOutputItemDoneEvent(ResponseOutputItemAddedEvent):
    type: str = "response.output_item.done"


class ResponseContentPartAddedEvent(ResponseStreamEvent):
    content_index: int = 0
    item_id: str = ""
    output_index: int = 0
    part: SerializeAsAny[BaseModel]
    sequence_number: int = 0
    type: str = "response.content_part.added"

    @field_validator("part", mode="before")
    @classmethod
    def _part_by_type(cls, value: Any) -> Any:
        return _by_type([value], _CONTENT_KINDS, BaseModel)[0]


class ResponseContentPartDoneEvent(ResponseContentPartAddedEvent):
    type: str = "response.content_part.done"


class ResponseTextDeltaEvent(ResponseStreamEvent):
    content_index: int = 0
    delta: str = ""
    item_id: str = ""
    logprobs: list[Any] | None = None
    output_index: int = 0
    sequence_number: int = 0
    type: str = "response.output_text.delta"


class ResponseTextDoneEvent(ResponseStreamEvent):
    content_index: int = 0
    item_id: str = ""
    logprobs: list[Any] | None = None
    output_index: int = 0
    sequence_number: int = 0
    text: str = ""
    type: str = "response.output_text.done"


class ResponseFunctionCallArgumentsDeltaEvent(ResponseStreamEvent):
    delta: str = ""
    item_id: str = ""
    output_index: int = 0
    sequence_number: int = 0
    type: str = "response.function_call_arguments.delta"


class ResponseFunctionCallArgumentsDoneEvent(ResponseStreamEvent):
    arguments: str = ""
    item_id: str = ""
    output_index: int = 0
    sequence_number: int = 0
    type: str = "response.function_call_arguments.done"


class ResponseErrorEvent(ResponseStreamEvent):
    code: str | None = None
    message: str = ""
    param: str | None = None
    sequence_number: int = 0
    type: str = "error"


_EVENT_KINDS: dict[str, type[ResponseStreamEvent]] = {
    cls.model_fields["type"].default: cls
    for cls in (
        ResponseCreatedEvent,
        ResponseInProgressEvent,
        ResponseCompletedEvent,
        ResponseFailedEvent,
        ResponseIncompleteEvent,
        ResponseOutputItemAddedEvent,
        ResponseOutputItemDoneEvent,
        ResponseContentPartAddedEvent,
        ResponseContentPartDoneEvent,
        ResponseTextDeltaEvent,
        ResponseTextDoneEvent,
        ResponseFunctionCallArgumentsDeltaEvent,
        ResponseFunctionCallArgumentsDoneEvent,
        ResponseErrorEvent,
    )
}
