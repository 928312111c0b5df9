"""``embeddings``: the embeddings operation and its sync/async shells."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._base import NOT_GIVEN
from ..types.embeddings import CreateEmbeddingResponse
from ._operation import AsyncAPIResource, Operation, SyncAPIResource

CREATE = Operation("POST", "/embeddings", CreateEmbeddingResponse)


class Embeddings(SyncAPIResource):
    def create(
        self,
        *,
        model: str,
        input: str | list[str] | list[int] | list[list[int]],
        extra_headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> CreateEmbeddingResponse:
        """Embed ``input`` (``dimensions``, ``encoding_format``, ``user`` pass through)."""
        return self._client._request(CREATE.build(locals()), CREATE.cast_to)


class AsyncEmbeddings(AsyncAPIResource):
    async def create(
        self,
        *,
        model: str,
        input: str | list[str] | list[int] | list[list[int]],
        extra_headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> CreateEmbeddingResponse:
        """Async twin of :meth:`Embeddings.create`."""
        return await self._client._request(CREATE.build(locals()), CREATE.cast_to)
