"""Embeddings responses (as ``openai.types.CreateEmbeddingResponse``)."""

from __future__ import annotations

from ._model import BaseModel as _Model


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
