"""Chat messages in any form the caller holds them, seen as mappings.

Callers build messages as dicts or TypedDicts, and append the pydantic objects our own responses return
(``response.choices[0].message``, an assistant message with ``tool_calls``): the canonical tool loop.
Token counting, budget reservation and truncation read them all through :func:`message_mapping`, which
dumps a model the way openai-python sends one (``exclude_unset``, JSON mode, minus ``__api_exclude__``),
so what is counted is what is sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["as_mapping", "message_mapping"]


def as_mapping(value: object) -> Mapping[str, Any] | None:
    """``value`` as a mapping: itself if it is one, the JSON dump of a pydantic model, else None."""
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        dumped = dump(exclude_unset=True, mode="json", exclude=getattr(value, "__api_exclude__", None))
        if isinstance(dumped, dict):
            return dumped
    return None


def message_mapping(message: object) -> Mapping[str, Any]:
    """A chat message as a mapping.

    Raises:
        TypeError: the message is neither a mapping nor a pydantic model.
    """
    mapping = as_mapping(message)
    if mapping is None:
        raise TypeError(
            f"each message must be an object (a dict or a message model), got {type(message).__name__}"
        )
    return mapping
