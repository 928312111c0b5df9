"""``Client`` and ``AsyncClient``: the only module that does HTTP.

Configuration, request building and every decision live in :class:`_BaseClient` and the sans-IO
modules; the two clients only send, await and sleep. Retries are driven by tenacity through the one
:class:`~holyclient._retry.RetryPolicy`.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Awaitable, Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from . import _config
from ._attempts import Attempts, mark_never_sent
from ._base import (
    NOT_GIVEN,
    RequestOptions,
    build_headers,
    make_status_error,
)
from ._binary import billed_usage, parse_response
from ._constants import DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_AFTER
from ._custom_requests import AsyncRequestMethods, SyncRequestMethods
from ._exceptions import APIError, ConfigurationError
from ._recorder import make_recorder
from ._response import ResponseModes
from ._retry import RetryPolicy, retry_after_seconds
from ._stream_usage import CHARGED_PATHS, StreamMeter, ask_for_usage
from ._streaming import AsyncStream, ChunkDecoder, Stream
from ._transport import default_timeout, new_async_client, new_sync_client, request_timeout, translate_error

if TYPE_CHECKING:
    from ._pagination import AsyncPage, AsyncPaginator, SyncPage
    from ._usage import UsageTracker
    from .ratelimit import Limiter
    from .resources import AsyncChat, AsyncEmbeddings, AsyncModels, Chat, Embeddings, Models
    from .resources.audio import AsyncAudio, Audio
    from .resources.batches import AsyncBatches, Batches
    from .resources.beta import AsyncBeta, Beta
    from .resources.completions import AsyncCompletions as AsyncTextCompletions
    from .resources.completions import Completions as TextCompletions
    from .resources.files import AsyncFiles, Files
    from .resources.images import AsyncImages, Images
    from .resources.moderations import AsyncModerations, Moderations
    from .resources.responses import AsyncResponses, Responses
    from .types._base import BaseModel

ModelT = TypeVar("ModelT", bound="BaseModel")
SyncPageT = TypeVar("SyncPageT", bound="SyncPage[Any]")
AsyncPageT = TypeVar("AsyncPageT", bound="AsyncPage[Any]")


class _BaseClient(ResponseModes):
    """Configuration and request building shared by both clients (no I/O)."""

    _http: Any
    _owns_http: bool

    def __init__(
        self,
        *,
        api_key: Any = None,
        organization: str | None = None,
        project: str | None = None,
        base_url: str | None = None,
        timeout: Any = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Mapping[str, str] | None = None,
        default_query: Mapping[str, object] | None = None,
        allow_insecure_http: bool = False,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        budget_usd: float | None = None,
        limiter: Limiter | None = None,
        record_to: str | os.PathLike[str] | None = None,
        record_rate: float = 1.0,
    ) -> None:
        self.limiter = limiter
        self._set_api_key(api_key)
        self.organization = organization
        self.project = project
        self.base_url = _config.resolve_base_url(base_url)
        _config.check_transport_security(self.base_url, allow_insecure_http=allow_insecure_http)
        self.timeout = default_timeout(timeout)
        self.max_retries = max_retries
        self.default_headers = dict(default_headers or {})
        self.default_query = dict(default_query or {})
        self._allow_insecure_http = allow_insecure_http
        self._policy = RetryPolicy(max_retry_after=max_retry_after)
        self._budget_usd = budget_usd
        from ._usage import UsageTracker  # here, not at module level: ``import holyclient`` stays light

        # Created now, not on first use: threads making their first calls at once would each create
        # a tracker, losing requests and each enforcing the whole budget.
        self._usage: UsageTracker = UsageTracker(budget_usd=budget_usd)
        self._recorder = make_recorder(record_to, record_rate)  # a sample for ``holyclient compare``

    # The key lives in ``api_key`` but never in a repr: reprs end up in logs and tracebacks.
    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, max_retries={self.max_retries})"

    def _set_api_key(self, api_key: Any) -> None:
        """A string key (or ``HOLYSHEEP_API_KEY``), or a provider called before every request (key rotation)."""
        if callable(api_key):
            self._api_key_provider: Any = api_key
            self.api_key = ""
        else:
            self._api_key_provider = None
            self.api_key = _config.resolve_api_key(api_key)

    def _accept_api_key(self, key: object) -> None:
        if not isinstance(key, str) or not key:
            raise ConfigurationError(
                f"The api_key provider must return a non-empty string, not {type(key).__name__}"
            )
        self.api_key = key

    def _identity_headers(self) -> dict[str, str]:
        headers = {}
        if self.organization is not None:
            headers["OpenAI-Organization"] = self.organization
        if self.project is not None:
            headers["OpenAI-Project"] = self.project
        return headers

    @property
    def usage(self) -> UsageTracker:
        """Tokens and cost per model of every call made through this client and its copies."""
        return self._usage

    def with_options(
        self,
        *,
        api_key: Any = NOT_GIVEN,
        organization: str | None = NOT_GIVEN,
        project: str | None = NOT_GIVEN,
        base_url: str | None = NOT_GIVEN,
        timeout: Any = NOT_GIVEN,
        max_retries: int = NOT_GIVEN,
        default_headers: Mapping[str, str] | None = NOT_GIVEN,
        default_query: Mapping[str, object] | None = NOT_GIVEN,
        allow_insecure_http: bool = NOT_GIVEN,
        max_retry_after: float = NOT_GIVEN,
    ) -> Self:
        """A copy with some options changed, sharing this client's connection pool and usage tracker.

        ``default_headers`` and ``default_query`` are merged into the current ones. ``copy()`` is the
        same method under openai's other name.
        """
        new = copy.copy(self)
        new.default_headers = dict(self.default_headers)
        new.default_query = dict(self.default_query)
        new._owns_http = False  # the copy shares the connection pool; the original closes it
        new._usage = self._usage  # copies share one tracker (and one budget)
        if api_key is not NOT_GIVEN:
            new._set_api_key(api_key)
        if organization is not NOT_GIVEN:
            new.organization = organization
        if project is not NOT_GIVEN:
            new.project = project
        if default_query is not NOT_GIVEN:
            new.default_query.update(default_query or {})
        if base_url is not NOT_GIVEN:
            new.base_url = _config.resolve_base_url(base_url)
        if timeout is not NOT_GIVEN:
            new.timeout = default_timeout(timeout)
        if max_retries is not NOT_GIVEN:
            new.max_retries = max_retries
        if default_headers is not NOT_GIVEN:
            new.default_headers.update(default_headers or {})
        if max_retry_after is not NOT_GIVEN:
            new._policy = RetryPolicy(max_retry_after=max_retry_after)
        if allow_insecure_http is not NOT_GIVEN:
            new._allow_insecure_http = allow_insecure_http
        _config.check_transport_security(new.base_url, allow_insecure_http=new._allow_insecure_http)
        new._bind_resources()
        return new

    copy = with_options

    def _bind_resources(self) -> None:
        raise NotImplementedError

    def _build_request(self, options: RequestOptions) -> Any:
        defaults = self.default_headers
        if self.organization is not None or self.project is not None:
            defaults = {**self._identity_headers(), **defaults}
        headers = build_headers(self.api_key, defaults, options.extra_headers, stream=options.stream)
        timeout = self.timeout if options.timeout is NOT_GIVEN else default_timeout(options.timeout)
        query = {**self.default_query, **options.query} if options.query else self.default_query
        return self._http.build_request(
            options.method,
            self.base_url + options.path,
            json=options.body if options.method != "GET" and options.content is None else None,
            content=options.content,
            params=query or None,
            headers=headers,
            timeout=request_timeout(timeout),
        )

    def _retries(self, options: RequestOptions) -> int:
        return self.max_retries if options.max_retries is None else options.max_retries

    def _reserve(self, options: RequestOptions) -> Any:
        """Check the budget before sending (only when one is set: counting tokens is not free)."""
        if self._budget_usd is None or options.body is None:
            return None
        if options.path not in CHARGED_PATHS and "messages" not in options.body:
            return None
        return self._usage.reserve(options.body)

    def _settle(self, reservation: Any, model: str | None, usage: Any) -> None:
        usage_dict = usage.model_dump() if usage is not None else None
        if reservation is not None:
            self._usage.settle(reservation, usage_dict)
        elif usage_dict is not None and model:
            self._usage.record(model, usage_dict)

    def _attempts(self, options: RequestOptions) -> Attempts:
        """One call's attempts, its worst case reserved (see :class:`~holyclient._attempts.Attempts`)."""
        if self._recorder is not None:
            self._recorder.observe(options)
        return Attempts(options, self._usage, self._reserve)

    def _metered(self, options: RequestOptions) -> tuple[Attempts, Callable[[Attempts], StreamMeter]]:
        """A streaming call's attempts (asking for usage in the stream) and how to make the meter that
        will charge the stream, once an attempt has returned it."""
        body, hide = ask_for_usage(options.path, options.body)
        if body is not options.body:
            options = dataclasses.replace(options, body=body)

        def meter(attempts: Attempts) -> StreamMeter:
            return StreamMeter(self._usage, attempts.reservation, body, hide_usage_chunk=hide)

        return self._attempts(options), meter

    def _parse(self, response: Any, request: Any, cast_to: type[ModelT]) -> ModelT:
        """A read response as ``cast_to``, or the status error it carries."""
        if response.status_code >= 400:
            raise self._status_error(response, response.content, request)
        result = parse_response(cast_to, response, request=request)
        if hasattr(result, "__pydantic_fields__"):  # text, bytes, raw JSON and binary bodies carry no id
            result._request_id = response.headers.get("x-request-id")
        if self._response_cls is not None:  # with_raw_response / with_streaming_response
            return cast("ModelT", self._response_cls(response, result))
        return cast("ModelT", result)

    def _status_error(self, response: Any, content: bytes, request: Any) -> APIError:
        return make_status_error(
            response, content, request=request, retry_after=retry_after_seconds(response.headers)
        )


