"""Where each resource the clients bind lives, so that a client loads only the ones it uses."""

from __future__ import annotations

import importlib
from typing import Any

#: Each resource a client binds: its module, its sync class and its async class.
RESOURCES: dict[str, tuple[str, str, str]] = {
    "beta": (".beta", "Beta", "AsyncBeta"),
    "chat": (".chat", "Chat", "AsyncChat"),
    "embeddings": (".embeddings", "Embeddings", "AsyncEmbeddings"),
    "models": (".models", "Models", "AsyncModels"),
    "audio": (".audio", "Audio", "AsyncAudio"),
    "batches": (".batches", "Batches", "AsyncBatches"),
    "completions": (".completions", "Completions", "AsyncCompletions"),
    "files": (".files", "Files", "AsyncFiles"),
    "images": (".images", "Images", "AsyncImages"),
    "moderations": (".moderations", "Moderations", "AsyncModerations"),
    "responses": (".responses", "Responses", "AsyncResponses"),
}


def resource_class(name: str, *, is_async: bool) -> Any:
    """The class a client binds as ``client.<name>`` (its module loaded now, if it was not)."""
    module, sync, async_ = RESOURCES[name]
    return getattr(importlib.import_module(module, __package__), async_ if is_async else sync)
