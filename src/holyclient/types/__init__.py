"""Public response models and request shapes, as ``openai.types``.

One module per API area (``chat``, ``embeddings``, ``models`` ...); each area adds one import block
here. ``from holyclient.types.chat import ChatCompletionMessageParam`` works as it does with openai.
"""

from __future__ import annotations

from ._base import BaseModel
from .chat import (
    ChatCompletion,
    ChatCompletionAssistantMessageParam,
    ChatCompletionChunk,
    ChatCompletionContentPartParam,
    ChatCompletionContentPartTextParam,
    ChatCompletionDeveloperMessageParam,
    ChatCompletionMessage,
    ChatCompletionMessageParam,
    ChatCompletionMessageToolCall,
    ChatCompletionMessageToolCallParam,
    ChatCompletionNamedToolChoiceParam,
    ChatCompletionRequest,
    ChatCompletionStreamOptionsParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionToolChoiceOptionParam,
    ChatCompletionToolMessageParam,
    ChatCompletionToolParam,
    ChatCompletionUserMessageParam,
    Choice,
    ChoiceDelta,
    ChoiceDeltaToolCall,
    ChoiceDeltaToolCallFunction,
    ChoiceLogprobs,
    ChunkChoice,
    FunctionCall,
    FunctionDefinitionParam,
    TokenLogprob,
    TopLogprob,
)
from .embeddings import CreateEmbeddingResponse, Embedding, EmbeddingUsage
from .models import Model, ModelList
from .shared import CompletionTokensDetails, CompletionUsage, PromptTokensDetails

__all__ = [
    "BaseModel",
    "ChatCompletion",
    "ChatCompletionAssistantMessageParam",
    "ChatCompletionChunk",
    "ChatCompletionContentPartParam",
    "ChatCompletionContentPartTextParam",
    "ChatCompletionDeveloperMessageParam",
    "ChatCompletionMessage",
    "ChatCompletionMessageParam",
    "ChatCompletionMessageToolCall",
    "ChatCompletionMessageToolCallParam",
    "ChatCompletionNamedToolChoiceParam",
    "ChatCompletionRequest",
    "ChatCompletionStreamOptionsParam",
    "ChatCompletionSystemMessageParam",
    "ChatCompletionToolChoiceOptionParam",
    "ChatCompletionToolMessageParam",
    "ChatCompletionToolParam",
    "ChatCompletionUserMessageParam",
    "Choice",
    "ChoiceDelta",
    "ChoiceDeltaToolCall",
    "ChoiceDeltaToolCallFunction",
    "ChoiceLogprobs",
    "ChunkChoice",
    "CompletionTokensDetails",
    "CompletionUsage",
    "CreateEmbeddingResponse",
    "Embedding",
    "EmbeddingUsage",
    "FunctionCall",
    "FunctionDefinitionParam",
    "Model",
    "ModelList",
    "PromptTokensDetails",
    "TokenLogprob",
    "TopLogprob",
]
