"""The call-level extension point: what runs one whole call -- all its attempts -- for a client.

The send pipeline has two named extension points below the resources:

- a :class:`~holyclient._send._steps.Sender` sends **one attempt** (the client's
  :class:`~holyclient._send._pipeline.Pipeline`; a Router's picks a target for it), and a
  :class:`~holyclient._send._steps.SendStep` acts around its wire (``compare``'s timing, the batch fast path);
- a :class:`Caller` (sync) / :class:`AsyncCaller` (async) runs **one whole call**: a plain call, a stream
  or the first page of a list, with every attempt it takes. A client's own is :class:`RetryingCaller` /
  :class:`AsyncRetryingCaller` (the retry loop: telemetry, attempts, retries, the stream's opening); a
  Router's (``holyclient.router._caller``) picks a target and fails over between targets, each target's
  own client running the call.

A client class chooses its caller with the class attribute ``_caller_factory`` (called with the client,
as ``_sender_factory`` is); ``Client._request`` / ``_stream`` / ``_get_page`` only hand the call to it.
So a feature that decides *how a call runs* plugs in here and overrides no private method of a client.

The functions below are what a caller outside this package may need from a client, by name:
:func:`~._features.record_call`, :func:`bind_page`, :func:`unwrap` and :func:`in_mode_of`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from functools import partial
from time import monotonic
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from .._otel import malformed_event
from ._chunk_reads import ChunkDecoder
from ._response import ResponseModes
from ._steps import asent, sent
from ._stream_deadlines import afirst_event_within, first_event_within
from ._streaming import AsyncStream, Stream

if TYPE_CHECKING:
    from .._core import RequestOptions

T = TypeVar("T")

__all__ = [
    "AsyncCaller",
    "AsyncRetryingCaller",
    "Caller",
    "RetryingCaller",
    "bind_page",
    "in_mode_of",
    "unwrap",
]


class Caller(Protocol):
    """Runs a sync client's calls (see the module docstring). ``client`` is the client it serves: a copy
    of the client (``with_options``, raw responses) gets a caller of its own."""

    client: Any

    def request(self, options: RequestOptions, cast_to: type[T]) -> T: ...

    def stream(self, options: RequestOptions, cast_to: type[Any]) -> Any: ...

    def page(self, options: RequestOptions, page_cls: type[T]) -> T:
        """The first page, bound (:func:`bind_page`) to the client that fetches the next ones."""
        ...


class AsyncCaller(Protocol):
    """Async twin of :class:`Caller`."""

    client: Any

    async def request(self, options: RequestOptions, cast_to: type[T]) -> T: ...

    async def stream(self, options: RequestOptions, cast_to: type[Any]) -> Any: ...

    async def page(self, options: RequestOptions, page_cls: type[T]) -> T: ...


def unwrap(result: Any) -> Any:
    """The parsed object of a call, also when it returned a raw or streamed response wrapping it."""
    return ResponseModes._unwrap(result)


def bind_page(result: Any, client: Any, options: RequestOptions) -> Any:
    """Bind the page of ``result`` to ``client`` (which fetches the next pages with ``options``'s
    successors); returns ``result``."""
    unwrap(result)._bind(client, options)
    return result


def in_mode_of(client: Any, other: ResponseModes) -> Any:
    """``client``, or a copy of it, returning what ``other``'s calls return (parsed objects, raw or
    streamed responses): a Router's targets answer in the mode the router was asked for."""
    mode = other._response_cls
    return client if client._response_cls is mode else client._in_response_mode(mode)


