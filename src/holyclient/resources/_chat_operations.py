"""The chat completion operations, declared once: ``chat.py`` gives them their methods and
``_chat_parse.py`` checks ``parse()``/``stream()`` arguments against the same declaration."""

from __future__ import annotations

from .._send import AsyncCursorPage, SyncCursorPage
from ..types.chat import (
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionDeleted,
    ChatCompletionStoreMessage,
)
from ._operation import Operation, PageOperation, StreamingOperation

CREATE = StreamingOperation("POST", "/chat/completions", ChatCompletion, ChatCompletionChunk)

# Stored completions (``store=True``), served by ``_chat_stored.py``.
LIST = PageOperation(
    "GET", "/chat/completions", SyncCursorPage[ChatCompletion], AsyncCursorPage[ChatCompletion]
)
RETRIEVE = Operation("GET", "/chat/completions/{completion_id}", ChatCompletion)
UPDATE = Operation("POST", "/chat/completions/{completion_id}", ChatCompletion)
DELETE = Operation("DELETE", "/chat/completions/{completion_id}", ChatCompletionDeleted)
MESSAGES = PageOperation(
    "GET",
    "/chat/completions/{completion_id}/messages",
    SyncCursorPage[ChatCompletionStoreMessage],
    AsyncCursorPage[ChatCompletionStoreMessage],
)
