"""Stored chat completions (``store=True``): what ``chat.completions.messages.list`` and ``delete`` return.

``list``, ``retrieve`` and ``update`` return the usual :class:`~holyclient.types.chat.ChatCompletion`.
"""

from __future__ import annotations

from typing import Any, Literal

from ._chat import ChatCompletionMessage
from ._model import BaseModel


class ChatCompletionStoreMessage(ChatCompletionMessage):
    """A message of a stored completion's request (``client.chat.completions.messages.list``)."""

    id: str
    """The identifier of the chat message."""
    content_parts: list[Any] | None = None
    """The ``text`` and ``image_url`` parts when the message was sent as parts; ``None`` otherwise."""


class ChatCompletionDeleted(BaseModel):
    """The answer of ``client.chat.completions.delete``."""

    id: str
    deleted: bool
    object: Literal["chat.completion.deleted"] = "chat.completion.deleted"
