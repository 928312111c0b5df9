"""The transports' shells, written once for both HTTP libraries: read the request, hand it to the client's
call (through the transport's call steps, :mod:`._call_steps`), hand the answer back (see
:mod:`._adapter` for every decision). :mod:`._transports` (httpx2) and
:mod:`._legacy` (httpx) bind them to each library's base classes."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar

from .._exceptions import APIConnectionError, APIStatusError, HolyClientError
from ._adapter import DONE_FRAME, Adapter, Call, Retries
from ._call_steps import CallStep, arun_steps, default_steps, run_steps

__all__ = ["AsyncEvents", "AsyncShell", "SyncEvents", "SyncShell"]


def _check_kind(client: Any, *, is_async: bool) -> None:
    if inspect.iscoroutinefunction(client.request) != is_async:
        wanted, other = ("an AsyncClient", "a Client") if is_async else ("a Client", "an AsyncClient")
        raise TypeError(f"this transport sends through {wanted}; {type(client).__name__} is {other}")


class SyncEvents:
    """A stream's events as bytes for the HTTP library's response; closing it closes (and settles) the
    client's stream, read to the end or not."""

    _flavor: ClassVar[Any]

    def __init__(self, adapter: Adapter, stream: Any, call: Call, request: Any) -> None:
        self._adapter, self._stream, self._call, self._request = adapter, stream, call, request

    def __iter__(self) -> Iterator[bytes]:
        adapter, call = self._adapter, self._call
        try:
            for event in self._stream:
                yield adapter.frame(event, call)
        except APIStatusError as error:  # an error event part-way: openai raises it from the event
            yield adapter.error_frame(error)
            return
        except HolyClientError as error:
            failure = _midway(self, error)
        else:
            if call.ends_with_done:
                yield DONE_FRAME
            return
        raise failure

    def close(self) -> None:
        self._stream.close()


class AsyncEvents:
    """Async twin of :class:`SyncEvents`."""

    _flavor: ClassVar[Any]

    def __init__(self, adapter: Adapter, stream: Any, call: Call, request: Any) -> None:
        self._adapter, self._stream, self._call, self._request = adapter, stream, call, request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        adapter, call = self._adapter, self._call
        try:
            async for event in self._stream:
                yield adapter.frame(event, call)
        except APIStatusError as error:
            yield adapter.error_frame(error)
            return
        except HolyClientError as error:
            failure = _midway(self, error)
        else:
            if call.ends_with_done:
                yield DONE_FRAME
            return
        raise failure

    async def aclose(self) -> None:
        await self._stream.close()


def _midway(events: SyncEvents | AsyncEvents, error: HolyClientError) -> BaseException:
    """What an error part-way through a stream is raised as: a failed wire as the HTTP library says it
    (openai's own stream raises it so), anything else as :meth:`~._adapter.Adapter.raised` says."""
    if isinstance(error, APIConnectionError):
        return events._flavor.RemoteProtocolError(str(error))  # type: ignore[no-any-return]
    return events._adapter.raised(error, events._flavor, events._request) or error


class SyncShell:
    """``handle_request`` of a sync transport over a :class:`~holyclient.Client` (or ``Router``)."""

    _flavor: ClassVar[Any]
    _events: ClassVar[type[SyncEvents]]

    def __init__(
        self, client: Any, *, retries: Retries = "auto", steps: tuple[CallStep, ...] | None = None
    ) -> None:
        _check_kind(client, is_async=False)
        self._adapter = Adapter(client, retries)
        self._steps = default_steps(client) if steps is None else tuple(steps)

    def _send(self, call: Call) -> Any:
        return self._adapter.raw.request(call.cast_to, call.options, stream=call.options.stream)

    def handle_request(self, request: Any) -> Any:
        adapter = self._adapter
        path = adapter.own_path(request.url)
        if path is None:
            raise adapter.refused(self._flavor, request)
        call = adapter.call(request, path, request.read())
        steps = self._steps
        try:
            if steps:
                result = run_steps(steps, call, self._send)
            else:
                result = adapter.raw.request(call.cast_to, call.options, stream=call.options.stream)
        except Exception as exc:  # the client's errors, redacted: handed on as openai expects them
            error: Exception = exc
        else:
            return _respond(self, result, call, request)
        return _failed(self, error, request)


class AsyncShell:
    """``handle_async_request`` of an async transport over an :class:`~holyclient.AsyncClient` (or
    ``AsyncRouter``): the async twin of :class:`SyncShell`."""

    _flavor: ClassVar[Any]
    _events: ClassVar[type[AsyncEvents]]

    def __init__(
        self, client: Any, *, retries: Retries = "auto", steps: tuple[CallStep, ...] | None = None
    ) -> None:
        _check_kind(client, is_async=True)
        self._adapter = Adapter(client, retries)
        self._steps = default_steps(client) if steps is None else tuple(steps)

    async def _send(self, call: Call) -> Any:
        return await self._adapter.raw.request(call.cast_to, call.options, stream=call.options.stream)

    async def handle_async_request(self, request: Any) -> Any:
        adapter = self._adapter
        path = adapter.own_path(request.url)
        if path is None:
            raise adapter.refused(self._flavor, request)
        call = adapter.call(request, path, await request.aread())
        steps = self._steps
        try:
            if steps:
                result = await arun_steps(steps, call, self._send)
            else:
                result = await adapter.raw.request(call.cast_to, call.options, stream=call.options.stream)
        except Exception as exc:
            error: Exception = exc
        else:
            return _respond(self, result, call, request)
        return _failed(self, error, request)


def _respond(shell: SyncShell | AsyncShell, result: Any, call: Call, request: Any) -> Any:
    """The HTTP library's response for a call's raw result: the answer itself as read when it is one of
    the library's responses (the HTTP client that called the transport takes it over, as it would its
    own transport's), else its status, headers and body as read; for a stream, its events as they come."""
    adapter, flavor = shell._adapter, shell._flavor
    response = result.http_response
    if call.options.stream:
        headers = adapter.headers(response.headers)
        events = shell._events(adapter, result.parse(), call, request)
        return flavor.Response(response.status_code, headers=headers, stream=events, request=request)
    if type(response) is flavor.Response:
        return response
    headers = adapter.headers(response.headers)
    return flavor.Response(response.status_code, headers=headers, content=response.content, request=request)


def _failed(shell: SyncShell | AsyncShell, error: Exception, request: Any) -> Any:
    """A call's error as openai expects it: an answer it reads as its own status error, or the error it
    hands on (see :meth:`~._adapter.Adapter.raised`)."""
    adapter, flavor = shell._adapter, shell._flavor
    answer = adapter.failure(error)
    if answer is None:
        raise adapter.raised(error, flavor, request) or error
    status, headers, content = answer
    return flavor.Response(status, headers=headers, content=content, request=request)
