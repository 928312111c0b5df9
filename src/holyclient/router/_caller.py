"""A router's :class:`~holyclient._send.Caller`: one whole call, walked through the failover order.

Plugged in as the routers' ``_caller_factory``: ``router.chat.completions.create(...)`` (and every other
call) reaches :meth:`RoutedCaller.request` / ``stream`` / ``page``, which pick a target (:mod:`._core`)
and hand the call to that target's own client through its public ``request(cast_to, options,
stream=...)`` -- so the target's key, base URL, retries, budget and usage apply, and a key only ever
travels to its own target's host. A stream whose opening event is an error that is safe to retry
elsewhere is closed uncharged (:meth:`~holyclient._send.Stream.refuse`) and the next target is tried.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .._otel import routed
from .._send import bind_page, in_mode_of, opening_error, record_call, unwrap, with_idempotency_key
from ._mirror import side
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


def _refused(stream: Any) -> BaseException | None:
    """The opening error of a stream that may go to another target (nothing reached the caller yet)."""
    error = opening_error(stream)
    return error if error is not None and failover_safe(error) else None


class RoutedCaller(_Routes):
    """A :class:`~holyclient.Router`'s calls, each through its failover order (see the module docstring)."""

    __slots__ = ()

    def _route(
        self, options: RequestOptions, cast_to: type[Any], send: Callable[[Any, RequestOptions], T]
    ) -> T:
        routing = self._start(options)
        while True:
            target, prepared = routing.next()
            try:
                with routed(target.name):  # the target client's span says which target it is
                    result = send(self.clients[target.name], prepared)
            except BaseException as exc:
                routing.failed(exc)
                continue
            return self._served(routing, options, cast_to, result)  # type: ignore[no-any-return]

    def request(self, options: RequestOptions, cast_to: type[T]) -> T:
        result: T = self._route(options, cast_to, lambda client, prepared: client.request(cast_to, prepared))
        return result

    def stream(self, options: RequestOptions, cast_to: type[Any]) -> Any:
        def send(client: Any, prepared: RequestOptions) -> Any:
            result = client.request(cast_to, prepared, stream=True)
            error = _refused(unwrap(result))
            if error is not None:
                unwrap(result).refuse()  # closed uncharged: the next target's answer is the one paid
                raise error
            return result

        return self._route(options, cast_to, send)

    def page(self, options: RequestOptions, page_cls: type[T]) -> T:
        return self._bound(self.request(options, page_cls), options)  # type: ignore[no-any-return]


class AsyncRoutedCaller(_Routes):
    """An :class:`~holyclient.AsyncRouter`'s calls: async twin of :class:`RoutedCaller`."""

    __slots__ = ()

    async def _route(
        self, options: RequestOptions, cast_to: type[Any], send: Callable[[Any, RequestOptions], Awaitable[T]]
    ) -> T:
        routing = self._start(options)
        while True:
            target, prepared = routing.next()
            try:
                with routed(target.name):
                    result = await send(self.clients[target.name], prepared)
            except BaseException as exc:
                routing.failed(exc)
                continue
            return self._served(routing, options, cast_to, result)  # type: ignore[no-any-return]

    async def request(self, options: RequestOptions, cast_to: type[T]) -> T:
        return await self._route(options, cast_to, lambda client, prepared: client.request(cast_to, prepared))

    async def stream(self, options: RequestOptions, cast_to: type[Any]) -> Any:
        async def send(client: Any, prepared: RequestOptions) -> Any:
            result = await client.request(cast_to, prepared, stream=True)
            error = _refused(unwrap(result))
            if error is not None:
                await unwrap(result).refuse()  # closed uncharged: the next target's answer is paid
                raise error
            return result

        return await self._route(options, cast_to, send)

    async def page(self, options: RequestOptions, page_cls: type[T]) -> T:
        return self._bound(await self.request(options, page_cls), options)  # type: ignore[no-any-return]
