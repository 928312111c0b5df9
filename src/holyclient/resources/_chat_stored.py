"""Stored chat completions (``store=True``): ``chat.completions.list/retrieve/update/delete`` and
``chat.completions.messages.list``, each operation declared once with thin sync/async shells.

Mixed into the chat completions resources (as :mod:`._chat_parse` is); lists are cursor pages that
iterate every page (``after`` the last id), as openai's ``SyncCursorPage``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._core import NOT_GIVEN
from .._send import AsyncCursorPage, AsyncPaginator, SyncCursorPage
from ..types.chat import ChatCompletion, ChatCompletionDeleted, ChatCompletionStoreMessage
from ._chat_operations import DELETE, LIST, MESSAGES, RETRIEVE, UPDATE
from ._operation import AsyncAPIResource, AsyncCursorList, SyncAPIResource, SyncCursorList

if TYPE_CHECKING:
    from .._send import AsyncCallSite, SyncCallSite


class Messages(SyncAPIResource):
    def list(
        self,
        completion_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> SyncCursorPage[ChatCompletionStoreMessage]:
        """The messages of a stored completion (``after``, ``limit``, ``order``); iterating walks every page."""
        return self._client._get_page(MESSAGES.build(locals()), MESSAGES.cast_to)


class AsyncMessages(AsyncAPIResource):
    def list(
        self,
        completion_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> AsyncPaginator[AsyncCursorPage[ChatCompletionStoreMessage], ChatCompletionStoreMessage]:
        """Async twin of :meth:`Messages.list`."""
        return self._client._get_page(MESSAGES.build(locals()), MESSAGES.async_page)


class StoredMethods(SyncCursorList[ChatCompletion]):
    """``list``, ``retrieve``, ``update``, ``delete`` and ``messages`` of the sync chat completions; ``list``
    is the completions stored with ``store=True`` (``model``, ``metadata``, ``after``, ``limit``, ``order``)."""

    _list = LIST

    def __init__(self, client: SyncCallSite) -> None:
        super().__init__(client)
        self.messages = Messages(client)

    def retrieve(
        self,
        completion_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> ChatCompletion:
        """A stored completion by id."""
        return self._client._request(RETRIEVE.build(locals()), RETRIEVE.cast_to)

    def update(
        self,
        completion_id: str,
        *,
        metadata: Mapping[str, str] | None,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> ChatCompletion:
        """Replace a stored completion's ``metadata`` (the only field that can change)."""
        return self._client._request(UPDATE.build(locals()), UPDATE.cast_to)

    def delete(
        self,
        completion_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> ChatCompletionDeleted:
        """Delete a stored completion."""
        return self._client._request(DELETE.build(locals()), DELETE.cast_to)


class AsyncStoredMethods(AsyncCursorList[ChatCompletion]):
    """The async twins of :class:`StoredMethods`."""

    _list = LIST

    def __init__(self, client: AsyncCallSite) -> None:
        super().__init__(client)
        self.messages = AsyncMessages(client)

    async def retrieve(
        self,
        completion_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> ChatCompletion:
        """Async twin of :meth:`StoredMethods.retrieve`."""
        return await self._client._request(RETRIEVE.build(locals()), RETRIEVE.cast_to)

    async def update(
        self,
        completion_id: str,
        *,
        metadata: Mapping[str, str] | None,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> ChatCompletion:
        """Async twin of :meth:`StoredMethods.update`."""
        return await self._client._request(UPDATE.build(locals()), UPDATE.cast_to)

    async def delete(
        self,
        completion_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> ChatCompletionDeleted:
        """Async twin of :meth:`StoredMethods.delete`."""
        return await self._client._request(DELETE.build(locals()), DELETE.cast_to)
