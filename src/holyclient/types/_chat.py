"""Chat completions: responses, stream chunks and request shapes (as ``openai.types.chat``).

Request shapes are ``TypedDict``s so the dict literals users already write for the official SDK
type-check unchanged.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, Required

from pydantic import Field
from typing_extensions import TypedDict

from ._model import BaseModel as _Model
from ._shared import CompletionUsage


class FunctionCall(_Model):
    arguments: str | None = None
    """JSON text produced by the model; it may not be valid JSON, so it is kept as a string."""
    name: str | None = None


# Fields are declared in openai's order (so ``print()``, ``repr()`` and ``model_dump_json()`` read the
# same), with openai's optional fields declared too, as ``None``, so that they print as openai prints them.


class Function(FunctionCall):
    """The function a tool call names (openai's class name for it, which ``repr`` shows)."""


class ChatCompletionMessageToolCall(_Model):
    id: str | None = None
    function: Function | None = None
    type: str = "function"

    def __repr_name__(self) -> str:
        # openai's ``ChatCompletionMessageToolCall`` is its function tool call class; subclasses
        # (``ParsedFunctionToolCall``) keep their own names, as openai's do.
        cls = type(self)
        return (
            "ChatCompletionMessageFunctionToolCall" if cls is ChatCompletionMessageToolCall else cls.__name__
        )


class ChatCompletionMessage(_Model):
    content: str | None = None
    refusal: str | None = None
    role: str = "assistant"
    annotations: list[Any] | None = None
    audio: Any | None = None
    function_call: FunctionCall | None = None
    tool_calls: list[ChatCompletionMessageToolCall] | None = None


class TopLogprob(_Model):
    token: str
    bytes: list[int] | None = None
    logprob: float


class TokenLogprob(_Model):
    token: str
    bytes: list[int] | None = None
    logprob: float
    top_logprobs: list[TopLogprob] = Field(default_factory=list)

    def __repr_name__(self) -> str:
        return "ChatCompletionTokenLogprob"  # ``openai.types.chat.ChatCompletionTokenLogprob``


class ChoiceLogprobs(_Model):
    content: list[TokenLogprob] | None = None
    refusal: list[TokenLogprob] | None = None


class Choice(_Model):
    finish_reason: str | None = None
    index: int = 0
    logprobs: ChoiceLogprobs | None = None
    message: ChatCompletionMessage


class ChatCompletion(_Model):
    id: str
    choices: list[Choice]
    created: int = 0
    model: str
    object: str = "chat.completion"
    metadata: dict[str, str] | None = None
    moderation: Any | None = None
    service_tier: str | None = None
    system_fingerprint: str | None = None
    usage: CompletionUsage | None = None


class ChoiceDeltaToolCallFunction(_Model):
    arguments: str | None = None
    name: str | None = None


class ChoiceDeltaFunctionCall(ChoiceDeltaToolCallFunction):
    """The deprecated ``function_call`` of a delta (openai's class name, printed in ``repr``)."""


class ChoiceDeltaToolCall(_Model):
    index: int = 0
    id: str | None = None
    function: ChoiceDeltaToolCallFunction | None = None
    type: str | None = None


class ChoiceDelta(_Model):
    audio: Any | None = None
    content: str | None = None
    function_call: ChoiceDeltaFunctionCall | None = None
    refusal: str | None = None
    role: str | None = None
    tool_calls: list[ChoiceDeltaToolCall] | None = None


class ChunkChoice(_Model):
    delta: ChoiceDelta
    index: int = 0
    finish_reason: str | None = None
    logprobs: ChoiceLogprobs | None = None

    def __repr_name__(self) -> str:
        return "Choice"  # openai's name for it (``openai.types.chat.chat_completion_chunk.Choice``)


class ChatCompletionChunk(_Model):
    id: str
    choices: list[ChunkChoice] = Field(default_factory=list)
    created: int = 0
    model: str
    object: str = "chat.completion.chunk"
    moderation: Any | None = None
    obfuscation: str | None = None
    service_tier: str | None = None
    system_fingerprint: str | None = None
    usage: CompletionUsage | None = None
    """Set on the last chunk only, when ``stream_options={"include_usage": True}``."""


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
