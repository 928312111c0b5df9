"""API resources, one module per API area; each operation is declared once in its module.

``SYNC_RESOURCES`` / ``ASYNC_RESOURCES`` name the attributes the clients bind (``client.chat`` ...):
a new area adds its module, one line to each table and one annotation to each client class.
"""

from __future__ import annotations

from typing import Any

from ._operation import AsyncAPIResource, Operation, StreamingOperation, SyncAPIResource
from .chat import AsyncChat, AsyncCompletions, Chat, Completions
from .embeddings import AsyncEmbeddings, Embeddings
from .models import AsyncModels, Models

SYNC_RESOURCES: dict[str, Any] = {
    "chat": Chat,
    "embeddings": Embeddings,
    "models": Models,
}
ASYNC_RESOURCES: dict[str, Any] = {
    "chat": AsyncChat,
    "embeddings": AsyncEmbeddings,
    "models": AsyncModels,
}

__all__ = [
    "ASYNC_RESOURCES",
    "SYNC_RESOURCES",
    "AsyncAPIResource",
    "AsyncChat",
    "AsyncCompletions",
    "AsyncEmbeddings",
    "AsyncModels",
    "Chat",
    "Completions",
    "Embeddings",
    "Models",
    "Operation",
    "StreamingOperation",
    "SyncAPIResource",
]
