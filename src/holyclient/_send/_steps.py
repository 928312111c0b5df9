"""The send pipeline's data and its extension point: what one attempt carries to the wire and back.

Every request -- resource calls, streams, raw responses, ``client.get/post``, the batch runner, Router
targets, ``compare``, ``doctor`` -- passes :class:`~holyclient._pipeline.Pipeline`, whose steps build a
:class:`Prepared` attempt (key, identity headers, default query), hand it to the **wire**, and get an
:class:`Exchange` back.

**Extension point.** A feature that must act at the wire -- time it (``compare``), send on the
transport's own session (the batch runner's fast path) -- is a :class:`SendStep`: an async callable
``step(prepared, send) -> Exchange`` that may look at or change the attempt, call ``send`` (the rest of
the chain, ending at the transport) or answer by itself. Steps are passed per call
(``pipeline.asend(options, steps=[...])``); nothing overrides a client's private method or reaches into
the transport's attributes (the transport exposes :meth:`~holyclient._http._aiohttp.AiohttpTransport.session`).
A feature that chooses *which client* sends an attempt (a Router target) implements :class:`Sender`
instead; one that decides how a *whole call* runs (a Router's failover) implements a
:class:`~holyclient._send._calls.Caller`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from .._http import translate_error

if TYPE_CHECKING:
    from .._core import RequestOptions
    from ..pricing import Ledger, UsageTracker
    from ..ratelimit import Limiter
    from ..types._model import BaseModel
    from ._recorder import Recorder

__all__ = [
    "AsyncSend",
    "Exchange",
    "PipelineClient",
    "Prepared",
    "Preparer",
    "SendStep",
    "Sender",
    "asent",
    "sent",
]

T = TypeVar("T")
ModelT = TypeVar("ModelT", bound="BaseModel")


class PipelineClient(Protocol):
    """What a :class:`~._pipeline.Pipeline` reads of its client (``_send._base_client.BaseClient`` is
    one), on each use. Declared here, below the client, so that the pipeline needs nothing of the class
    that owns it."""

    api_key: str
    organization: str | None
    project: str | None
    _base_url: str  # without its trailing slash (``base_url`` is the URL object)
    timeout: Any
    default_headers: dict[str, str]
    default_query: dict[str, object]
    limiter: Limiter | None
    _api_key_provider: Any
    _budget_usd: float | None
    _usage: UsageTracker
    _recorder: Recorder | None
    _owns_http: bool
    _response_cls: Any  # ``None``, or the raw-response class its calls return (``with_raw_response``)

    @property
    def _http(self) -> Any: ...

    def _accept_api_key(self, key: object) -> None: ...

    def _parse(self, response: Any, request: Any, cast_to: type[ModelT]) -> ModelT: ...

    def _parse_answer(self, exchange: Exchange, cast_to: type[ModelT]) -> ModelT: ...

    def _unwrap(self, result: Any) -> Any: ...


class Preparer(Protocol):
    """What a :class:`Prepared` attempt asks of the pipeline that made it (a :class:`~._pipeline.Pipeline`),
    and what a send step may read of it: declared here, so that the attempt's data needs nothing of
    the pipeline's module."""

    client: PipelineClient

    def identity(self) -> dict[str, str]: ...

    def build(self, prepared: Prepared) -> Any: ...

    def url(self, options: RequestOptions) -> str: ...

    def wire_headers(
        self, key: str, extra: Mapping[str, str] | None, *, json: bool = True
    ) -> list[tuple[str, str]]: ...


class Prepared:
    """One attempt ready for the wire: the options, the key resolved for it, and how to build its request.

    The httpx request (and its header list) is built on first use only: the batch fast path sends from
    :meth:`url` and :meth:`wire_headers` and builds the httpx request only for an error.
    """

    __slots__ = ("_request", "key", "options", "pipeline")

    def __init__(self, pipeline: Preparer, options: RequestOptions, key: str) -> None:
        self.pipeline = pipeline
        self.options = options
        self.key = key
        self._request: Any = None

    def request(self) -> Any:
        """The httpx(2) request (identity headers, default query, timeout), built once."""
        if self._request is None:
            self._request = self.pipeline.build(self)
        return self._request

    def url(self) -> str:
        """The full URL, the client's ``default_query`` included."""
        return self.pipeline.url(self.options)

    def wire_headers(self, *, json: bool = True) -> list[tuple[str, str]]:
        """The headers as a list, for a JSON body (cached per key) or none, for a wire that sends by itself."""
        return self.pipeline.wire_headers(self.key, self.options.extra_headers, json=json)


