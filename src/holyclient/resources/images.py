"""``images``: generation (JSON), edits and variations (multipart uploads)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._core import NOT_GIVEN
from ..types.images import ImagesResponse
from ._operation import AsyncAPIResource, Operation, SyncAPIResource
from ._uploads import MultipartOperation

if TYPE_CHECKING:
    from .._core import FileTypes

GENERATE = Operation("POST", "/images/generations", ImagesResponse)
EDIT = MultipartOperation("POST", "/images/edits", ImagesResponse, file_fields=("image", "mask"))
VARIATION = MultipartOperation("POST", "/images/variations", ImagesResponse, file_fields=("image",))


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

    def edit(
        self,
        *,
        image: FileTypes | list[FileTypes],
        prompt: str,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ImagesResponse:
        """Edit ``image`` (one upload, or a list for the gpt-image models) as ``prompt`` says; ``mask=`` optional."""
        return self._client._request(EDIT.build(locals()), EDIT.cast_to)

    def create_variation(
        self,
        *,
        image: FileTypes,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ImagesResponse:
        """Variations of ``image`` (dall-e-2)."""
        return self._client._request(VARIATION.build(locals()), VARIATION.cast_to)


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

    async def edit(
        self,
        *,
        image: FileTypes | list[FileTypes],
        prompt: str,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ImagesResponse:
        """Async twin of :meth:`Images.edit`."""
        return await self._client._request(EDIT.build(locals()), EDIT.cast_to)

    async def create_variation(
        self,
        *,
        image: FileTypes,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ImagesResponse:
        """Async twin of :meth:`Images.create_variation`."""
        return await self._client._request(VARIATION.build(locals()), VARIATION.cast_to)
