"""``moderations``: classify text (and images) against the usage policies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._core import NOT_GIVEN
from ..types.moderations import ModerationCreateResponse
from ._operation import AsyncAPIResource, Operation, SyncAPIResource

CREATE = Operation("POST", "/moderations", ModerationCreateResponse)


class Moderations(SyncAPIResource):
    def create(
        self,
        *,
        input: str | list[str] | list[Mapping[str, Any]],
        model: str = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> ModerationCreateResponse:
        """Whether ``input`` breaks a policy, per category (``results[i].categories.self_harm`` ...)."""
        return self._client._request(CREATE.build(locals()), CREATE.cast_to)


class AsyncModerations(AsyncAPIResource):
    async def create(
        self,
        *,
        input: str | list[str] | list[Mapping[str, Any]],
        model: str = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> ModerationCreateResponse:
        """Async twin of :meth:`Moderations.create`."""
        return await self._client._request(CREATE.build(locals()), CREATE.cast_to)
