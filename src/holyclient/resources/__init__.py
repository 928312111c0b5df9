"""API resources, one module per API area; each operation is declared once in its module.

``SYNC_RESOURCES`` / ``ASYNC_RESOURCES`` name the attributes the clients bind (``client.chat`` ...):
a new area adds its module, one line to each table and one annotation to each client class.
"""

from __future__ import annotations

from typing import Any

from ._operation import AsyncAPIResource, Operation, StreamingOperation, SyncAPIResource
from .audio import AsyncAudio, Audio
from .batches import AsyncBatches, Batches
from .beta import AsyncBeta, Beta
from .chat import AsyncChat, AsyncCompletions, Chat, Completions
from .completions import AsyncCompletions as AsyncTextCompletions
from .completions import Completions as TextCompletions
from .embeddings import AsyncEmbeddings, Embeddings
from .files import AsyncFiles, Files
from .images import AsyncImages, Images
from .models import AsyncModels, Models
from .moderations import AsyncModerations, Moderations
from .responses import AsyncResponses, Responses

SYNC_RESOURCES: dict[str, Any] = {
    "beta": Beta,
    "chat": Chat,
    "embeddings": Embeddings,
    "models": Models,
    "audio": Audio,
    "batches": Batches,
    "completions": TextCompletions,
    "files": Files,
    "images": Images,
    "moderations": Moderations,
    "responses": Responses,
}
ASYNC_RESOURCES: dict[str, Any] = {
    "beta": AsyncBeta,
    "chat": AsyncChat,
    "embeddings": AsyncEmbeddings,
    "models": AsyncModels,
    "audio": AsyncAudio,
    "batches": AsyncBatches,
    "completions": AsyncTextCompletions,
    "files": AsyncFiles,
    "images": AsyncImages,
    "moderations": AsyncModerations,
    "responses": AsyncResponses,
}

__all__ = [
    "ASYNC_RESOURCES",
    "SYNC_RESOURCES",
    "AsyncAPIResource",
    "AsyncBeta",
    "AsyncChat",
    "AsyncCompletions",
    "AsyncEmbeddings",
    "AsyncModels",
    "Beta",
    "Chat",
    "Completions",
    "Embeddings",
    "Models",
    "Operation",
    "StreamingOperation",
    "SyncAPIResource",
]
