"""Raw access to responses: ``client.with_raw_response`` and ``client.with_streaming_response``.

The clients run every call exactly as usual (retries, usage, budget) and, in one of these modes, wrap
the result with the HTTP exchange it came from instead of returning the parsed object:

- :class:`RawResponse` (``with_raw_response``, both clients): ``headers``, ``status_code``,
  ``http_response``, ``request_id``, and ``parse()`` for the object the call normally returns
  (a ``Stream`` for ``stream=True``), as openai's ``LegacyAPIResponse``.
- :class:`StreamedResponse` / :class:`AsyncStreamedResponse` (``with_streaming_response``): the same,
  used as a (async) context manager that closes the connection, with ``iter_bytes()`` /
  ``iter_lines()`` / ``iter_text()`` / ``read()`` / ``text()`` / ``json()``. A streamed call
  (``stream=True``) is read incrementally; other bodies have been read already (see README,
  "Switching from openai").
"""

from __future__ import annotations

import codecs
import json
from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import Any, Generic, Self, TypeVar, cast

from ._streaming import AsyncStream, Stream

R = TypeVar("R")


def _utf8_decoder() -> codecs.IncrementalDecoder:
    """A UTF-8 decoder that keeps a partial character for the next chunk and replaces invalid bytes."""
    return codecs.getincrementaldecoder("utf-8")("replace")


#: What ``str.splitlines`` breaks a line at: httpx (and so openai's ``iter_lines()``) splits on each of them.
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


class _Lines:
    """Text chunks as lines, split as ``str.splitlines`` splits the whole text (a lone carriage return
    included), whatever the chunk boundaries: a carriage return that ends a chunk waits in case a line
    feed follows. One implementation for the sync and async ``iter_lines()``, with openai's (httpx's)
    line rules."""

    __slots__ = ("_cr", "_partial")

    def __init__(self) -> None:
        self._partial = ""
        self._cr = False

    def feed(self, text: str) -> list[str]:
        if self._cr:
            text, self._cr = "\r" + text, False
        if text.endswith("\r"):
            text, self._cr = text[:-1], True
        if not text:
            return []
        lines = (self._partial + text).splitlines()
        self._partial = "" if text[-1] in _LINE_BREAKS else lines.pop()
        return lines

    def end(self) -> list[str]:
        """The last line: the text after the last break, or an empty line for a final carriage return."""
        if not self._partial and not self._cr:
            return []
        last, self._partial, self._cr = self._partial, "", False
        return [last]


class RawResponse(Generic[R]):
    """The HTTP response of a call and, through :meth:`parse`, the object the call returns."""

    def __init__(self, http_response: Any, parsed: R) -> None:
        self.http_response = http_response
        self._parsed = parsed

    @property
    def headers(self) -> Any:
        return self.http_response.headers

    @property
    def status_code(self) -> int:
        return int(self.http_response.status_code)

    @property
    def http_request(self) -> Any:
        """The request, with its ``Authorization`` header as sent (do not log it)."""
        return self.http_response.request

    @property
    def url(self) -> Any:
        return self.http_response.url

    @property
    def method(self) -> str:
        return str(self.http_request.method)

    @property
    def request_id(self) -> str | None:
        value = self.headers.get("x-request-id")
        return str(value) if value is not None else None

    @property
    def retries_taken(self) -> int:
        """How many times the call was retried before this answer (0: the first attempt answered), as in
        openai: the attempt number every attempt carries in ``x-stainless-retry-count``."""
        try:
            return int(self.http_request.headers.get("x-stainless-retry-count") or 0)
        except (TypeError, ValueError, RuntimeError):  # a response without its request, or a user's header
            return 0

    @property
    def content(self) -> bytes:
        """The body (empty for a streamed call: iterate :meth:`parse` instead)."""
        if self._is_stream:
            return b""
        return bytes(self.http_response.content)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    @property
    def _is_stream(self) -> bool:
        return isinstance(self._parsed, (Stream, AsyncStream))

    def json(self) -> Any:
        return json.loads(self.content)

    def parse(self) -> R:
        """The object the call returns without ``with_raw_response`` (already validated)."""
        return self._parsed

    def __repr__(self) -> str:
        return f"<{type(self).__name__} [{self.status_code}] type={type(self._parsed).__name__}>"


