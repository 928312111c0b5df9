"""``embeddings``: the embeddings operation and its sync/async shells."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from .._core import NOT_GIVEN, decode_embeddings, prefer_base64
from ..types.embeddings import CreateEmbeddingResponse
from ._operation import AsyncAPIResource, Operation, SyncAPIResource

CREATE = Operation("POST", "/embeddings", CreateEmbeddingResponse)


class Embeddings(SyncAPIResource):
    def create(
        self,
        *,
        model: str,
        input: str | list[str] | list[int] | list[list[int]],
        encoding_format: Literal["float", "base64"] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, object] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> CreateEmbeddingResponse:
        """Embed ``input`` (``dimensions``, ``user`` pass through).

        Vectors travel as base64 and come back as floats unless ``encoding_format`` is given (openai's rule).

        Args:
            model: the embedding model, e.g. ``"text-embedding-3-small"``.
            input: a text, a list of texts, or token ids.
            encoding_format: ``"float"`` or ``"base64"`` (then the vectors are base64 strings).
            extra_headers: headers added to this request.
            extra_query: query parameters added to this request.
            extra_body: fields merged into the JSON body.
            timeout: seconds (or an ``httpx.Timeout``) for this request instead of the client's.
            max_retries: retries for this request instead of the client's.
            **params: any other Embeddings parameter (``dimensions``, ``user``).

        Returns:
            A ``CreateEmbeddingResponse``: ``data[i].embedding`` for each input, and ``usage``.
        """
        options = prefer_base64(CREATE.build(locals()), encoding_format)
        return decode_embeddings(self._client._request(options, CREATE.cast_to), encoding_format)


class AsyncEmbeddings(AsyncAPIResource):
    async def create(
        self,
        *,
        model: str,
        input: str | list[str] | list[int] | list[list[int]],
        encoding_format: Literal["float", "base64"] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, object] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> CreateEmbeddingResponse:
        """Async twin of :meth:`Embeddings.create`."""
        options = prefer_base64(CREATE.build(locals()), encoding_format)
        return decode_embeddings(await self._client._request(options, CREATE.cast_to), encoding_format)
