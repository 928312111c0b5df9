"""The Responses API (``client.responses.create``): the ``Response`` object and its stream events.

Output items and stream events are told apart by their ``type`` field, as in openai. A type this
module does not know (the API grows new ones often) still parses, into the generic base class, so a
new item or event never breaks an old client.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field, field_validator

from ._model import BaseModel

# --- output items -------------------------------------------------------------------------------


class ResponseOutputText(BaseModel):
    type: str = "output_text"
    text: str = ""
    annotations: list[Any] = Field(default_factory=list)
    logprobs: list[Any] | None = None


class ResponseOutputRefusal(BaseModel):
    type: str = "refusal"
    refusal: str = ""


class ResponseOutputItem(BaseModel):
    """Any output item; the known kinds below are subclasses."""

    type: str
    id: str | None = None


class ResponseOutputMessage(ResponseOutputItem):
    type: str = "message"
    role: str = "assistant"
    status: str | None = None
    content: list[ResponseOutputText | ResponseOutputRefusal | BaseModel] = Field(default_factory=list)

    @field_validator("content", mode="before")
    @classmethod
    def _content_by_type(cls, value: Any) -> Any:
        kinds: dict[str, type[BaseModel]] = {
            "output_text": ResponseOutputText,
            "refusal": ResponseOutputRefusal,
        }
        return _by_type(value, kinds, BaseModel)


class ResponseFunctionToolCall(ResponseOutputItem):
    type: str = "function_call"
    call_id: str = ""
    name: str = ""
    arguments: str = ""
    """JSON text produced by the model; it may not be valid JSON, so it is kept as a string."""
    status: str | None = None


class ResponseReasoningItem(ResponseOutputItem):
    type: str = "reasoning"
    summary: list[Any] = Field(default_factory=list)


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
    cached_tokens: int = 0


class OutputTokensDetails(BaseModel):
    reasoning_tokens: int = 0


class ResponseUsage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    input_tokens_details: InputTokensDetails | None = None
    output_tokens_details: OutputTokensDetails | None = None


class ResponseError(BaseModel):
    code: str | None = None
    message: str = ""


class Response(BaseModel):
    id: str
    object: str = "response"
    created_at: float = 0
    model: str = ""
    status: str | None = None
    output: list[ResponseOutputItem] = Field(default_factory=list)
    usage: ResponseUsage | None = None
    error: ResponseError | None = None
    incomplete_details: dict[str, Any] | None = None
    instructions: Any = None
    previous_response_id: str | None = None

    @field_validator("output", mode="before")
    @classmethod
    def _output_by_type(cls, value: Any) -> Any:
        return _by_type(value, _OUTPUT_KINDS, ResponseOutputItem)

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

    type: str
    sequence_number: int = 0

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
    response: Response


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
    type: str = "response.output_item.added"
    output_index: int = 0
    item: ResponseOutputItem

    @field_validator("item", mode="before")
    @classmethod
    def _item_by_type(cls, value: Any) -> Any:
        return _by_type([value], _OUTPUT_KINDS, ResponseOutputItem)[0]


class ResponseOutputItemDoneEvent(ResponseOutputItemAddedEvent):
    type: str = "response.output_item.done"


class ResponseContentPartAddedEvent(ResponseStreamEvent):
    type: str = "response.content_part.added"
    item_id: str = ""
    output_index: int = 0
    content_index: int = 0
    part: dict[str, Any] = Field(default_factory=dict)


class ResponseContentPartDoneEvent(ResponseContentPartAddedEvent):
    type: str = "response.content_part.done"


class ResponseTextDeltaEvent(ResponseStreamEvent):
    type: str = "response.output_text.delta"
    item_id: str = ""
    output_index: int = 0
    content_index: int = 0
    delta: str = ""


class ResponseTextDoneEvent(ResponseStreamEvent):
    type: str = "response.output_text.done"
    item_id: str = ""
    output_index: int = 0
    content_index: int = 0
    text: str = ""


class ResponseFunctionCallArgumentsDeltaEvent(ResponseStreamEvent):
    type: str = "response.function_call_arguments.delta"
    item_id: str = ""
    output_index: int = 0
    delta: str = ""


class ResponseFunctionCallArgumentsDoneEvent(ResponseStreamEvent):
    type: str = "response.function_call_arguments.done"
    item_id: str = ""
    output_index: int = 0
    arguments: str = ""


class ResponseErrorEvent(ResponseStreamEvent):
    type: str = "error"
    code: str | None = None
    message: str = ""
    param: str | None = None


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
