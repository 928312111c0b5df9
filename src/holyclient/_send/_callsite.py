"""What a resource calls on its client: the narrow protocols ``resources/`` is typed against.

A resource method builds its :class:`~holyclient._core._request.RequestOptions` from its operation and hands
them to its client, which does the I/O. Typing resources against these protocols rather than against
``Client`` / ``AsyncClient`` keeps the layers one-way: the clients sit above ``resources/`` (they bind
the resources on first access) and the resources need nothing of them but these few calls. The clients
satisfy them structurally (checked by mypy in ``_client/_client.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, Self, TypeVar

if TYPE_CHECKING:
    from .._core import AsyncStreamedBinaryResponse, RequestOptions, StreamedBinaryResponse
    from ..types._model import BaseModel
    from ._pagination import AsyncPaginator, BaseAsyncPage, BaseSyncPage
    from ._streaming import AsyncStream, Stream

__all__ = ["AsyncCallSite", "SyncCallSite"]

ModelT = TypeVar("ModelT", bound="BaseModel")
SyncPageT = TypeVar("SyncPageT", bound="BaseSyncPage[Any]")
AsyncPageT = TypeVar("AsyncPageT", bound="BaseAsyncPage[Any]")


class SyncCallSite(Protocol):
    """The calls a sync resource makes on its client (:class:`~holyclient.Client` is one)."""

    def _request(self, options: RequestOptions, cast_to: type[ModelT]) -> ModelT: ...

    def _get_page(self, options: RequestOptions, page_cls: type[SyncPageT]) -> SyncPageT: ...

    def _stream(self, options: RequestOptions, cast_to: type[ModelT]) -> Stream[ModelT]: ...

    def _open_binary(self, options: RequestOptions) -> StreamedBinaryResponse: ...

    @property
    def with_raw_response(self) -> Any: ...

    @property
    def with_streaming_response(self) -> Any: ...


class AsyncCallSite(Protocol):
    """The calls an async resource makes on its client (:class:`~holyclient.AsyncClient` is one)."""

    async def _request(self, options: RequestOptions, cast_to: type[ModelT]) -> ModelT: ...

    def _get_page(
        self, options: RequestOptions, page_cls: type[AsyncPageT]
    ) -> AsyncPaginator[AsyncPageT, Any]: ...

    async def _stream(self, options: RequestOptions, cast_to: type[ModelT]) -> AsyncStream[ModelT]: ...

    async def _open_binary(self, options: RequestOptions) -> AsyncStreamedBinaryResponse: ...

    @property
    def with_raw_response(self) -> Any: ...

    def _streaming_client(self) -> Self: ...

    def _streaming_view(self, target: Any) -> Any: ...
