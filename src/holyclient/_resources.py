"""API resources: ``chat.completions``, ``embeddings``, ``models``, in sync and async twins.

Each method builds its :class:`RequestOptions` with one shared function and hands it to the client;
the twins differ only in ``await``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from ._base import NOT_GIVEN, RequestOptions, build_body
from ._models import ChatCompletion, ChatCompletionChunk, CreateEmbeddingResponse, Model, ModelList

if TYPE_CHECKING:
    from ._client import AsyncClient, Client
    from ._models import ChatCompletionMessageParam
    from ._streaming import AsyncStream, Stream


def _chat_options(
    model: str,
    messages: Iterable[ChatCompletionMessageParam] | Iterable[Mapping[str, Any]],
    stream: bool,
    params: Mapping[str, Any],
    extra_headers: Mapping[str, str] | None,
    extra_body: Mapping[str, Any] | None,
    timeout: Any,
    max_retries: int | None,
) -> RequestOptions:
    body = build_body({"model": model, "messages": list(messages), **params}, extra_body)
    if stream:
        body["stream"] = True
    return RequestOptions(
        "POST",
        "/chat/completions",
        body=body,
        extra_headers=extra_headers,
        timeout=timeout,
        max_retries=max_retries,
        stream=stream,
    )


def _embeddings_options(
    model: str,
    input: str | list[str] | list[int] | list[list[int]],
    params: Mapping[str, Any],
    extra_headers: Mapping[str, str] | None,
    extra_body: Mapping[str, Any] | None,
    timeout: Any,
    max_retries: int | None,
) -> RequestOptions:
    body = build_body({"model": model, "input": input, **params}, extra_body)
    return RequestOptions(
        "POST",
        "/embeddings",
        body=body,
        extra_headers=extra_headers,
        timeout=timeout,
        max_retries=max_retries,
    )


def _get_options(
    path: str, extra_headers: Mapping[str, str] | None, timeout: Any, max_retries: int | None
) -> RequestOptions:
    return RequestOptions("GET", path, extra_headers=extra_headers, timeout=timeout, max_retries=max_retries)


class Completions:
    def __init__(self, client: Client) -> None:
        self._client = client

    @overload
    def create(
        self,
        *,
        model: str,
        messages: Iterable[ChatCompletionMessageParam] | Iterable[Mapping[str, Any]],
        stream: Literal[False] = False,
        extra_headers: Mapping[str, str] | None = None,
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
        stream: bool = False,
        extra_headers: Mapping[str, str] | None = None,
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
        options = _chat_options(
            model, messages, stream, params, extra_headers, extra_body, timeout, max_retries
        )
        if stream:
            return self._client._stream(options, ChatCompletionChunk)
        return self._client._request(options, ChatCompletion)


class AsyncCompletions:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    @overload
    async def create(
        self,
        *,
        model: str,
        messages: Iterable[ChatCompletionMessageParam] | Iterable[Mapping[str, Any]],
        stream: Literal[False] = False,
        extra_headers: Mapping[str, str] | None = None,
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
        stream: bool = False,
        extra_headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> ChatCompletion | AsyncStream[ChatCompletionChunk]:
        """Async twin of :meth:`Completions.create`."""
        options = _chat_options(
            model, messages, stream, params, extra_headers, extra_body, timeout, max_retries
        )
        if stream:
            return await self._client._stream(options, ChatCompletionChunk)
        return await self._client._request(options, ChatCompletion)


class Chat:
    def __init__(self, client: Client) -> None:
        self.completions = Completions(client)


class AsyncChat:
    def __init__(self, client: AsyncClient) -> None:
        self.completions = AsyncCompletions(client)


class Embeddings:
    def __init__(self, client: Client) -> None:
        self._client = client

    def create(
        self,
        *,
        model: str,
        input: str | list[str] | list[int] | list[list[int]],
        extra_headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> CreateEmbeddingResponse:
        """Embed ``input`` (``dimensions``, ``encoding_format``, ``user`` pass through)."""
        options = _embeddings_options(model, input, params, extra_headers, extra_body, timeout, max_retries)
        return self._client._request(options, CreateEmbeddingResponse)


class AsyncEmbeddings:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def create(
        self,
        *,
        model: str,
        input: str | list[str] | list[int] | list[list[int]],
        extra_headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
        **params: Any,
    ) -> CreateEmbeddingResponse:
        """Async twin of :meth:`Embeddings.create`."""
        options = _embeddings_options(model, input, params, extra_headers, extra_body, timeout, max_retries)
        return await self._client._request(options, CreateEmbeddingResponse)


class Models:
    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> ModelList:
        """The models the server offers."""
        return self._client._request(_get_options("/models", extra_headers, timeout, max_retries), ModelList)

    def retrieve(
        self,
        model: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> Model:
        """One model by id."""
        return self._client._request(
            _get_options(f"/models/{model}", extra_headers, timeout, max_retries), Model
        )


class AsyncModels:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def list(
        self,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> ModelList:
        """Async twin of :meth:`Models.list`."""
        return await self._client._request(
            _get_options("/models", extra_headers, timeout, max_retries), ModelList
        )

    async def retrieve(
        self,
        model: str,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: Any = NOT_GIVEN,
        max_retries: int | None = None,
    ) -> Model:
        """Async twin of :meth:`Models.retrieve`."""
        return await self._client._request(
            _get_options(f"/models/{model}", extra_headers, timeout, max_retries), Model
        )
