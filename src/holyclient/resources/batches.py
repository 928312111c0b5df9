"""``batches``: the OpenAI Batch API -- create, retrieve, list and cancel server-side batches."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._core import NOT_GIVEN
from .._send import AsyncCursorPage, SyncCursorPage
from ..types.batches import Batch
from ._operation import AsyncCursorList, Operation, PageOperation, SyncCursorList
from ._uploads import HeaderOperation

CREATE = Operation("POST", "/batches", Batch)
RETRIEVE = Operation("GET", "/batches/{batch_id}", Batch)
LIST = PageOperation("GET", "/batches", SyncCursorPage[Batch], AsyncCursorPage[Batch])
CANCEL = HeaderOperation("POST", "/batches/{batch_id}/cancel", Batch, empty_body=True)


class Batches(SyncCursorList[Batch]):
    _list = LIST

    def create(
        self,
        *,
        completion_window: str,
        endpoint: str,
        input_file_id: str,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Batch:
        """Start a batch over the JSONL file ``input_file_id`` (uploaded with ``purpose="batch"``)."""
        return self._client._request(CREATE.build(locals()), CREATE.cast_to)

    def retrieve(
        self,
        batch_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> Batch:
        """A batch's status, counts and output file ids."""
        return self._client._request(RETRIEVE.build(locals()), RETRIEVE.cast_to)

    def cancel(
        self,
        batch_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> Batch:
        """Ask for a batch to stop; it goes ``cancelling`` then ``cancelled``."""
        return self._client._request(CANCEL.build(locals()), CANCEL.cast_to)


class AsyncBatches(AsyncCursorList[Batch]):
    _list = LIST

    async def create(
        self,
        *,
        completion_window: str,
        endpoint: str,
        input_file_id: str,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Batch:
        """Async twin of :meth:`Batches.create`."""
        return await self._client._request(CREATE.build(locals()), CREATE.cast_to)

    async def retrieve(
        self,
        batch_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> Batch:
        """Async twin of :meth:`Batches.retrieve`."""
        return await self._client._request(RETRIEVE.build(locals()), RETRIEVE.cast_to)

    async def cancel(
        self,
        batch_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> Batch:
        """Async twin of :meth:`Batches.cancel`."""
        return await self._client._request(CANCEL.build(locals()), CANCEL.cast_to)