class RetryingCaller:
    """A :class:`~holyclient.Client`'s own caller: each call's attempts under its retry policy."""

    __slots__ = ("client",)

    def __init__(self, client: Any) -> None:
        self.client = client

    def request(self, options: RequestOptions, cast_to: type[T]) -> T:
        client = self.client
        attempts = client._start(options)
        pipeline, sender = client._pipeline, client._sender

        def attempt() -> T:
            result: T = pipeline.finish(sender.send(attempts.next()), cast_to)
            return result

        def run() -> T:
            result: T = client._policy_for(options).run(attempt, client._retries(options), client._sleep)
            return result

        if attempts.call is not None:
            done: T = attempts.call.run(run, client._unwrap)
            return done
        try:  # the first attempt, outside the retry machinery (which runs only if it fails)
            return attempt()
        except Exception as exc:
            first = exc
        retried: T = client._policy_for(options).retry(
            first, attempt, client._retries(options), client._sleep
        )
        return retried

    def stream(self, options: RequestOptions, cast_to: type[Any]) -> Any:
        client = self.client
        attempts, hide = client._start_stream(options)

        def attempt() -> Stream[Any]:
            started = monotonic()  # a stream's first-event deadline counts from its sending
            exchange = client._sender.send(attempts.next())
            request, response = exchange.request, exchange.response
            clock = client._event_clock(options, started, request)

            def opening() -> tuple[Iterator[bytes], bytes]:
                if response.status_code >= 400:
                    raise client._status_error(response, response.read(), request)
                chunks = response.iter_bytes()
                # retried only before the first event, which must come within the clock's limit
                return chunks, first_event_within(chunks, clock, response)

            try:
                chunks, first = sent(opening, lambda: request)  # our errors only: the library's translated
            except BaseException as failure:
                response.close()
                exchange.failed(failure)
                raise
            decoder = ChunkDecoder(cast_to, response, request)
            meter = client._meter(exchange, hide, attempts.call)
            if attempts.call is not None:
                decoder.on_skip = partial(malformed_event, attempts.call)
            return Stream(decoder, response, chunks, first, meter, clock)

        def run() -> Stream[Any]:
            stream: Stream[Any] = client._policy_for(options).run(
                attempt, client._retries(options), client._sleep
            )
            return stream

        call = attempts.call
        return client._wrap_stream(run() if call is None else call.open(run))

    def page(self, options: RequestOptions, page_cls: type[T]) -> T:
        """A list response that can fetch its following pages (through this client)."""
        return bind_page(self.request(options, page_cls), self.client, options)  # type: ignore[no-any-return]


class AsyncRetryingCaller:
    """An :class:`~holyclient.AsyncClient`'s own caller: async twin of :class:`RetryingCaller`."""

    __slots__ = ("_parts", "client")

    def __init__(self, client: Any) -> None:
        self.client = client
        #: the client's pipeline and sender, looked up on the first call (one caller per client object)
        self._parts: tuple[Any, Any] | None = None

    async def request(self, options: RequestOptions, cast_to: type[T]) -> T:
        client = self.client
        attempts = client._start(options)
        parts = self._parts
        if parts is None:
            parts = self._parts = (client._pipeline, client._sender)
        pipeline, sender = parts
        if attempts.call is None:
            try:  # the first attempt, in this coroutine: the retry machinery runs only if it fails
                result: T = pipeline.finish(await sender.asend(attempts.next()), cast_to)
                return result
            except Exception as exc:
                first = exc

        async def attempt() -> T:
            result: T = pipeline.finish(await sender.asend(attempts.next()), cast_to)
            return result

        policy, retries = client._policy_for(options), client._retries(options)
        if attempts.call is None:
            retried: T = await policy.aretry(first, attempt, retries, client._sleep)
            return retried

        async def run() -> T:
            result: T = await policy.arun(attempt, retries, client._sleep)
            return result

        done: T = await attempts.call.arun(run, client._unwrap)
        return done

    async def stream(self, options: RequestOptions, cast_to: type[Any]) -> Any:
        client = self.client
        attempts, hide = client._start_stream(options)

        async def attempt() -> AsyncStream[Any]:
            started = monotonic()
            exchange = await client._sender.asend(attempts.next())
            request, response = exchange.request, exchange.response
            clock = client._event_clock(options, started, request)

            async def opening() -> tuple[AsyncIterator[bytes], bytes]:
                if response.status_code >= 400:
                    raise client._status_error(response, await response.aread(), request)
                chunks = response.aiter_bytes()
                return chunks, await afirst_event_within(chunks, clock)  # retried only before it

            try:
                chunks, first = await asent(opening, lambda: request)  # our errors only
            except BaseException as failure:
                await response.aclose()
                exchange.failed(failure)
                raise
            decoder = ChunkDecoder(cast_to, response, request)
            meter = client._meter(exchange, hide, attempts.call)
            if attempts.call is not None:
                decoder.on_skip = partial(malformed_event, attempts.call)
            return AsyncStream(decoder, response, chunks, first, meter, clock)

        async def run() -> AsyncStream[Any]:
            stream: AsyncStream[Any] = await client._policy_for(options).arun(
                attempt, client._retries(options), client._sleep
            )
            return stream

        call = attempts.call
        return client._wrap_stream(await run() if call is None else await call.aopen(run))

    async def page(self, options: RequestOptions, page_cls: type[T]) -> T:
        """The first page of a list response, bound to this client for the following ones."""
        return bind_page(await self.request(options, page_cls), self.client, options)  # type: ignore[no-any-return]
