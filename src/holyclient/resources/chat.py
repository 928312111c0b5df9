"""``chat.completions``: the chat completion operation and its sync/async shells."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from .._core import NOT_GIVEN
from ..types._chat import ChatCompletion, ChatCompletionChunk
from ._chat_operations import CREATE
from ._chat_parse import AsyncParseMethods, ParseMethods
from ._chat_stored import AsyncStoredMethods, StoredMethods
from ._operation import AsyncAPIResource, SyncAPIResource

if TYPE_CHECKING:
    from .._send import AsyncCallSite, AsyncStream, Stream, SyncCallSite
    from ..types._chat import ChatCompletionMessageParam


class Completions(ParseMethods, StoredMethods):
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

        Args:
            model: the model name, e.g. ``"gpt-4.1"`` or ``"claude-sonnet-4.5"``.
            messages: the conversation, as dicts or the ``types.chat`` TypedDicts.
            stream: return a [`Stream`][holyclient.Stream] of ``ChatCompletionChunk`` instead.
            extra_headers: headers added to this request.
            extra_query: query parameters added to this request.
            extra_body: fields merged into the JSON body (provider-specific parameters).
            timeout: seconds (or an ``httpx.Timeout``) for this request instead of the client's.
            max_retries: retries for this request instead of the client's.
            **params: any other Chat Completions parameter (``tools``, ``temperature``, ``seed`` ...).

        Returns:
            The ``ChatCompletion``, or with ``stream=True`` a stream of ``ChatCompletionChunk``.

        Raises:
            APIStatusError: (a subclass of) when the server refuses, after retries.
            APIConnectionError: when no response could be obtained, after retries.
            BudgetExceededError: when a client budget is set and this request could exceed it.
        """
        options = CREATE.build(locals())
        if stream:
            return self._client._stream(options, CREATE.chunk_cls)
        return self._client._request(options, CREATE.cast_to)


class AsyncCompletions(AsyncParseMethods, AsyncStoredMethods):
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

    def __init__(self, client: SyncCallSite) -> None:
        super().__init__(client)
        self.completions = Completions(client)


class AsyncChat(AsyncAPIResource):
    """``client.chat`` of the async client."""

    def __init__(self, client: AsyncCallSite) -> None:
        super().__init__(client)
        self.completions = AsyncCompletions(client)
