"""Public response models and request shapes, as ``openai.types``.

One module per API area (``chat``, ``embeddings``, ``models`` ...); each area adds one import block
here. ``from holyclient.types.chat import ChatCompletionMessageParam`` works as it does with openai.
"""

from __future__ import annotations

from ._model import BaseModel
from .batches import Batch, BatchError, BatchRequestCounts
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
from .completions import Completion, CompletionChoice
from .embeddings import CreateEmbeddingResponse, Embedding, EmbeddingUsage
from .files import FileDeleted, FileObject
from .images import Image, ImagesResponse
from .models import Model
from .moderations import Moderation, ModerationCreateResponse
from .shared import CompletionTokensDetails, CompletionUsage, PromptTokensDetails

__all__ = [
    "BaseModel",
    "Batch",
    "BatchError",
    "BatchRequestCounts",
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
    "Completion",
    "CompletionChoice",
    "CompletionTokensDetails",
    "CompletionUsage",
    "CreateEmbeddingResponse",
    "Embedding",
    "EmbeddingUsage",
    "FileDeleted",
    "FileObject",
    "FunctionCall",
    "FunctionDefinitionParam",
    "Image",
    "ImagesResponse",
    "Model",
    "Moderation",
    "ModerationCreateResponse",
    "PromptTokensDetails",
    "TokenLogprob",
    "TopLogprob",
]
