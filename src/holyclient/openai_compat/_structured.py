"""The transport's structured-output step: a framework's JSON schema asked the way the model can answer.

LangChain's ``with_structured_output``, the Agents SDK's ``output_type``, instructor's ``JSON_SCHEMA``
mode and openai's own ``parse()`` send ``response_format`` (Responses: ``text.format``) of type
``json_schema``; a relay's Claude ignores it and DeepSeek refuses it. This step sends such a request
the way ``parse()`` would (:func:`holyclient._parsing.wire_plan`: a forced tool call, or JSON mode with the
schema in the prompt, learning from a refusal, one repair), each attempt a call of the client's own path
(counted, priced, budgeted, retried, one span each, marked ``holyclient.structured_output.method``),
and hands the framework the answer as a ``json_schema`` answer reads, with the
``x-holyclient-structured-output`` header naming the way it was asked. A model known to take a JSON schema
gets no step (:meth:`StructuredStep.of` is ``None``), as does any request without such a format.

The transport's shells call :meth:`StructuredStep.send` / :meth:`~StructuredStep.asend` with the one
function that sends a call's options, and get back what that function returns (a raw response), so the
step does not depend on how the transport sends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import nullcontext
from typing import Any

from .._core import RequestOptions
from .._exceptions import APIStatusError
from .._otel import structured_output
from .._parsing import STRUCTURED_OUTPUT_HEADER as HEADER
from .._parsing import Frame, WireChat, WireResponse, wire_plan

__all__ = ["StructuredStep"]

Send = Callable[[RequestOptions], Any]
ASend = Callable[[RequestOptions], Awaitable[Any]]


class StructuredStep:
    """The attempts of one request with a JSON schema the model may not take as asked."""

    __slots__ = ("_options", "_plan")

    def __init__(self, plan: WireChat | WireResponse, options: RequestOptions) -> None:
        self._plan = plan
        self._options = options

    @classmethod
    def of(cls, client: Any, options: RequestOptions) -> StructuredStep | None:
        """The step for ``options`` sent through ``client``, or ``None`` (nothing to adapt)."""
        body = options.body
        if body is None or options.method != "POST":
            return None
        plan = wire_plan(str(client.base_url), options.path, body)
        return None if plan is None else cls(plan, options)

    def _next(self) -> RequestOptions:
        """The next attempt: the body as the plan asks, encoded by the call (not openai's bytes)."""
        headers = self._options.extra_headers
        if headers:
            headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        return self._options.replaced(body=self._plan.body(), content=None, extra_headers=headers or None)

    def send(self, send: Send) -> Any:
        """Send the attempts through ``send`` until one answers as asked; that answer, adapted."""
        plan = self._plan
        while True:
            with structured_output(plan.method) if plan.adapted else nullcontext():
                try:
                    result = send(self._next())
                except APIStatusError as error:
                    if plan.rejected(error):
                        continue
                    raise
            answer = self._answered(result)
            if answer is not None:
                return answer

    async def asend(self, send: ASend) -> Any:
        """Async twin of :meth:`send`."""
        plan = self._plan
        while True:
            with structured_output(plan.method) if plan.adapted else nullcontext():
                try:
                    result = await send(self._next())
                except APIStatusError as error:
                    if plan.rejected(error):
                        continue
                    raise
            answer = self._answered(result)
            if answer is not None:
                return answer

    def _answered(self, result: Any) -> Any:
        """The raw response handed on for ``result``; ``None`` when the plan sends a repair next."""
        plan = self._plan
        if not plan.adapted:
            return result  # the JSON schema was taken: nothing changes
        response = result.http_response
        headers = [*response.headers.multi_items(), (HEADER, plan.method)]
        if self._options.stream:
            frames = plan.frames()
            stream = result.parse()
            return Adapted(
                response.status_code, headers, b"", stream if frames is None else Frames(stream, frames)
            )
        content = plan.answer(bytes(response.content))
        if content is None:
            return None
        return Adapted(response.status_code, headers, content, None)


class _Headers:
    """The few header reads the transport makes, over a list of pairs."""

    __slots__ = ("_items",)

    def __init__(self, items: list[tuple[str, str]]) -> None:
        self._items = items

    def multi_items(self) -> list[tuple[str, str]]:
        return list(self._items)

    def get(self, name: str, default: Any = None) -> Any:
        name = name.lower()
        return next((v for k, v in self._items if k.lower() == name), default)


class Adapted:
    """An adapted answer, read by the transport as it reads a raw response: ``http_response`` (status,
    headers, content) and, for a stream, :meth:`parse`'s events."""

    __slots__ = ("_stream", "content", "headers", "status_code")

    def __init__(self, status: int, headers: list[tuple[str, str]], content: bytes, stream: Any) -> None:
        self.status_code = status
        self.headers = _Headers(headers)
        self.content = content
        self._stream = stream

    @property
    def http_response(self) -> Adapted:
        return self

    def parse(self) -> Any:
        return self._stream


class _Event:
    """A streamed event as the transport frames it: its ``type`` (event name) and ``sse`` data."""

    __slots__ = ("sse", "type")

    def __init__(self, kind: str | None, sse: bytes) -> None:
        self.type, self.sse = kind, sse


class Frames:
    """The client's stream with each event rewritten (sync or async, as the stream is); closing it closes
    the client's stream, which settles it."""

    __slots__ = ("_frames", "_stream")

    def __init__(self, stream: Any, frames: Callable[[Frame], list[Frame]]) -> None:
        self._stream, self._frames = stream, frames

    def _rewritten(self, event: Any) -> list[_Event]:
        kind = event.type if isinstance(event.type, str) else None
        return [_Event(name, data) for name, data in self._frames((kind, bytes(event.sse)))]

    def __iter__(self) -> Iterator[_Event]:
        for event in self._stream:
            yield from self._rewritten(event)

    async def __aiter__(self) -> AsyncIterator[_Event]:
        async for event in self._stream:
            for out in self._rewritten(event):
                yield out

    def close(self) -> Any:
        return self._stream.close()
