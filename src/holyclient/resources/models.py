"""``models``: listing and retrieving models, sync and async."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._core import NOT_GIVEN
from .._send import AsyncPage, AsyncPaginator, SyncPage
from ..types.models import Model
from ._operation import AsyncAPIResource, Operation, PageOperation, SyncAPIResource

LIST = PageOperation("GET", "/models", SyncPage[Model], AsyncPage[Model])
RETRIEVE = Operation("GET", "/models/{model}", Model)


class Models(SyncAPIResource):
    def list(
        self,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, object] | None = None,
        extra_body: Mapping[str, object] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> SyncPage[Model]:
        """The models the server offers; iterate the page for the models.

        Returns:
            A ``SyncPage[Model]``: ``for model in client.models.list()`` gives each ``Model`` (``.id``).
        """
        return self._client._get_page(LIST.build(locals()), LIST.cast_to)

    def retrieve(
        self,
        model: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, object] | None = None,
        extra_body: Mapping[str, object] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> Model:
        """One model by id.

        Args:
            model: the model id, e.g. ``"gpt-4.1"``.

        Returns:
            The ``Model`` (``id``, ``created``, ``owned_by``).

        Raises:
            NotFoundError: the server does not offer that model.
        """
        return self._client._request(RETRIEVE.build(locals()), RETRIEVE.cast_to)


class AsyncModels(AsyncAPIResource):
    def list(
        self,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, object] | None = None,
        extra_body: Mapping[str, object] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> AsyncPaginator[AsyncPage[Model], Model]:
        """Async twin of :meth:`Models.list`: ``await`` it for the page, or ``async for`` the models."""
        return self._client._get_page(LIST.build(locals()), LIST.async_page)

    async def retrieve(
        self,
        model: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, object] | None = None,
        extra_body: Mapping[str, object] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> Model:
        """Async twin of :meth:`Models.retrieve`."""
        return await self._client._request(RETRIEVE.build(locals()), RETRIEVE.cast_to)
