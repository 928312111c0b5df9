"""The chat completion operations, declared once: ``chat.py`` gives them their methods and
``_chat_parse.py`` checks ``parse()``/``stream()`` arguments against the same declaration."""

from __future__ import annotations

from ..types.chat import ChatCompletion, ChatCompletionChunk
from ._operation import StreamingOperation

CREATE = StreamingOperation("POST", "/chat/completions", ChatCompletion, ChatCompletionChunk)
