"""Response models and request shapes.

Every model allows extra fields (``extra="allow"``): a field the server adds tomorrow is kept on the
object instead of breaking today's client. Request shapes are ``TypedDict``s so the dict literals
users already write for the official SDK type-check unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from typing_extensions import NotRequired, Required, TypedDict


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", protected_namespaces=())

    def to_dict(self) -> dict[str, Any]:
        """The model as plain JSON-compatible data, unknown fields included."""
        return self.model_dump(mode="json", exclude_unset=True)


# --- shared -------------------------------------------------------------------------------------


class PromptTokensDetails(_Model):
    cached_tokens: int | None = None
    """Prompt tokens served from the provider's cache (billed at the cached-input price)."""
    audio_tokens: int | None = None


class CompletionTokensDetails(_Model):
    reasoning_tokens: int | None = None
    audio_tokens: int | None = None
    accepted_prediction_tokens: int | None = None
    rejected_prediction_tokens: int | None = None


class CompletionUsage(_Model):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    prompt_tokens_details: PromptTokensDetails | None = None
    completion_tokens_details: CompletionTokensDetails | None = None


# --- chat completions ---------------------------------------------------------------------------


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
    top_logprobs: list[TopLogprob] = []


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
    choices: list[ChunkChoice] = []
    usage: CompletionUsage | None = None
    """Set on the last chunk only, when ``stream_options={"include_usage": True}``."""
    system_fingerprint: str | None = None
    service_tier: str | None = None


# --- embeddings ---------------------------------------------------------------------------------


class Embedding(_Model):
    object: str = "embedding"
    index: int = 0
    embedding: list[float] | str
    """Floats, or a base64 string when requested with ``encoding_format="base64"``."""


class EmbeddingUsage(_Model):
    prompt_tokens: int = 0
    total_tokens: int = 0


class CreateEmbeddingResponse(_Model):
    object: str = "list"
    data: list[Embedding]
    model: str
    usage: EmbeddingUsage | None = None


# --- models -------------------------------------------------------------------------------------


class Model(_Model):
    id: str
    object: str = "model"
    created: int = 0
    owned_by: str = ""


class ModelList(_Model):
    """The ``/models`` listing; iterating it yields the models, as the official SDK's page does."""

    object: str = "list"
    data: list[Model]

    def __iter__(self) -> Iterator[Model]:  # type: ignore[override]
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


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
