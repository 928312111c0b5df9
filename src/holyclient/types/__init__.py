"""Public response models and request shapes, as ``openai.types``.

The hand-written models (one private or area module each: ``_chat``, ``_responses``, ``embeddings`` ...)
are offered here and loaded on first use (a chat call builds no batch or image model: every pydantic model
class costs memory). Around them, ``scripts/gen_types.py`` generates the rest of ``openai.types``' tree from
the official spec (``chat/``, ``responses/``, ``shared_params/``, ``chat_completion_chunk.py`` ...), so
``from holyclient.types.chat.chat_completion import Choice`` works as it does with openai; those modules
re-export the hand-written classes rather than define them twice, and load only when imported. The other
top-level ``openai.types`` names (``holyclient.types.ChatModel``) load on first access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names as _lazy_names

if TYPE_CHECKING:
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

#: The hand-written models and request shapes, by module: loaded on first use, so that a chat call
#: builds the chat models only (each pydantic model class built costs memory).
_HANDWRITTEN: dict[str, str] = {
    "BaseModel": "._model",
    "Batch": ".batches",
    "BatchError": ".batches",
    "BatchRequestCounts": ".batches",
    "ChatCompletion": "._chat",
    "ChatCompletionAssistantMessageParam": "._chat",
    "ChatCompletionChunk": "._chat",
    "ChatCompletionContentPartParam": "._chat",
    "ChatCompletionContentPartTextParam": "._chat",
    "ChatCompletionDeveloperMessageParam": "._chat",
    "ChatCompletionMessage": "._chat",
    "ChatCompletionMessageParam": "._chat",
    "ChatCompletionMessageToolCall": "._chat",
    "ChatCompletionMessageToolCallParam": "._chat",
    "ChatCompletionNamedToolChoiceParam": "._chat",
    "ChatCompletionRequest": "._chat",
    "ChatCompletionStreamOptionsParam": "._chat",
    "ChatCompletionSystemMessageParam": "._chat",
    "ChatCompletionToolChoiceOptionParam": "._chat",
    "ChatCompletionToolMessageParam": "._chat",
    "ChatCompletionToolParam": "._chat",
    "ChatCompletionUserMessageParam": "._chat",
    "Choice": "._chat",
    "ChoiceDelta": "._chat",
    "ChoiceDeltaToolCall": "._chat",
    "ChoiceDeltaToolCallFunction": "._chat",
    "ChoiceLogprobs": "._chat",
    "ChunkChoice": "._chat",
    "Completion": ".completions",
    "CompletionChoice": ".completions",
    "CompletionTokensDetails": "._shared",
    "CompletionUsage": "._shared",
    "CreateEmbeddingResponse": ".embeddings",
    "Embedding": ".embeddings",
    "EmbeddingUsage": ".embeddings",
    "FileDeleted": ".files",
    "FileObject": ".files",
    "FunctionCall": "._chat",
    "FunctionDefinitionParam": "._chat",
    "Image": ".images",
    "ImagesResponse": ".images",
    "Model": ".models",
    "Moderation": ".moderations",
    "ModerationCreateResponse": ".moderations",
    "PromptTokensDetails": "._shared",
    "TokenLogprob": "._chat",
    "TopLogprob": "._chat",
}

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


def _names() -> dict[str, str]:
    """Every lazy name: ``openai.types``' other names (a 1,650-name index), then the hand-written ones."""
    from ._openai_index import OPENAI_NAMES

    return {**OPENAI_NAMES, **_HANDWRITTEN}


__getattr__ = _lazy_names(__name__, _names, globals())
