"""``--embedding-model``: how alike two prose answers are in meaning, as the cosine of their embeddings.

A fuzzy ratio scores a paraphrase low; an embedding cosine scores it high. Both are reported, each
with its own noise floor. The vectors come from the old endpoint's ``/embeddings`` (one endpoint for
both sides, so the two answers are placed in the same space); everything here but :func:`embed` is
pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ._similarity import cosine

if TYPE_CHECKING:
    from .._client import AsyncClient
    from ._pairs import Pair

#: Texts per ``/embeddings`` request.
BATCH = 64


def prose_texts(pairs: Sequence[Pair]) -> list[str]:
    """The distinct prose answers of every side (JSON answers and errors are compared structurally)."""
    texts: dict[str, None] = {}
    for pair in pairs:
        for side in (pair.old, pair.new, *pair.repeats):
            if side.output.kind == "text" and side.output.value:
                texts[side.output.value] = None
    return list(texts)


def apply(pairs: Sequence[Pair], vectors: Mapping[str, Sequence[float]]) -> None:
    """Set each prose pair's ``embedding_similarity`` (old vs new) and ``embedding_noise`` (old vs old)."""
    for pair in pairs:
        old = vectors.get(pair.old.output.value) if pair.old.output.kind == "text" else None
        new = vectors.get(pair.new.output.value) if pair.new.output.kind == "text" else None
        if old is None or new is None:
            continue
        pair.embedding_similarity = cosine(old, new)
        again = [vectors.get(r.output.value) for r in pair.repeats if r.output.kind == "text"]
        known = [v for v in again if v is not None]
        if known:
            pair.embedding_noise = sum(cosine(old, v) for v in known) / len(known)


async def embed(client: AsyncClient, model: str, texts: Sequence[str]) -> dict[str, list[float]]:
    """Each text's embedding, ``BATCH`` texts a request.

    Raises:
        APIError: the endpoint refused (no ``/embeddings``, unknown model ...).
    """
    vectors: dict[str, list[float]] = {}
    for start in range(0, len(texts), BATCH):
        chunk = list(texts[start : start + BATCH])
        reply = await client.embeddings.create(model=model, input=chunk)
        for item in reply.data:
            if isinstance(item.embedding, list):  # float vectors: no encoding_format is asked for
                vectors[chunk[item.index]] = list(item.embedding)
    return vectors
