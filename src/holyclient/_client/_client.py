"""``Client`` and ``AsyncClient``: the two clients users construct, as thin shells over the send path.

Configuration, request building and every decision live in
:class:`~holyclient._send._base_client.BaseClient` and the sans-IO modules; the two clients bind the
resources and hand each call to their caller (``_caller_factory``): the retry loop of
:mod:`holyclient._send._calls`, driven by tenacity through the one
:class:`~holyclient._core._retry.RetryPolicy`.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from .._constants import DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_AFTER
from .._core import NOT_GIVEN, RequestOptions
from .._http import default_timeout, new_async_client, new_sync_client
from .._send import (
    RESOURCE_NAMES,
    AsyncRequestMethods,
    AsyncRetryingCaller,
    BaseClient,
    RetryingCaller,
    SyncRequestMethods,
    settings_of,
)
from ..openai_compat import http_client, openai_client

if TYPE_CHECKING:
    import openai

    from .._send import (
        AsyncCallSite,
        AsyncPaginator,
        AsyncStream,
        BaseAsyncPage,
        BaseSyncPage,
        Stream,
        SyncCallSite,
    )
    from ..pricing import BudgetPolicy, UsageTracker
    from ..ratelimit import Limiter
    from ..resources import AsyncChat, AsyncEmbeddings, AsyncModels, Chat, Embeddings, Models
    from ..resources.audio import AsyncAudio, Audio
    from ..resources.batches import AsyncBatches, Batches
    from ..resources.beta import AsyncBeta, Beta
    from ..resources.completions import AsyncCompletions as AsyncTextCompletions
    from ..resources.completions import Completions as TextCompletions
    from ..resources.files import AsyncFiles, Files
    from ..resources.images import AsyncImages, Images
    from ..resources.moderations import AsyncModerations, Moderations
    from ..resources.responses import AsyncResponses, Responses
    from ..types._model import BaseModel

ModelT = TypeVar("ModelT", bound="BaseModel")
SyncPageT = TypeVar("SyncPageT", bound="BaseSyncPage[Any]")
AsyncPageT = TypeVar("AsyncPageT", bound="BaseAsyncPage[Any]")


class _LazyResources:
    """Binds a client's resources on first access (``client.chat`` ...), as openai's cached properties do:
    ``Client()`` imports no resource module. Here, above ``resources/``, not in the send path below it."""

    _is_async: bool

    if not TYPE_CHECKING:  # type checkers see each client's class annotations instead

        def __getattr__(self, name: str) -> Any:
            if name not in RESOURCE_NAMES:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            from ..resources import resource_class

            resource = self.__dict__[name] = resource_class(name, is_async=self._is_async)(self)
            return resource


class Client(_LazyResources, SyncRequestMethods, BaseClient):
    """Synchronous client for the HolySheep API (or any OpenAI-compatible server).

    The API is reached through its resources, as on openai's client: ``client.chat.completions``,
    ``client.responses``, ``client.embeddings``, ``client.models``, ``client.files``, ``client.batches``,
    ``client.images``, ``client.audio``, ``client.moderations``, ``client.completions`` and
    ``client.beta`` (their methods are listed under "Resources" in the API reference).

    Args:
        api_key: defaults to ``HOLYSHEEP_API_KEY``. ``OPENAI_API_KEY`` is never read. A callable is
            called before every request (key rotation); its keys are never logged.
        organization: sent as ``OpenAI-Organization``.
        project: sent as ``OpenAI-Project``.
        base_url: defaults to ``HOLYSHEEP_BASE_URL``, then ``https://api.holysheep.ai/v1``.
        timeout: seconds or an ``httpx.Timeout`` (default 600 s, 5 s to connect).
        first_event_timeout: seconds a stream may take from its request to its first event (keep-alive
            comments do not count); past it the attempt ends with a ``FirstEventTimeoutError``, retried
            as a timeout (nothing reached the caller). Default 60 s, or 600 s for a model that may think
            silently first (o1/o3/o4/gpt-5, deepseek-reasoner ..., or a request asking for reasoning or
            thinking); None: no limit but the read timeout. Per call: ``with_options(...)``.
        stream_idle_timeout: seconds a stream's read may wait for its next event once it has started
            (keep-alive comments do not count); past it the stream raises ``StreamIdleTimeoutError``.
            Defaults as ``first_event_timeout``. See docs/guides/rolling-out.md, "Deadlines".
        max_retries: retries after the first attempt (default 2); per call with ``max_retries=``.
        default_headers: sent with every request.
        default_query: query parameters sent with every request (per call: ``extra_query=``).
        http_client: your own ``httpx2.Client`` or ``httpx.Client`` (proxies, mounts, respx). It is
            not closed by ``close()``.
        allow_insecure_http: allow ``http://`` to a non-loopback host (the key travels in clear).
        max_retry_after: longest ``Retry-After`` honoured; a longer one raises at once.
        budget_usd: refuse, before sending, requests whose hold exceeds what is left (a request holds
            its prompt plus its ``max_tokens``, or without one the output ``budget_policy`` says).
        budget_policy: what a request without an output cap holds against ``budget_usd``:
            ``"expected"`` (default: the answer length this client's billed answers show for the
            model, 1,024 tokens until it has seen 10; longer answers are charged in full and reported
            as ``usage.snapshot().overrun_usd``) or ``"worst_case"`` (the model's whole output limit:
            the budget is never exceeded). See the budget guide.
        usage: share another client's usage tracker, and so its budget: ``AsyncClient(usage=
            client.usage)`` gives a sync and an async client (and the openai clients they hand out)
            one budget and one set of totals, seen in either's ``usage``. The tracker's budget,
            policy and calibration apply: ``budget_usd``, ``budget_policy`` and ``calibration`` cannot
            be given with it. A ``UsageTracker(budget_usd=...)`` made first may be given to both.
        limiter: a :class:`~holyclient.ratelimit.Limiter` every attempt waits for (e.g. a
            ``RedisLimiter`` shared with batch workers), fed back each response.
        record_to: append a sample of requests to this JSONL file, as Batch API input lines (for
            ``holyclient compare``; never a header or key; see :mod:`holyclient._send._recorder`).
        record_rate: the fraction of requests ``record_to`` records (default all).
        calibration: token-count corrections fitted from billed usage (a path written by
            ``holyclient calibrate`` or ``client.usage.calibration().save()``, or a ``Calibration``):
            budgets reserve models counted with a stand-in tokenizer by it.
        sleep: how to wait between retries (tests pass a recorder).
        instrument: emit OpenTelemetry GenAI spans and metrics per call when ``opentelemetry-api`` is
            installed (default; ``OTEL_PYTHON_DISABLED_INSTRUMENTATIONS=holyclient`` turns it off too).
        tracer_provider: the ``TracerProvider`` for those spans (default: the application's global one).
        meter_provider: the ``MeterProvider`` for the metrics (default: the application's global one).

    Raises:
        ConfigurationError: no key, or an insecure base URL.
        ValueError: ``usage=`` given with ``budget_usd``, ``budget_policy`` or ``calibration``.
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

    _caller_factory: Callable[[Any], Any] = RetryingCaller

    def __init__(
        self,
        *,
        api_key: str | Callable[[], str] | None = None,
        organization: str | None = None,
        project: str | None = None,
        base_url: str | None = None,
        timeout: Any = None,
        first_event_timeout: float | None = NOT_GIVEN,
        stream_idle_timeout: float | None = NOT_GIVEN,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Mapping[str, str] | None = None,
        default_query: Mapping[str, object] | None = None,
        http_client: Any = None,
        allow_insecure_http: bool = False,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        budget_usd: float | None = None,
        budget_policy: BudgetPolicy = "expected",
        usage: UsageTracker | None = None,
        record_to: str | os.PathLike[str] | None = None,
        record_rate: float = 1.0,
        calibration: Any = None,
        sleep: Callable[[float], None] | None = None,
        limiter: Limiter | None = None,
        instrument: bool = True,
        tracer_provider: Any = None,
        meter_provider: Any = None,
    ) -> None:
        super().__init__(settings_of(locals()))

    def _new_http(self) -> Any:
        return new_sync_client(default_timeout(self.timeout))

    # Each call is run by the class's caller (``_caller_factory``): the retry loop here, a Router's
    # failover in a Router. The resources call these three; nothing overrides them.
    def _request(self, options: RequestOptions, cast_to: type[ModelT]) -> ModelT:
        result: ModelT = self._caller.request(options, cast_to)
        return result

    def _get_page(self, options: RequestOptions, page_cls: type[SyncPageT]) -> SyncPageT:
        """A list response that can fetch its following pages."""
        page: SyncPageT = self._caller.page(options, page_cls)
        return page

    def _stream(self, options: RequestOptions, cast_to: type[ModelT]) -> Stream[ModelT]:
        stream: Stream[ModelT] = self._caller.stream(options, cast_to)
        return stream

    def as_openai(self) -> openai.OpenAI:
        """A genuine ``openai.OpenAI`` whose every request runs through this client: for LangChain,
        LlamaIndex, instructor, the Agents SDK ... (docs/frameworks/).

        Its retries are off: this client's retry policy applies, once. It holds no key (this client adds
        its own to each request, and only to its base URL); its ``api_key`` is a placeholder.

        Raises:
            ImportError: openai is not installed (``pip install 'holyclient[openai]'``).
        """
        result: openai.OpenAI = openai_client(self)
        return result

    def as_http_client(self, *, legacy: bool | None = None) -> Any:
        """An ``httpx2.Client`` (``httpx.Client`` with ``legacy=True``; by default the library of the
        installed openai) whose requests to this client's base URL run through this client, for
        frameworks that take only an HTTP client. An openai client built on it keeps its own retries:
        each of its attempts is sent once."""
        return http_client(self, legacy=legacy)

    def close(self) -> None:
        """Close the connection pool (unless it was passed in by the caller)."""
        http = self._made_http()
        if self._owns_http and http is not None:
            http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncClient(_LazyResources, AsyncRequestMethods, BaseClient):
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

    _caller_factory: Callable[[Any], Any] = AsyncRetryingCaller

    def __init__(
        self,
        *,
        api_key: str | Callable[[], Awaitable[str]] | None = None,
        organization: str | None = None,
        project: str | None = None,
        base_url: str | None = None,
        timeout: Any = None,
        first_event_timeout: float | None = NOT_GIVEN,
        stream_idle_timeout: float | None = NOT_GIVEN,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Mapping[str, str] | None = None,
        default_query: Mapping[str, object] | None = None,
        http_client: Any = None,
        allow_insecure_http: bool = False,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        budget_usd: float | None = None,
        budget_policy: BudgetPolicy = "expected",
        usage: UsageTracker | None = None,
        record_to: str | os.PathLike[str] | None = None,
        record_rate: float = 1.0,
        calibration: Any = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        limiter: Limiter | None = None,
        instrument: bool = True,
        tracer_provider: Any = None,
        meter_provider: Any = None,
    ) -> None:
        super().__init__(settings_of(locals()))

    def _new_http(self) -> Any:
        return new_async_client(default_timeout(self.timeout))

    def _request(self, options: RequestOptions, cast_to: type[ModelT]) -> Coroutine[Any, Any, ModelT]:
        # the caller's own coroutine, handed back to be awaited: no coroutine of its own around it
        result: Coroutine[Any, Any, ModelT] = self._caller.request(options, cast_to)
        return result

    def _get_page(
        self, options: RequestOptions, page_cls: type[AsyncPageT]
    ) -> AsyncPaginator[AsyncPageT, Any]:
        """A list response: await it for the first page, ``async for`` it for every item."""
        from .._send import AsyncPaginator

        return AsyncPaginator(lambda: self._caller.page(options, page_cls))

    async def _stream(self, options: RequestOptions, cast_to: type[ModelT]) -> AsyncStream[ModelT]:
        stream: AsyncStream[ModelT] = await self._caller.stream(options, cast_to)
        return stream

    def as_openai(self) -> openai.AsyncOpenAI:
        """A genuine ``openai.AsyncOpenAI`` whose every request runs through this client: for LangChain,
        LlamaIndex, instructor, the Agents SDK ... (docs/frameworks/).

        Its retries are off: this client's retry policy applies, once. It holds no key (this client adds
        its own to each request, and only to its base URL); its ``api_key`` is a placeholder.

        Raises:
            ImportError: openai is not installed (``pip install 'holyclient[openai]'``).
        """
        result: openai.AsyncOpenAI = openai_client(self)
        return result

    def as_http_client(self, *, legacy: bool | None = None) -> Any:
        """An ``httpx2.AsyncClient`` (``httpx.AsyncClient`` with ``legacy=True``; by default the library of the
        installed openai) whose requests to this client's base URL run through this client, for
        frameworks that take only an HTTP client. An openai client built on it keeps its own retries:
        each of its attempts is sent once."""
        return http_client(self, legacy=legacy)

    async def close(self) -> None:
        """Close the connection pool (unless it was passed in by the caller)."""
        http = self._made_http()
        if self._owns_http and http is not None:
            await http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


if TYPE_CHECKING:

    def _resources_can_call(client: Client, async_client: AsyncClient) -> tuple[SyncCallSite, AsyncCallSite]:
        """Never called: mypy checks here that the clients give the resources every call they make
        (``resources/`` is typed against these protocols, not against the clients above it)."""
        return client, async_client
