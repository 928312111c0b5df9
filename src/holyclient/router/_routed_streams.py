"""A router's streams: the target's stream, taken over by another target when it breaks part-way.

:class:`RoutedStream` (sync) and :class:`AsyncRoutedStream` only read, open and await: what to do when a
stream breaks -- continue it, restart the answer, hold it, give up -- is :class:`~._recovery.Recovery`'s.
They are :class:`~holyclient.Stream` / :class:`~holyclient.AsyncStream` to their callers (the stream
helpers, ``with_raw_response``, ``as_openai()``): chunks, ``close()``, ``with``, ``response`` and the
meter are those of the target's stream being read.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Generator, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from .._otel import routed
from .._send import AsyncStream, Stream, unwrap
from ._recovery import Recovery, role_only

if TYPE_CHECKING:
    from .._core import RequestOptions


class Opener(Protocol):
    """What opens a stream on a target (the router's caller: ``RoutedCaller.open_stream``)."""

    def open_stream(self, name: str, prepared: RequestOptions, cast_to: type[Any]) -> Any: ...


class AsyncOpener(Protocol):
    """Async twin of :class:`Opener`."""

    def open_stream(self, name: str, prepared: RequestOptions, cast_to: type[Any]) -> Awaitable[Any]: ...


class _Routed:
    """What both routed streams show of the target's stream they read (see the module docstring)."""

    _current: Any
    _recovery: Recovery

    @property
    def response(self) -> Any:
        return self._current.response

    # The attributes of a stream, read (and, for the stream classes' own code, written) on the target's.

    @property
    def _meter(self) -> Any:  # ``reported_usage()``: what the stream being read reported
        return self._current._meter

    @_meter.setter
    def _meter(self, meter: Any) -> None:
        self._current._meter = meter

    @property
    def _first(self) -> bytes:  # ``opening_error()``: the stream being read opened with it
        first: bytes = self._current._first
        return first

    @_first.setter
    def _first(self, first: bytes) -> None:
        self._current._first = first

    @property
    def truncated(self) -> bool:
        return bool(self._current.truncated)

    @truncated.setter
    def truncated(self, truncated: bool) -> None:
        self._current.truncated = truncated

    @property
    def malformed_events(self) -> int:
        """Events skipped (not valid JSON) by every target's stream this stream read."""
        recovery, current = self._recovery, self._current
        return recovery.malformed + (0 if recovery.last_read is current else current.malformed_events)

    @property
    def recovered(self) -> list[BaseException]:
        """The errors this stream broke with and was taken over from, oldest first."""
        return list(self._recovery.recovered)


class RoutedStream(_Routed, Stream[Any]):
    """A :class:`~holyclient.Router`'s stream (see the module docstring)."""

    def __init__(self, caller: Opener, recovery: Recovery, cast_to: type[Any], stream: Any) -> None:
        # not Stream.__init__: the target's stream holds the response, the decoder and the meter
        self._caller = caller
        self._recovery = recovery
        self._cast_to = cast_to
        self._current = stream
        assert recovery.routing.target is not None
        self._target = recovery.routing.target.name
        self._iterator = self._iterate()

    def _iterate(self) -> Generator[Any, None, None]:
        recovery = self._recovery
        held: list[Any] | None = [] if recovery.holds else None
        while True:
            stream = self._current
            try:
                for item in stream:
                    if recovery.skip_role:
                        if role_only(item):
                            continue
                        recovery.skip_role = False
                    if held is not None:
                        held.append(item)
                        continue
                    recovery.delivered.see(item)
                    yield item
                if not stream.truncated:
                    break
                failure: BaseException = recovery.ended_early(stream)
            except Exception as exc:  # the target's own errors, already redacted
                failure = exc
            finally:
                recovery.read(stream)
            if held is not None:
                held.clear()
            self._take_over(failure)
        if held:
            yield from held

    def _take_over(self, failure: BaseException) -> None:
        """Go on after ``failure`` on another target, or raise (see :class:`~._recovery.Recovery`)."""
        recovery = self._recovery
        recovery.broke(failure)
        while True:
            target, prepared = recovery.next()
            try:
                with routed(target.name):
                    result = self._caller.open_stream(target.name, prepared, self._cast_to)
            except Exception as exc:
                recovery.opening_failed(exc)
                continue
            break
        kind = recovery.opened(result)
        self._current = unwrap(result)
        self._target = target.name
        if kind == "restart":
            restarted = RoutedStream(
                self._caller, Recovery(recovery.routing, recovery.mode), self._cast_to, self._current
            )
            raise recovery.restart(restarted)

    def _raw(self) -> Any:
        """The bytes of the target's stream as sent (``with_streaming_response``): not recovered."""
        return self._current._raw()

    def __iter__(self) -> Iterator[Any]:
        return self._iterator

    def __next__(self) -> Any:
        return next(self._iterator)

    def close(self) -> None:
        self._iterator.close()
        self._current.close()

    def refuse(self) -> None:
        self._current.refuse()
        self._iterator.close()


class AsyncRoutedStream(_Routed, AsyncStream[Any]):
    """An :class:`~holyclient.AsyncRouter`'s stream: async twin of :class:`RoutedStream`."""

    def __init__(self, caller: AsyncOpener, recovery: Recovery, cast_to: type[Any], stream: Any) -> None:
        self._caller = caller
        self._recovery = recovery
        self._cast_to = cast_to
        self._current = stream
        assert recovery.routing.target is not None
        self._target = recovery.routing.target.name
        self._iterator = self._iterate()

    async def _iterate(self) -> AsyncGenerator[Any, None]:
        recovery = self._recovery
        held: list[Any] | None = [] if recovery.holds else None
        while True:
            stream = self._current
            try:
                async for item in stream:
                    if recovery.skip_role:
                        if role_only(item):
                            continue
                        recovery.skip_role = False
                    if held is not None:
                        held.append(item)
                        continue
                    recovery.delivered.see(item)
                    yield item
                if not stream.truncated:
                    break
                failure: BaseException = recovery.ended_early(stream)
            except Exception as exc:
                failure = exc
            finally:
                recovery.read(stream)
            if held is not None:
                held.clear()
            await self._take_over(failure)
        for item in held or ():
            yield item

    async def _take_over(self, failure: BaseException) -> None:
        """Async twin of :meth:`RoutedStream._take_over`."""
        recovery = self._recovery
        recovery.broke(failure)
        while True:
            target, prepared = recovery.next()
            try:
                with routed(target.name):
                    result = await self._caller.open_stream(target.name, prepared, self._cast_to)
            except Exception as exc:
                recovery.opening_failed(exc)
                continue
            break
        kind = recovery.opened(result)
        self._current = unwrap(result)
        self._target = target.name
        if kind == "restart":
            restarted = AsyncRoutedStream(
                self._caller, Recovery(recovery.routing, recovery.mode), self._cast_to, self._current
            )
            raise recovery.restart(restarted)

    def _raw(self) -> Any:
        return self._current._raw()

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._iterator

    async def __anext__(self) -> Any:
        return await self._iterator.__anext__()

    async def close(self) -> None:
        await self._iterator.aclose()
        await self._current.close()

    async def refuse(self) -> None:
        await self._current.refuse()
        await self._iterator.aclose()
