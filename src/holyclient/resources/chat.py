"""``chat.completions``: the chat completion operation and its sync/async shells."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from .._core._request import NOT_GIVEN
from ..types.chat import ChatCompletion, ChatCompletionChunk
from ._chat_operations import CREATE
from ._chat_parse import AsyncParseMethods, ParseMethods
from ._operation import AsyncAPIResource, SyncAPIResource

if TYPE_CHECKING:
    from .._client._client import AsyncClient, Client
    from .._send._streaming import AsyncStream, Stream
    from ..types.chat import ChatCompletionMessageParam


class Completions(ParseMethods, SyncAPIResource):
    @overload
    def create(
        self,
        *,
        model: str,
        messages: Iterable[ChatCompletionMessageParam] | Iterable[Mapping[str, Any]],
        stream: Literal[False] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, object] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ChatCompletion: ...

    @overload
    def create(
        self,
        *,
        model: str,
        messages: Iterable[ChatCompletionMessageParam] | Iterable[Mapping[str, Any]],
        stream: Literal[True],
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, object] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> Stream[ChatCompletionChunk]: ...

    def create(
        self,
        *,
        model: str,
        messages: Iterable[ChatCompletionMessageParam] | Iterable[Mapping[str, Any]],
        stream: bool = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, object] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ChatCompletion | Stream[ChatCompletionChunk]:
        """Create a chat completion; with ``stream=True``, an iterator of chunks.

        Every OpenAI parameter (``tools``, ``response_format``, ``seed``, ``stream_options`` ...) passes
        through untouched as a keyword. ``extra_body`` merges raw fields into the JSON body.

        Raises:
            APIStatusError: (a subclass of) when the server refuses, after retries.
            APIConnectionError: when no response could be obtained, after retries.
            BudgetExceededError: when a client budget is set and this request could exceed it.
        """
        options = CREATE.build(locals())
        if stream:
            return self._client._stream(options, CREATE.chunk_cls)
        return self._client._request(options, CREATE.cast_to)


class AsyncCompletions(AsyncParseMethods, AsyncAPIResource):
    @overload
    async def create(
        self,
        *,
        model: str,
        messages: Iterable[ChatCompletionMessageParam] | Iterable[Mapping[str, Any]],
        stream: Literal[False] = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, object] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ChatCompletion: ...

    @overload
    async def create(
        self,
        *,
        model: str,
        messages: Iterable[ChatCompletionMessageParam] | Iterable[Mapping[str, Any]],
        stream: Literal[True],
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, object] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> AsyncStream[ChatCompletionChunk]: ...

    async def create(
        self,
        *,
        model: str,
        messages: Iterable[ChatCompletionMessageParam] | Iterable[Mapping[str, Any]],
        stream: bool = NOT_GIVEN,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, object] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ChatCompletion | AsyncStream[ChatCompletionChunk]:
        """Async twin of :meth:`Completions.create`."""
        options = CREATE.build(locals())
        if stream:
            return await self._client._stream(options, CREATE.chunk_cls)
        return await self._client._request(options, CREATE.cast_to)


class Chat(SyncAPIResource):
    """``client.chat``: a namespace holding ``completions``."""

    def __init__(self, client: Client) -> None:
        super().__init__(client)
        self.completions = Completions(client)


class AsyncChat(AsyncAPIResource):
    """``client.chat`` of the async client."""

    def __init__(self, client: AsyncClient) -> None:
        super().__init__(client)
        self.completions = AsyncCompletions(client)
