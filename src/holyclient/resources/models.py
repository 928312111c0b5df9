"""``models``: listing and retrieving models, sync and async."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._base import NOT_GIVEN
from ..types.models import Model, ModelList
from ._operation import AsyncAPIResource, Operation, SyncAPIResource

LIST = Operation("GET", "/models", ModelList)
RETRIEVE = Operation("GET", "/models/{model}", Model)


class Models(SyncAPIResource):
    def list(
        self,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> ModelList:
        """The models the server offers."""
        return self._client._request(LIST.build(locals()), LIST.cast_to)

    def retrieve(
        self,
        model: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> Model:
        """One model by id."""
        return self._client._request(RETRIEVE.build(locals()), RETRIEVE.cast_to)


class AsyncModels(AsyncAPIResource):
    async def list(
        self,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> ModelList:
        """Async twin of :meth:`Models.list`."""
        return await self._client._request(LIST.build(locals()), LIST.cast_to)

    async def retrieve(
        self,
        model: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> Model:
        """Async twin of :meth:`Models.retrieve`."""
        return await self._client._request(RETRIEVE.build(locals()), RETRIEVE.cast_to)
