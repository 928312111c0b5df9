"""``client.beta``: where openai first shipped ``chat.completions.parse`` and ``.stream``.

Apps written for that era call ``client.beta.chat.completions.parse(...)``; the namespace holds the
same chat resource as ``client.chat``, so both spellings behave identically.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .chat import AsyncChat, Chat

if TYPE_CHECKING:
    from .._send import AsyncCallSite, SyncCallSite


class Beta:
    """``client.beta``: a namespace holding ``chat``."""

    def __init__(self, client: SyncCallSite) -> None:
        self.chat = Chat(client)


class AsyncBeta:
    """``client.beta`` of the async client."""

    def __init__(self, client: AsyncCallSite) -> None:
        self.chat = AsyncChat(client)