class Exchange:
    """One attempt's answer, whatever its status: the prepared attempt, the response, its ledger.

    ``response`` is an httpx(2) response (streamed or read) or, from a step that sends by itself, any
    object with ``status_code``, ``headers`` and ``content``; :meth:`httpx` gives httpx objects either way.
    """

    __slots__ = ("_response", "ledger", "prepared", "response")

    def __init__(self, prepared: Prepared, response: Any, httpx_response: Any = None) -> None:
        self.prepared = prepared
        self.response = response
        self._response = httpx_response
        self.ledger: Ledger | None = None

    @property
    def request(self) -> Any:
        return self.prepared.request()

    def httpx(self) -> tuple[Any, Any]:
        """``(request, response)`` as httpx2 objects, for the client's error and parsing code."""
        if self._response is None:
            response = self.response
            made = getattr(response, "httpx", None)  # an answer that knows its body as it came
            if made is not None:
                self._response = made(self.request)
            else:
                import httpx2

                self._response = httpx2.Response(
                    response.status_code,
                    headers=list(response.headers.items()),
                    content=response.content,
                    request=self.request,
                )
        return self.request, self._response

    def unechoed(self) -> None:
        """Cut the attempt's key out of a read answer that echoes it, before anyone parses or keeps it.

        A server may reflect the request (a debugging relay, a proxy that answers 200 with what it was
        sent): whatever we hand on, keep or write -- a batch OUTPUT line, compare's report, a mirror's
        pairs file -- must not hold the key. Error answers are redacted when their error is made; this
        covers the rest. A streamed body is not covered (a key may be split between two chunks).
        """
        key = self.prepared.key
        response = self.response
        if len(key) < 8 or key.encode() not in response.content:  # never blank a short common word
            return
        from .._core import REDACTED

        clean = response.content.replace(key.encode(), REDACTED.encode())
        if self._response is response:  # the HTTP library's own response: rebuilt around the clean body
            import httpx2

            self.response = self._response = httpx2.Response(
                response.status_code,
                headers=list(response.headers.items()),
                content=clean,
                request=response.request,
            )
        else:  # the direct wire's answer, or a send step's own
            cleaned = getattr(response, "cleaned", None)
            if cleaned is not None:
                cleaned(clean)
            else:
                response.content = clean
            self._response = None

    def settle(self, model: str | None, usage: Any) -> None:
        """The usage-settlement step: charge what the answer reported."""
        if self.ledger is not None:
            self.ledger.settle(model, usage)

    def failed(self, exc: BaseException) -> None:
        """The attempt failed after its answer (status error, unreadable body): settle its reservation."""
        if self.ledger is not None:
            self.ledger.failed(exc)


AsyncSend = Callable[[Prepared], Awaitable[Exchange]]


class SendStep(Protocol):
    """A step around the wire (see the module docstring), called as ``await step(prepared, send=...)``:
    the parameter names are part of the protocol."""

    async def __call__(self, prepared: Prepared, send: AsyncSend) -> Exchange: ...


class Sender(Protocol):
    """What sends one attempt through the pipeline's steps: a client's :class:`~holyclient._pipeline.Pipeline`,
    or a Router's, which picks a target and hands the attempt to that target's pipeline."""

    def send(self, options: RequestOptions, *, limited: bool = True) -> Exchange: ...

    async def asend(
        self, options: RequestOptions, *, steps: tuple[SendStep, ...] = (), limited: bool = True
    ) -> Exchange: ...


def sent(fn: Callable[[], T], request: Callable[[], Any]) -> T:
    """``fn()``, with anything the HTTP library raises translated and redacted by
    :func:`~holyclient._http._transport.translate_error`, raised outside the ``except`` block so that the
    library's exception (whose request holds the key) is not chained."""
    try:
        return fn()
    except Exception as exc:
        error = clean_failure(exc, request)
    raise error


async def asent(fn: Callable[[], Awaitable[T]], request: Callable[[], Any]) -> T:
    """Async twin of :func:`sent`."""
    try:
        return await fn()
    except Exception as exc:
        error = clean_failure(exc, request)
    raise error


def clean_failure(exc: BaseException, request: Callable[[], Any]) -> BaseException:
    """Our error for ``exc`` (redacted), marked when the library says the request never left.

    The one key-safety helper of the send path: every place that catches what the HTTP library raised
    (the wire, the fast path, a stream's first event and its chunks, compare's stream reader) turns it
    into our error here and raises that *outside* its ``except`` block (:func:`sent` / :func:`asent`
    do both), so the library's exception, whose request holds the key, is never chained."""
    from ._attempts import mark_never_sent

    if not isinstance(exc, Exception):
        return exc
    return mark_never_sent(translate_error(exc, request()), exc)