class Client(SyncRequestMethods, _BaseClient):
    """Synchronous client for the HolySheep API (or any OpenAI-compatible server).

    Args:
        api_key: defaults to ``HOLYSHEEP_API_KEY``. ``OPENAI_API_KEY`` is never read. A callable is
            called before every request (key rotation); its keys are never logged.
        organization: sent as ``OpenAI-Organization``.
        project: sent as ``OpenAI-Project``.
        base_url: defaults to ``HOLYSHEEP_BASE_URL``, then ``https://api.holysheep.ai/v1``.
        timeout: seconds or an ``httpx.Timeout`` (default 600 s, 5 s to connect).
        max_retries: retries after the first attempt (default 2); per call with ``max_retries=``.
        default_headers: sent with every request.
        default_query: query parameters sent with every request (per call: ``extra_query=``).
        http_client: your own ``httpx2.Client`` or ``httpx.Client`` (proxies, mounts, respx). It is
            not closed by ``close()``.
        allow_insecure_http: allow ``http://`` to a non-loopback host (the key travels in clear).
        max_retry_after: longest ``Retry-After`` honoured; a longer one raises at once.
        budget_usd: refuse, before sending, requests whose worst-case cost exceeds what is left.
        limiter: a :class:`~holyclient.ratelimit.Limiter` every attempt waits for (e.g. a
            ``RedisLimiter`` shared with batch workers), fed back each response.
        record_to: append a sample of requests to this JSONL file, as Batch API input lines (for
            ``holyclient compare``; never a header or key; see :mod:`holyclient._recorder`).
        record_rate: the fraction of requests ``record_to`` records (default all).
        sleep: how to wait between retries (tests pass a recorder).

    Raises:
        ConfigurationError: no key, or an insecure base URL.
    """

    beta: Beta
    chat: Chat
    embeddings: Embeddings
    models: Models
    audio: Audio
    batches: Batches
    completions: TextCompletions
    files: Files
    images: Images
    moderations: Moderations
    responses: Responses

    def __init__(
        self,
        *,
        api_key: str | Callable[[], str] | None = None,
        organization: str | None = None,
        project: str | None = None,
        base_url: str | None = None,
        timeout: Any = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Mapping[str, str] | None = None,
        default_query: Mapping[str, object] | None = None,
        http_client: Any = None,
        allow_insecure_http: bool = False,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        budget_usd: float | None = None,
        record_to: str | os.PathLike[str] | None = None,
        record_rate: float = 1.0,
        sleep: Callable[[float], None] | None = None,
        limiter: Limiter | None = None,
    ) -> None:
        super().__init__(
            api_key=api_key,
            organization=organization,
            project=project,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
            default_query=default_query,
            allow_insecure_http=allow_insecure_http,
            max_retry_after=max_retry_after,
            budget_usd=budget_usd,
            limiter=limiter,
            record_to=record_to,
            record_rate=record_rate,
        )
        self._owns_http = http_client is None
        self._http = new_sync_client(self.timeout) if http_client is None else http_client
        self._sleep = sleep
        self._bind_resources()

    def _bind_resources(self) -> None:
        from .resources import SYNC_RESOURCES

        for name, resource in SYNC_RESOURCES.items():
            setattr(self, name, resource(self))

    def _request(self, options: RequestOptions, cast_to: type[ModelT]) -> ModelT:
        attempts = self._attempts(options)
        try:
            result = self._policy.run(
                lambda: attempts.send(lambda o: self._send_once(o, cast_to)),
                self._retries(options),
                self._sleep,
            )
        except BaseException as exc:
            attempts.failed(exc)
            raise
        parsed = self._unwrap(result)
        self._settle(attempts.reservation, *billed_usage(parsed))
        return result

    def _get_page(self, options: RequestOptions, page_cls: type[SyncPageT]) -> SyncPageT:
        """A list response that can fetch its following pages."""
        result = self._request(options, page_cls)
        self._unwrap(result)._bind(self, options)
        return result

    def _send_raw(self, options: RequestOptions) -> tuple[Any, Any]:
        """Send once, no retry: the request and the HTTP response, whatever its status.

        Raises:
            APIConnectionError: (or ``APITimeoutError``) when no response was obtained.
        """
        if self._api_key_provider is not None:
            self._accept_api_key(self._api_key_provider())
        request = self._build_request(options)
        try:
            response = self._http.send(request, stream=options.stream)
        except Exception as exc:
            error: BaseException | None = mark_never_sent(translate_error(exc, request), exc)
        else:
            error = None
        if error is not None:  # raised outside ``except``: the library error (and its key) is not chained
            raise error
        return request, response

    def _send_limited(self, options: RequestOptions) -> tuple[Any, Any]:
        """:meth:`_send_raw` through the limiter, if any (the batch runner admits by itself)."""
        if self.limiter is None:
            return self._send_raw(options)
        from .ratelimit._protocol import admission_cost, response_feedback

        admission = self.limiter.acquire_sync(*admission_cost(self.limiter, options.body))
        request, response = self._send_raw(options)
        self.limiter.observe_sync(admission, response_feedback(response, stream=options.stream))
        return request, response

    def _send_once(self, options: RequestOptions, cast_to: type[ModelT]) -> ModelT:
        request, response = self._send_limited(options)
        return self._parse(response, request, cast_to)

    def _stream(self, options: RequestOptions, cast_to: type[ModelT]) -> Stream[ModelT]:
        attempts, meter = self._metered(options)

        def attempt(options: RequestOptions) -> Stream[ModelT]:
            request, response = self._send_limited(options)
            try:
                if response.status_code >= 400:
                    raise self._status_error(response, response.read(), request)
                chunks = response.iter_bytes()
                first = next(chunks, b"")  # retried only before the first byte
            except BaseException as exc:
                response.close()
                failure = translate_error(exc, request)
                if failure is exc:
                    raise
            else:
                decoder = ChunkDecoder(cast_to, response, request)
                return Stream(decoder, response, chunks, first, meter(attempts))
            raise failure

        try:
            stream = self._policy.run(lambda: attempts.send(attempt), self._retries(options), self._sleep)
        except BaseException as exc:
            attempts.failed(exc)
            raise
        return self._wrap_stream(stream)

    def close(self) -> None:
        """Close the connection pool (unless it was passed in by the caller)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncClient(AsyncRequestMethods, _BaseClient):
    """Asynchronous client; same arguments as :class:`Client`, with an ``httpx2.AsyncClient`` /
    ``httpx.AsyncClient`` as ``http_client`` and an async ``sleep``."""

    _is_async = True

    beta: AsyncBeta
    chat: AsyncChat
    embeddings: AsyncEmbeddings
    models: AsyncModels
    audio: AsyncAudio
    batches: AsyncBatches
    completions: AsyncTextCompletions
    files: AsyncFiles
    images: AsyncImages
    moderations: AsyncModerations
    responses: AsyncResponses

    def __init__(
        self,
        *,
        api_key: str | Callable[[], Awaitable[str]] | None = None,
        organization: str | None = None,
        project: str | None = None,
        base_url: str | None = None,
        timeout: Any = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Mapping[str, str] | None = None,
        default_query: Mapping[str, object] | None = None,
        http_client: Any = None,
        allow_insecure_http: bool = False,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        budget_usd: float | None = None,
        record_to: str | os.PathLike[str] | None = None,
        record_rate: float = 1.0,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        limiter: Limiter | None = None,
    ) -> None:
        super().__init__(
            api_key=api_key,
            organization=organization,
            project=project,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
            default_query=default_query,
            allow_insecure_http=allow_insecure_http,
            max_retry_after=max_retry_after,
            budget_usd=budget_usd,
            limiter=limiter,
            record_to=record_to,
            record_rate=record_rate,
        )
        self._owns_http = http_client is None
        self._http = new_async_client(self.timeout) if http_client is None else http_client
        self._sleep = sleep
        self._bind_resources()

    def _bind_resources(self) -> None:
        from .resources import ASYNC_RESOURCES

        for name, resource in ASYNC_RESOURCES.items():
            setattr(self, name, resource(self))

    async def _request(self, options: RequestOptions, cast_to: type[ModelT]) -> ModelT:
        attempts = self._attempts(options)
        try:
            result: ModelT = await self._policy.arun(
                lambda: attempts.asend(lambda o: self._send_once(o, cast_to)),
                self._retries(options),
                self._sleep,
            )
        except BaseException as exc:
            attempts.failed(exc)
            raise
        parsed = self._unwrap(result)
        self._settle(attempts.reservation, *billed_usage(parsed))
        return result

    def _get_page(
        self, options: RequestOptions, page_cls: type[AsyncPageT]
    ) -> AsyncPaginator[AsyncPageT, Any]:
        """A list response: await it for the first page, ``async for`` it for every item."""
        from ._pagination import AsyncPaginator

        async def fetch() -> AsyncPageT:
            result = await self._request(options, page_cls)
            self._unwrap(result)._bind(self, options)
            return result

        return AsyncPaginator(fetch)

    async def _send_raw(self, options: RequestOptions) -> tuple[Any, Any]:
        """Send once, no retry: the request and the HTTP response, whatever its status.

        Raises:
            APIConnectionError: (or ``APITimeoutError``) when no response was obtained.
        """
        if self._api_key_provider is not None:
            self._accept_api_key(await self._api_key_provider())
        request = self._build_request(options)
        try:
            response = await self._http.send(request, stream=options.stream)
        except Exception as exc:
            error: BaseException | None = mark_never_sent(translate_error(exc, request), exc)
        else:
            error = None
        if error is not None:  # raised outside ``except``: the library error (and its key) is not chained
            raise error
        return request, response

    async def _send_limited(self, options: RequestOptions) -> tuple[Any, Any]:
        """:meth:`_send_raw` through the limiter, if any (the batch runner admits by itself)."""
        if self.limiter is None:
            return await self._send_raw(options)
        from .ratelimit._protocol import admission_cost, response_feedback

        admission = await self.limiter.acquire(*admission_cost(self.limiter, options.body))
        request, response = await self._send_raw(options)
        await self.limiter.observe(admission, response_feedback(response, stream=options.stream))
        return request, response

    async def _send_once(self, options: RequestOptions, cast_to: type[ModelT]) -> ModelT:
        request, response = await self._send_limited(options)
        return self._parse(response, request, cast_to)

    async def _stream(self, options: RequestOptions, cast_to: type[ModelT]) -> AsyncStream[ModelT]:
        attempts, meter = self._metered(options)

        async def attempt(options: RequestOptions) -> AsyncStream[ModelT]:
            request, response = await self._send_limited(options)
            try:
                if response.status_code >= 400:
                    raise self._status_error(response, await response.aread(), request)
                chunks = response.aiter_bytes()
                first = await anext(chunks, b"")  # retried only before the first byte
            except BaseException as exc:
                await response.aclose()
                failure = translate_error(exc, request)
                if failure is exc:
                    raise
            else:
                decoder = ChunkDecoder(cast_to, response, request)
                return AsyncStream(decoder, response, chunks, first, meter(attempts))
            raise failure

        try:
            stream = await self._policy.arun(
                lambda: attempts.asend(attempt), self._retries(options), self._sleep
            )
        except BaseException as exc:
            attempts.failed(exc)
            raise
        return self._wrap_stream(stream)

    async def close(self) -> None:
        """Close the connection pool (unless it was passed in by the caller)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
