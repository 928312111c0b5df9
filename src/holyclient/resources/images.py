"""``images``: image generation (``client.images.generate``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._base import NOT_GIVEN
from ..types.images import ImagesResponse
from ._operation import AsyncAPIResource, Operation, SyncAPIResource

GENERATE = Operation("POST", "/images/generations", ImagesResponse)


class Images(SyncAPIResource):
    def generate(
        self,
        *,
        prompt: str,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ImagesResponse:
        """Generate images for ``prompt`` (``model``, ``n``, ``size``, ``quality``, ``response_format`` ...)."""
        return self._client._request(GENERATE.build(locals()), GENERATE.cast_to)


class AsyncImages(AsyncAPIResource):
    async def generate(
        self,
        *,
        prompt: str,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ImagesResponse:
        """Async twin of :meth:`Images.generate`."""
        return await self._client._request(GENERATE.build(locals()), GENERATE.cast_to)
