"""API resources, one module per API area; each operation is declared once in its module.

``RESOURCES`` names the attributes the clients bind (``client.chat`` ...) and where each one's classes
live: a client loads a resource's module when it is first used (:func:`resource_class`), so a chat call
builds no image, audio or Responses model (every pydantic model class costs memory);
``SYNC_RESOURCES`` / ``ASYNC_RESOURCES`` load them all. A new area adds its module, one line here and
one annotation to each client class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names as _lazy_names
from ._registry import RESOURCES, resource_class

if TYPE_CHECKING:
    from ._operation import AsyncAPIResource, Operation, StreamingOperation, SyncAPIResource
    from ._tables import ASYNC_RESOURCES, SYNC_RESOURCES
    from .beta import AsyncBeta, Beta
    from .chat import AsyncChat, AsyncCompletions, Chat, Completions
    from .embeddings import AsyncEmbeddings, Embeddings
    from .models import AsyncModels, Models

__all__ = [
    "ASYNC_RESOURCES",
    "RESOURCES",
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
    "resource_class",
]

__getattr__ = _lazy_names(
    __name__,
    {
        "ASYNC_RESOURCES": "._tables",
        "SYNC_RESOURCES": "._tables",
        "AsyncAPIResource": "._operation",
        "Operation": "._operation",
        "StreamingOperation": "._operation",
        "SyncAPIResource": "._operation",
        "AsyncBeta": ".beta",
        "Beta": ".beta",
        "AsyncChat": ".chat",
        "AsyncCompletions": ".chat",
        "Chat": ".chat",
        "Completions": ".chat",
        "AsyncEmbeddings": ".embeddings",
        "Embeddings": ".embeddings",
        "AsyncModels": ".models",
        "Models": ".models",
    },
    globals(),
)
