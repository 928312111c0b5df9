"""Page classes returned by ``list()`` methods, under openai's public names (``openai.pagination``).

``for item in page`` walks every page; the async pages support ``async for``. See
:mod:`holyclient._send._pagination` for how the next page is found.
"""

from __future__ import annotations

from ._send._pagination import AsyncCursorPage, AsyncPage, AsyncPaginator, PageInfo, SyncCursorPage, SyncPage

__all__ = ["AsyncCursorPage", "AsyncPage", "AsyncPaginator", "PageInfo", "SyncCursorPage", "SyncPage"]
