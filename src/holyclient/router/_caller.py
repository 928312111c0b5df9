"""A router's :class:`~holyclient._send.Caller`: one whole call, walked through the failover order.

Plugged in as the routers' ``_caller_factory``: ``router.chat.completions.create(...)`` (and every other
call) reaches :meth:`RoutedCaller.request` / ``stream`` / ``page``, which pick a target (:mod:`._core`)
and hand the call to that target's own client through its public ``request(cast_to, options,
stream=...)`` -- so the target's key, base URL, retries, budget and usage apply, and a key only ever
travels to its own target's host. A stream whose opening event is an error that is safe to retry
elsewhere is closed uncharged (:meth:`~holyclient._send.Stream.refuse`) and the next target is tried;
a stream that breaks after it was handed over is taken over by :mod:`._routed_streams` (see :mod:`._recovery`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .._otel import routed
from .._send import (
    bind_page,
    in_mode_of,
    opening_error,
    reads_raw_bytes,
    record_call,
    unwrap,
    with_idempotency_key,
)
from ._mirror import side
from ._recovery import Recovery
from ._routed_streams import AsyncRoutedStream, RoutedStream
from ._select import failover_safe

if TYPE_CHECKING:
    from .._core import RequestOptions
    from ._core import Routing

T = TypeVar("T")


class _Routes:
    """What both routed callers share: the router, and its targets' clients in the router's response mode."""

    __slots__ = ("client", "clients")

    def __init__(self, router: Any) -> None:
        self.client = router
        clients: dict[str, Any] = router._clients
        # a router copied into a response mode (with_raw_response ...) asks its targets in that mode
        self.clients = {name: in_mode_of(c, router) for name, c in clients.items()}
        if all(self.clients[name] is c for name, c in clients.items()):
            self.clients = clients

    def _start(self, options: RequestOptions) -> Routing:
        record_call(self.client, options)  # the caller's request, before any model map
        # one idempotency key for the call, whichever targets' clients try it (a mirrored copy, sent from
        # the caller's options, gets its own: the shadow may be the same server)
        routing: Routing = self.client._core.start(with_idempotency_key(options))
        return routing

    def _served(self, routing: Routing, options: RequestOptions, cast_to: type[Any], result: Any) -> Any:
        """A target answered: count it, mirror it when the request is drawn for the shadow (whose answer
        is parsed as ``cast_to`` too, so that the copy is charged as the caller's call was)."""
        routing.succeeded(result)
        router = self.client
        slot = router._mirror_slot(options)
        if slot is not None:
            assert routing.target is not None
            old = side(routing.target.name, routing.latency, unwrap(result))
            router._start_mirror(slot, options, cast_to, old)
        return result

    def _bound(self, result: Any, options: RequestOptions) -> Any:
        """Next pages are fetched from the target that served the first one."""
        page = unwrap(result)
        return bind_page(result, self.clients.get(getattr(page, "_target", ""), self.client), options)

    def _recovering(self, routing: Routing, result: Any, cast_to: type[Any], stream_cls: type[Any]) -> Any:
        """The opened stream as the router's (``stream_cls``), which takes it over when it breaks; a
        stream read as raw bytes (``with_streaming_response``) is handed on as it is."""
        if reads_raw_bytes(self.client):
            return result
        routed = stream_cls(
            self, Recovery(routing, self.client._core.stream_recovery), cast_to, unwrap(result)
        )
        if result is unwrap(result):
            return routed
        wrapped = type(result)(result.http_response, routed)  # with_raw_response (as_openai())
        wrapped._target = routed._target
        return wrapped


def _refused(stream: Any) -> BaseException | None:
    """The opening error of a stream that may go to another target (nothing reached the caller yet)."""
    error = opening_error(stream)
    return error if error is not None and failover_safe(error) else None


class RoutedCaller(_Routes):
    """A :class:`~holyclient.Router`'s calls, each through its failover order (see the module docstring)."""

    __slots__ = ()

    def _route(
        self,
        routing: Routing,
        options: RequestOptions,
        cast_to: type[Any],
        send: Callable[[str, RequestOptions], T],
    ) -> T:
        """The call on each target in turn (``send(name, prepared)``) until one answers."""
        while True:
            target, prepared = routing.next()
            try:
                with routed(target.name):  # the target client's span says which target it is
                    result = send(target.name, prepared)
            except BaseException as exc:
                routing.failed(exc)
                continue
            return self._served(routing, options, cast_to, result)  # type: ignore[no-any-return]

    def request(self, options: RequestOptions, cast_to: type[T]) -> T:
        routing = self._start(options)
        result: T = self._route(
            routing, options, cast_to, lambda name, prepared: self.clients[name].request(cast_to, prepared)
        )
        return result

    def open_stream(self, name: str, prepared: RequestOptions, cast_to: type[Any]) -> Any:
        """A stream on target ``name``; one that opens with an error safe to send elsewhere is closed
        uncharged (the next target's answer is the one paid) and its error raised."""
        result = self.clients[name].request(cast_to, prepared, stream=True)
        error = _refused(unwrap(result))
        if error is not None:
            unwrap(result).refuse()
            raise error
        return result

    def stream(self, options: RequestOptions, cast_to: type[Any]) -> Any:
        routing = self._start(options)
        result = self._route(
            routing, options, cast_to, lambda name, prepared: self.open_stream(name, prepared, cast_to)
        )
        return self._recovering(routing, result, cast_to, RoutedStream)

    def page(self, options: RequestOptions, page_cls: type[T]) -> T:
        return self._bound(self.request(options, page_cls), options)  # type: ignore[no-any-return]


class AsyncRoutedCaller(_Routes):
    """An :class:`~holyclient.AsyncRouter`'s calls: async twin of :class:`RoutedCaller`."""

    __slots__ = ()

    async def _route(
        self,
        routing: Routing,
        options: RequestOptions,
        cast_to: type[Any],
        send: Callable[[str, RequestOptions], Awaitable[T]],
    ) -> T:
        while True:
            target, prepared = routing.next()
            try:
                with routed(target.name):
                    result = await send(target.name, prepared)
            except BaseException as exc:
                routing.failed(exc)
                continue
            return self._served(routing, options, cast_to, result)  # type: ignore[no-any-return]

    async def request(self, options: RequestOptions, cast_to: type[T]) -> T:
        routing = self._start(options)
        return await self._route(
            routing, options, cast_to, lambda name, prepared: self.clients[name].request(cast_to, prepared)
        )

    async def open_stream(self, name: str, prepared: RequestOptions, cast_to: type[Any]) -> Any:
        """Async twin of :meth:`RoutedCaller.open_stream`."""
        result = await self.clients[name].request(cast_to, prepared, stream=True)
        error = _refused(unwrap(result))
        if error is not None:
            await unwrap(result).refuse()
            raise error
        return result

    async def stream(self, options: RequestOptions, cast_to: type[Any]) -> Any:
        routing = self._start(options)
        result = await self._route(
            routing, options, cast_to, lambda name, prepared: self.open_stream(name, prepared, cast_to)
        )
        return self._recovering(routing, result, cast_to, AsyncRoutedStream)

    async def page(self, options: RequestOptions, page_cls: type[T]) -> T:
        return self._bound(await self.request(options, page_cls), options)  # type: ignore[no-any-return]
