"""Embeddings responses (as ``openai.types.CreateEmbeddingResponse``)."""

from __future__ import annotations

from ._model import BaseModel as _Model


# Fields in openai's order, so that a response prints and dumps as openai's does.
class Embedding(_Model):
    embedding: list[float] | str
    """Floats, or a base64 string when requested with ``encoding_format="base64"``."""
    index: int = 0
    object: str = "embedding"


class EmbeddingUsage(_Model):
    prompt_tokens: int = 0
    total_tokens: int = 0

    def __repr_name__(self) -> str:
        return "Usage"  # openai's name for it (``openai.types.create_embedding_response.Usage``)


class CreateEmbeddingResponse(_Model):
    data: list[Embedding]
    model: str
    object: str = "list"
    usage: EmbeddingUsage | None = None
