"""Offline token counting for chat requests, the way OpenAI bills them (see :mod:`holyclient.tokens._count`)."""

from __future__ import annotations

from ._count import (
    DEFAULT_IMAGE_SIZE,
    TokenCount,
    count_messages,
    count_request,
    count_tokens,
    encoding_for_model,
    encoding_name_for_model,
    image_tokens,
)

__all__ = [
    "DEFAULT_IMAGE_SIZE",
    "TokenCount",
    "count_messages",
    "count_request",
    "count_tokens",
    "encoding_for_model",
    "encoding_name_for_model",
    "image_tokens",
]