class StreamedResponse(RawResponse[R]):
    """``with_streaming_response``: a context manager that closes the connection on exit."""

    #: The caller may read the bytes as sent: a streamed call asks the server for nothing extra.
    raw_bytes = True

    def iter_bytes(self) -> Iterator[bytes]:
        stream = self._parsed
        if isinstance(stream, Stream):
            yield from stream._raw()
        else:
            yield self.content

    def iter_text(self) -> Iterator[str]:
        """The body as text, decoded incrementally: a character split between two chunks comes out whole
        (as openai's, which reads through httpx's incremental decoder)."""
        decoder = _utf8_decoder()
        for chunk in self.iter_bytes():
            if text := decoder.decode(chunk):
                yield text
        if tail := decoder.decode(b"", True):
            yield tail

    def iter_lines(self) -> Iterator[str]:
        lines = _Lines()
        for text in self.iter_text():
            yield from lines.feed(text)
        yield from lines.end()

    def read(self) -> bytes:
        return b"".join(self.iter_bytes())

    def text(self) -> str:  # type: ignore[override]
        """The whole body as text (openai's streamed response has ``text()`` as a method)."""
        return self.read().decode("utf-8", "replace")

    def close(self) -> None:
        if isinstance(self._parsed, Stream):
            self._parsed.close()
        else:
            self.http_response.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncStreamedResponse(RawResponse[R]):
    """The async ``with_streaming_response``: ``async with``, ``await parse()``, ``async for`` lines."""

    raw_bytes = True  # as StreamedResponse

    async def parse(self) -> R:  # type: ignore[override]
        return self._parsed

    async def iter_bytes(self) -> AsyncIterator[bytes]:
        stream = self._parsed
        if isinstance(stream, AsyncStream):
            async for chunk in stream._raw():
                yield chunk
        else:
            yield self.content

    async def iter_text(self) -> AsyncIterator[str]:
        decoder = _utf8_decoder()  # as StreamedResponse.iter_text
        async for chunk in self.iter_bytes():
            if text := decoder.decode(chunk):
                yield text
        if tail := decoder.decode(b"", True):
            yield tail

    async def iter_lines(self) -> AsyncIterator[str]:
        lines = _Lines()
        async for text in self.iter_text():
            for line in lines.feed(text):
                yield line
        for line in lines.end():
            yield line

    async def read(self) -> bytes:
        return b"".join([chunk async for chunk in self.iter_bytes()])

    async def text(self) -> str:  # type: ignore[override]
        return (await self.read()).decode("utf-8", "replace")

    async def json(self) -> Any:
        return json.loads(await self.read())

    async def close(self) -> None:
        if isinstance(self._parsed, AsyncStream):
            await self._parsed.close()
        else:
            await self.http_response.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


StreamT = TypeVar("StreamT", bound="Stream[Any] | AsyncStream[Any]")


class ResponseModes:
    """The client side of raw access: a copy of the client whose calls return wrapped responses.

    The clients build every call as usual; ``_response_cls`` (``None`` normally) decides whether the
    parsed object comes back as it is or inside a :class:`RawResponse` / streamed response.
    """

    _response_cls: Any = None
    _is_async = False

    def with_options(self) -> Self:  # the client's copy with shared pool and usage
        raise NotImplementedError

    @staticmethod
    def _unwrap(result: Any) -> Any:
        """The parsed object, also when the call returned a raw response wrapping it."""
        return result._parsed if isinstance(result, RawResponse) else result

    @property
    def _reads_raw_bytes(self) -> bool:
        """Whether a stream's bytes reach the caller as sent (so nothing may be added to them)."""
        return bool(getattr(self._response_cls, "raw_bytes", False))

    def _wrap_stream(self, stream: StreamT) -> StreamT:
        if self._response_cls is None:
            return stream
        return cast("StreamT", self._response_cls(stream.response, stream))

    @property
    def with_raw_response(self) -> Any:
        """This client, returning :class:`~holyclient._send._response.RawResponse` objects from every call.

        ``client.with_raw_response.chat.completions.create(...)`` gives ``headers``, ``status_code``,
        ``http_response`` and ``.parse()`` for the usual object.
        """
        return self._in_response_mode(RawResponse)

    @property
    def with_streaming_response(self) -> Any:
        """This client, returning context managers over the HTTP response (``iter_lines()``, ``parse()``)."""
        return self._streaming_view(self._streaming_client())

    def _streaming_client(self) -> Self:
        return self._in_response_mode(AsyncStreamedResponse if self._is_async else StreamedResponse)

    def _streaming_view(self, target: Any) -> Any:
        """``target`` (a client or resource in streaming mode) as callers use it: async calls are wrapped
        so that ``async with`` works on them."""
        return _ContextView(target) if self._is_async else target

    def _in_response_mode(self, response_cls: Any) -> Self:
        new = self.with_options()
        new._response_cls = response_cls
        return new


class _ContextView:
    """Async ``with_streaming_response``: ``async with client....create(...)`` needs a context manager
    where the async resource methods return a coroutine, so calls are wrapped on the way out."""

    def __init__(self, target: Any) -> None:
        self._wrapped = target

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._wrapped, name)
        if name.startswith("_") or isinstance(value, (str, int, float, dict)) or value is None:
            return value
        if callable(value):
            return lambda *args, **kwargs: _AsyncResponseContext(value(*args, **kwargs))
        return _ContextView(value)


class _AsyncResponseContext:
    """``async with`` over an awaitable that gives an :class:`AsyncStreamedResponse`."""

    def __init__(self, awaitable: Any) -> None:
        self._awaitable = awaitable
        self._response: Any = None

    async def __aenter__(self) -> Any:
        self._response = await self._awaitable
        return self._response

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._response is not None:
            await self._response.close()
