"""The local server's embeddings: request dict in, OpenAI-shaped dict out. No I/O.

Embeddings are unit vectors derived from SHAKE-256 of the model and the input text, so tests can
compute the vector they expect (:func:`embedding_vector`); a request with an input holding
:data:`REJECT_MARKER` is answered 400 (a poisoned input, for packing tests).
"""

from __future__ import annotations

import base64
import hashlib
import math
import struct
from functools import lru_cache
from typing import Any

from ._handlers import JSON, InvalidRequest

#: An embedding input holding this text is answered 400 (tests isolate one bad input in a packed request).
REJECT_MARKER = "holyclient:reject"
EMBEDDING_DIMENSIONS = {"text-embedding-3-large": 3072}
DEFAULT_EMBEDDING_DIMENSIONS = 1536
MAX_EMBEDDING_DIMENSIONS = 8192


def _embedding_texts(raw: Any) -> list[str]:
    """Normalise ``input``: a string, a list of strings, a token list, or a list of token lists."""
    if isinstance(raw, str):
        return [raw] if raw else []
    if isinstance(raw, list) and raw:
        if all(isinstance(x, str) for x in raw):
            return list(raw)
        if all(isinstance(x, int) and not isinstance(x, bool) for x in raw):
            return [" ".join(map(str, raw))]
        if all(isinstance(x, list) and x and all(isinstance(t, int) for t in x) for x in raw):
            return [" ".join(map(str, x)) for x in raw]
    return []


@lru_cache(maxsize=4096)
def embedding_vector(model: str, text: str, dimensions: int) -> tuple[float, ...]:
    """A deterministic unit vector: SHAKE-256 bytes mapped to [-1, 1), then normalised."""
    raw = hashlib.shake_256(f"{model}\x00{text}".encode()).digest(dimensions * 2)
    values = [v / 32768.0 - 1.0 for v in struct.unpack(f"<{dimensions}H", raw)]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return tuple(round(v / norm, 8) for v in values)


def embeddings(body: JSON) -> JSON:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise InvalidRequest("you must provide a model parameter", "model")
    raw = body.get("input")
    texts = _embedding_texts(raw)
    if not texts:
        raise InvalidRequest(
            "'input' must be a non-empty string, array of strings or array of tokens", "input"
        )
    dimensions = body.get("dimensions")
    if dimensions is None:
        dimensions = EMBEDDING_DIMENSIONS.get(model, DEFAULT_EMBEDDING_DIMENSIONS)
    if (
        not isinstance(dimensions, int)
        or isinstance(dimensions, bool)
        or not 1 <= dimensions <= MAX_EMBEDDING_DIMENSIONS
    ):
        raise InvalidRequest(
            f"'dimensions' must be an integer between 1 and {MAX_EMBEDDING_DIMENSIONS}", "dimensions"
        )
    encoding = body.get("encoding_format") or "float"
    if encoding not in ("float", "base64"):
        raise InvalidRequest("'encoding_format' must be 'float' or 'base64'", "encoding_format")
    for i, text in enumerate(texts):
        if REJECT_MARKER in text:
            raise InvalidRequest(f"input[{i}] is rejected (it holds {REJECT_MARKER!r})", "input")
    data = []
    for i, text in enumerate(texts):
        vector = embedding_vector(model, text, dimensions)
        embedding: Any = (
            base64.b64encode(struct.pack(f"<{dimensions}f", *vector)).decode("ascii")
            if encoding == "base64"
            else list(vector)
        )
        data.append({"object": "embedding", "index": i, "embedding": embedding})
    if isinstance(raw, list) and raw and not isinstance(raw[0], str):
        tokens = sum(len(x) for x in raw) if isinstance(raw[0], list) else len(raw)
    else:
        tokens = sum(max(math.ceil(len(t) / 4), 1) for t in texts)
    return {
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def embeddings_cost(body: JSON) -> int:
    return math.ceil(sum(len(t) for t in _embedding_texts(body.get("input"))) / 4)
