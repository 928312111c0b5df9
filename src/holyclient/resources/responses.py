"""``responses``: the Responses API (``client.responses.create``), JSON or a stream of typed events."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from .._core import NOT_GIVEN
from .._send import AsyncCursorPage, AsyncPaginator, SyncCursorPage
from ..types._response_items import InputItem
from ..types._responses import Response, ResponseStreamEvent
from ._operation import AsyncAPIResource, Operation, PageOperation, SyncAPIResource
from ._responses_operations import CREATE, RETRIEVE
from ._responses_parse import AsyncResponsesParseMethods, ResponsesParseMethods
from ._responses_tokens import AsyncInputTokens, InputTokens
from ._uploads import HeaderOperation

if TYPE_CHECKING:
    from .._send import AsyncCallSite, AsyncStream, Stream, SyncCallSite

DELETE = Operation("DELETE", "/responses/{response_id}", type(None))
CANCEL = HeaderOperation("POST", "/responses/{response_id}/cancel", Response, empty_body=True)
INPUT_ITEMS = PageOperation(
    "GET",
    "/responses/{response_id}/input_items",
    SyncCursorPage[InputItem],
    AsyncCursorPage[InputItem],
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
    ) -> SyncCursorPage[Any]:
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
    ) -> AsyncPaginator[AsyncCursorPage[Any], Any]:
        """Async twin of :meth:`InputItems.list`."""
        return self._client._get_page(INPUT_ITEMS.build(locals()), INPUT_ITEMS.async_page)


class Responses(ResponsesParseMethods, SyncAPIResource):
    def __init__(self, client: SyncCallSite) -> None:
        super().__init__(client)
        self.input_items = InputItems(client)
        self.input_tokens = InputTokens(client)

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

    @overload
    def retrieve(
        self,
        response_id: str,
        *,
        stream: Literal[False] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Response: ...

    @overload
    def retrieve(
        self,
        response_id: str,
        *,
        stream: Literal[True],
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Stream[ResponseStreamEvent]: ...

    def retrieve(
        self,
        response_id: str,
        *,
        stream: bool = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Response | Stream[ResponseStreamEvent]:
        """A stored response by id; with ``stream=True``, its events replayed (after ``starting_after``)."""
        options = RETRIEVE.build(locals())
        if stream:
            return self._client._stream(options, RETRIEVE.chunk_cls)
        return self._client._request(options, RETRIEVE.cast_to)

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


class AsyncResponses(AsyncResponsesParseMethods, AsyncAPIResource):
    def __init__(self, client: AsyncCallSite) -> None:
        super().__init__(client)
        self.input_items = AsyncInputItems(client)
        self.input_tokens = AsyncInputTokens(client)

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

    @overload
    async def retrieve(
        self,
        response_id: str,
        *,
        stream: Literal[False] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Response: ...

    @overload
    async def retrieve(
        self,
        response_id: str,
        *,
        stream: Literal[True],
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> AsyncStream[ResponseStreamEvent]: ...

    async def retrieve(
        self,
        response_id: str,
        *,
        stream: bool = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Response | AsyncStream[ResponseStreamEvent]:
        """Async twin of :meth:`Responses.retrieve`."""
        options = RETRIEVE.build(locals())
        if stream:
            return await self._client._stream(options, RETRIEVE.chunk_cls)
        return await self._client._request(options, RETRIEVE.cast_to)

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
