"""``responses``: the Responses API (``client.responses.create``), JSON or a stream of typed events."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from .._base import NOT_GIVEN
from ..types.responses import Response, ResponseStreamEvent
from ._operation import AsyncAPIResource, Operation, StreamingOperation, SyncAPIResource

if TYPE_CHECKING:
    from .._streaming import AsyncStream, Stream

CREATE = StreamingOperation("POST", "/responses", Response, ResponseStreamEvent)
RETRIEVE = Operation("GET", "/responses/{response_id}", Response)


class Responses(SyncAPIResource):
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


class AsyncResponses(AsyncAPIResource):
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
