"""Public response models and request shapes, as ``openai.types``.

The hand-written models (one private or area module each: ``_chat``, ``_responses``, ``embeddings`` ...)
are imported here. Around them, ``scripts/gen_types.py`` generates the rest of ``openai.types``' tree from
the official spec (``chat/``, ``responses/``, ``shared_params/``, ``chat_completion_chunk.py`` ...), so
``from holyclient.types.chat.chat_completion import Choice`` works as it does with openai; those modules
re-export the hand-written classes rather than define them twice, and load only when imported. The other
top-level ``openai.types`` names (``holyclient.types.ChatModel``) load on first access.
"""

from __future__ import annotations

from .._lazy import lazy_names as _lazy_names
from ._chat import (
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
from ._model import BaseModel
from ._shared import CompletionTokensDetails, CompletionUsage, PromptTokensDetails
from .batches import Batch, BatchError, BatchRequestCounts
from .completions import Completion, CompletionChoice
from .embeddings import CreateEmbeddingResponse, Embedding, EmbeddingUsage
from .files import FileDeleted, FileObject
from .images import Image, ImagesResponse
from .models import Model
from .moderations import Moderation, ModerationCreateResponse

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


def _openai_names() -> dict[str, str]:
    from ._openai_index import OPENAI_NAMES

    return OPENAI_NAMES


__getattr__ = _lazy_names(__name__, _openai_names, globals())
