"""Chat completions: responses, stream chunks and request shapes (as ``openai.types.chat``).

Request shapes are ``TypedDict``s so the dict literals users already write for the official SDK
type-check unchanged.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, Required

from pydantic import Field
from typing_extensions import TypedDict

from ._model import BaseModel as _Model
from .shared import CompletionUsage


class FunctionCall(_Model):
    name: str | None = None
    arguments: str | None = None
    """JSON text produced by the model; it may not be valid JSON, so it is kept as a string."""


class ChatCompletionMessageToolCall(_Model):
    id: str | None = None
    type: str = "function"
    function: FunctionCall | None = None


class ChatCompletionMessage(_Model):
    role: str = "assistant"
    content: str | None = None
    refusal: str | None = None
    tool_calls: list[ChatCompletionMessageToolCall] | None = None
    function_call: FunctionCall | None = None


class TopLogprob(_Model):
    token: str
    logprob: float
    bytes: list[int] | None = None


class TokenLogprob(_Model):
    token: str
    logprob: float
    bytes: list[int] | None = None
    top_logprobs: list[TopLogprob] = Field(default_factory=list)


class ChoiceLogprobs(_Model):
    content: list[TokenLogprob] | None = None
    refusal: list[TokenLogprob] | None = None


class Choice(_Model):
    index: int = 0
    message: ChatCompletionMessage
    finish_reason: str | None = None
    logprobs: ChoiceLogprobs | None = None


class ChatCompletion(_Model):
    id: str
    object: str = "chat.completion"
    created: int = 0
    model: str
    choices: list[Choice]
    usage: CompletionUsage | None = None
    system_fingerprint: str | None = None
    service_tier: str | None = None


class ChoiceDeltaToolCallFunction(_Model):
    name: str | None = None
    arguments: str | None = None


class ChoiceDeltaToolCall(_Model):
    index: int = 0
    id: str | None = None
    type: str | None = None
    function: ChoiceDeltaToolCallFunction | None = None


class ChoiceDelta(_Model):
    role: str | None = None
    content: str | None = None
    refusal: str | None = None
    tool_calls: list[ChoiceDeltaToolCall] | None = None
    function_call: ChoiceDeltaToolCallFunction | None = None


class ChunkChoice(_Model):
    index: int = 0
    delta: ChoiceDelta
    finish_reason: str | None = None
    logprobs: ChoiceLogprobs | None = None


class ChatCompletionChunk(_Model):
    id: str
    object: str = "chat.completion.chunk"
    created: int = 0
    model: str
    choices: list[ChunkChoice] = Field(default_factory=list)
    usage: CompletionUsage | None = None
    """Set on the last chunk only, when ``stream_options={"include_usage": True}``."""
    system_fingerprint: str | None = None
    service_tier: str | None = None


# --- request shapes -----------------------------------------------------------------------------


class ChatCompletionContentPartParam(TypedDict, total=False):
    type: Required[str]
    text: str
    image_url: dict[str, Any]
    input_audio: dict[str, Any]
    file: dict[str, Any]


class ChatCompletionMessageParam(TypedDict, total=False):
    role: Required[Literal["system", "developer", "user", "assistant", "tool", "function"]]
    content: str | list[ChatCompletionContentPartParam] | None
    name: str
    tool_calls: list[dict[str, Any]]
    tool_call_id: str
    function_call: dict[str, Any]
    refusal: str | None


class ChatCompletionContentPartTextParam(TypedDict):
    type: Literal["text"]
    text: str


class ChatCompletionMessageToolCallParam(TypedDict):
    """A tool call sent back in an assistant message (``{"id", "type", "function": {...}}``)."""

    id: str
    type: Literal["function"]
    function: dict[str, str]


class ChatCompletionSystemMessageParam(TypedDict, total=False):
    role: Required[Literal["system"]]
    content: Required[str | list[ChatCompletionContentPartTextParam]]
    name: str


class ChatCompletionDeveloperMessageParam(TypedDict, total=False):
    role: Required[Literal["developer"]]
    content: Required[str | list[ChatCompletionContentPartTextParam]]
    name: str


class ChatCompletionUserMessageParam(TypedDict, total=False):
    role: Required[Literal["user"]]
    content: Required[str | list[ChatCompletionContentPartParam]]
    name: str


class ChatCompletionAssistantMessageParam(TypedDict, total=False):
    role: Required[Literal["assistant"]]
    content: str | list[ChatCompletionContentPartParam] | None
    refusal: str | None
    name: str
    tool_calls: list[ChatCompletionMessageToolCallParam]
    function_call: dict[str, Any] | None
    audio: dict[str, Any] | None


class ChatCompletionToolMessageParam(TypedDict):
    role: Literal["tool"]
    content: str | list[ChatCompletionContentPartTextParam]
    tool_call_id: str


class ChatCompletionNamedToolChoiceParam(TypedDict):
    type: Literal["function"]
    function: dict[str, str]


ChatCompletionToolChoiceOptionParam = Literal["none", "auto", "required"] | ChatCompletionNamedToolChoiceParam
"""``tool_choice``: a mode, or ``{"type": "function", "function": {"name": ...}}``."""


class ChatCompletionStreamOptionsParam(TypedDict, total=False):
    include_usage: bool


class FunctionDefinitionParam(TypedDict, total=False):
    name: Required[str]
    description: str
    parameters: dict[str, Any]
    strict: bool | None


class ChatCompletionToolParam(TypedDict):
    type: Literal["function"]
    function: FunctionDefinitionParam


class ChatCompletionRequest(TypedDict, total=False):
    """A chat completion request body, as the Batch API and ``holyclient estimate`` read it."""

    model: Required[str]
    messages: Required[list[ChatCompletionMessageParam]]
    max_tokens: NotRequired[int | None]
    max_completion_tokens: NotRequired[int | None]
    tools: NotRequired[list[ChatCompletionToolParam]]
    tool_choice: NotRequired[str | dict[str, Any]]
    stream: NotRequired[bool]
