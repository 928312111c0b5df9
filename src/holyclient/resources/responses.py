"""``responses``: the Responses API (``client.responses.create``), JSON or a stream of typed events."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from .._core._request import NOT_GIVEN
from .._send._pagination import AsyncCursorPage, AsyncPaginator, SyncCursorPage
from ..types.responses import Response, ResponseOutputItem, ResponseStreamEvent
from ._operation import AsyncAPIResource, Operation, PageOperation, StreamingOperation, SyncAPIResource
from ._uploads import HeaderOperation

if TYPE_CHECKING:
    from .._client._client import AsyncClient, Client
    from .._send._streaming import AsyncStream, Stream

CREATE = StreamingOperation("POST", "/responses", Response, ResponseStreamEvent)
RETRIEVE = Operation("GET", "/responses/{response_id}", Response)
DELETE = Operation("DELETE", "/responses/{response_id}", type(None))
CANCEL = HeaderOperation("POST", "/responses/{response_id}/cancel", Response, empty_body=True)
INPUT_ITEMS = PageOperation(
    "GET",
    "/responses/{response_id}/input_items",
    SyncCursorPage[ResponseOutputItem],
    AsyncCursorPage[ResponseOutputItem],
)


class InputItems(SyncAPIResource):
    def list(
        self,
        response_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> SyncCursorPage[ResponseOutputItem]:
        """The input items of a stored response (``after``, ``limit``, ``order``); iterating walks every page."""
        return self._client._get_page(INPUT_ITEMS.build(locals()), INPUT_ITEMS.cast_to)


class AsyncInputItems(AsyncAPIResource):
    def list(
        self,
        response_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> AsyncPaginator[AsyncCursorPage[ResponseOutputItem], ResponseOutputItem]:
        """Async twin of :meth:`InputItems.list`."""
        return self._client._get_page(INPUT_ITEMS.build(locals()), INPUT_ITEMS.async_page)


class Responses(SyncAPIResource):
    def __init__(self, client: Client) -> None:
        super().__init__(client)
        self.input_items = InputItems(client)

    @overload
    def create(
        self,
        *,
        model: str = NOT_GIVEN,
        input: str | list[Any] = NOT_GIVEN,
        stream: Literal[False] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Response: ...

    @overload
    def create(
        self,
        *,
        model: str = NOT_GIVEN,
        input: str | list[Any] = NOT_GIVEN,
        stream: Literal[True],
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Stream[ResponseStreamEvent]: ...

    def create(
        self,
        *,
        model: str = NOT_GIVEN,
        input: str | list[Any] = NOT_GIVEN,
        stream: bool = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Response | Stream[ResponseStreamEvent]:
        """Create a model response; with ``stream=True``, an iterator of typed events.

        ``response.output_text`` joins the text of the output messages. Other parameters
        (``instructions``, ``tools``, ``previous_response_id`` ...) pass through as keywords.

        Raises:
            APIStatusError: (a subclass of) when the server refuses, after retries.
            APIConnectionError: when no response could be obtained, after retries.
        """
        options = CREATE.build(locals())
        if stream:
            return self._client._stream(options, CREATE.chunk_cls)
        return self._client._request(options, CREATE.cast_to)

    def retrieve(
        self,
        response_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Response:
        """A stored response by id."""
        return self._client._request(RETRIEVE.build(locals()), RETRIEVE.cast_to)

    def delete(
        self,
        response_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> None:
        """Delete a stored response."""
        self._client._request(DELETE.build(locals()), DELETE.cast_to)  # type: ignore[type-var]

    def cancel(
        self,
        response_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> Response:
        """Cancel a response created with ``background=True``."""
        return self._client._request(CANCEL.build(locals()), CANCEL.cast_to)


class AsyncResponses(AsyncAPIResource):
    def __init__(self, client: AsyncClient) -> None:
        super().__init__(client)
        self.input_items = AsyncInputItems(client)

    @overload
    async def create(
        self,
        *,
        model: str = NOT_GIVEN,
        input: str | list[Any] = NOT_GIVEN,
        stream: Literal[False] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Response: ...

    @overload
    async def create(
        self,
        *,
        model: str = NOT_GIVEN,
        input: str | list[Any] = NOT_GIVEN,
        stream: Literal[True],
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> AsyncStream[ResponseStreamEvent]: ...

    async def create(
        self,
        *,
        model: str = NOT_GIVEN,
        input: str | list[Any] = NOT_GIVEN,
        stream: bool = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Response | AsyncStream[ResponseStreamEvent]:
        """Async twin of :meth:`Responses.create`."""
        options = CREATE.build(locals())
        if stream:
            return await self._client._stream(options, CREATE.chunk_cls)
        return await self._client._request(options, CREATE.cast_to)

    async def retrieve(
        self,
        response_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Response:
        """Async twin of :meth:`Responses.retrieve`."""
        return await self._client._request(RETRIEVE.build(locals()), RETRIEVE.cast_to)

    async def delete(
        self,
        response_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> None:
        """Async twin of :meth:`Responses.delete`."""
        await self._client._request(DELETE.build(locals()), DELETE.cast_to)  # type: ignore[type-var]

    async def cancel(
        self,
        response_id: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> Response:
        """Async twin of :meth:`Responses.cancel`."""
        return await self._client._request(CANCEL.build(locals()), CANCEL.cast_to)
