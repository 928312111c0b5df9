"""``completions``: legacy text completions (``client.completions.create``), JSON or streamed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from .._core import NOT_GIVEN
from ..types.completions import Completion
from ._operation import AsyncAPIResource, StreamingOperation, SyncAPIResource

if TYPE_CHECKING:
    from .._send import AsyncStream, Stream

CREATE = StreamingOperation("POST", "/completions", Completion, Completion)

Prompt = str | list[str] | list[int] | list[list[int]] | None


class Completions(SyncAPIResource):
    @overload
    def create(
        self,
        *,
        model: str,
        prompt: Prompt,
        stream: Literal[False] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Completion: ...

    @overload
    def create(
        self,
        *,
        model: str,
        prompt: Prompt,
        stream: Literal[True],
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Stream[Completion]: ...

    def create(
        self,
        *,
        model: str,
        prompt: Prompt,
        stream: bool = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Completion | Stream[Completion]:
        """Complete ``prompt`` (legacy API); with ``stream=True``, an iterator of ``Completion`` chunks.

        Raises:
            APIStatusError: (a subclass of) when the server refuses, after retries.
            APIConnectionError: when no response could be obtained, after retries.
        """
        options = CREATE.build(locals())
        if stream:
            return self._client._stream(options, CREATE.chunk_cls)
        return self._client._request(options, CREATE.cast_to)


class AsyncCompletions(AsyncAPIResource):
    @overload
    async def create(
        self,
        *,
        model: str,
        prompt: Prompt,
        stream: Literal[False] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Completion: ...

    @overload
    async def create(
        self,
        *,
        model: str,
        prompt: Prompt,
        stream: Literal[True],
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> AsyncStream[Completion]: ...

    async def create(
        self,
        *,
        model: str,
        prompt: Prompt,
        stream: bool = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Completion | AsyncStream[Completion]:
        """Async twin of :meth:`Completions.create`."""
        options = CREATE.build(locals())
        if stream:
            return await self._client._stream(options, CREATE.chunk_cls)
        return await self._client._request(options, CREATE.cast_to)
