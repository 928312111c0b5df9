"""Responses that are not a JSON object: audio bytes, file contents, plain text, raw JSON.

``HttpxBinaryResponseContent`` has openai's name and methods (``content``, ``write_to_file``,
``iter_bytes`` ...), so code that saves ``client.audio.speech.create(...)`` to a file runs unchanged.
:func:`parse_response` is the one place that turns a 2xx HTTP response into what a method's
``cast_to`` asks for; both clients call it.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Iterator
from typing import Any

from ._parse import parse_model

_CHUNK = 64 * 1024


class HttpxBinaryResponseContent:
    """The body of a binary response (audio, file content), already received."""

    def __init__(self, response: Any) -> None:
        self.response = response

    @property
    def content(self) -> bytes:
        content: bytes = self.response.content
        return content

    @property
    def text(self) -> str:
        text: str = self.response.text
        return text

    @property
    def encoding(self) -> str | None:
        encoding: str | None = self.response.encoding
        return encoding

    def json(self, **kwargs: Any) -> Any:
        return self.response.json(**kwargs)

    def read(self) -> bytes:
        data: bytes = self.response.read()
        return data

    def iter_bytes(self, chunk_size: int | None = None) -> Iterator[bytes]:
        iterator: Iterator[bytes] = self.response.iter_bytes(chunk_size)
        return iterator

    def write_to_file(self, file: str | os.PathLike[str]) -> None:
        """Write the whole body to ``file`` (a path), replacing it."""
        with open(file, "wb") as out:
            for data in self.response.iter_bytes(_CHUNK):
                out.write(data)

    def stream_to_file(self, file: str | os.PathLike[str], *, chunk_size: int | None = None) -> None:
        """Write the body to ``file`` chunk by chunk (openai's deprecated name for :meth:`write_to_file`)."""
        with open(file, "wb") as out:
            for data in self.response.iter_bytes(chunk_size or _CHUNK):
                out.write(data)

    def close(self) -> None:
        self.response.close()

    async def aread(self) -> bytes:
        data: bytes = await self.response.aread()
        return data

    async def aiter_bytes(self, chunk_size: int | None = None) -> AsyncIterator[bytes]:
        async for data in self.response.aiter_bytes(chunk_size):
            yield data

    async def astream_to_file(self, file: str | os.PathLike[str], *, chunk_size: int | None = None) -> None:
        """Async twin of :meth:`stream_to_file` (the file write itself is a local, blocking write)."""
        with open(file, "wb") as out:
            async for data in self.response.aiter_bytes(chunk_size or _CHUNK):
                out.write(data)

    async def aclose(self) -> None:
        await self.response.aclose()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {len(self.response.content)} bytes>"


def parse_response(cast_to: Any, response: Any, *, request: Any = None) -> Any:
    """A 2xx response as ``cast_to``: a model, ``str`` (text), ``bytes``, a binary wrapper, or raw JSON.

    ``object``/``dict``/``list`` give the decoded JSON, as ``cast_to=object`` does in openai's
    ``client.get/post``; an HTTP response class gives the response itself.
    """
    if cast_to is None or cast_to is type(None):  # ``responses.delete``: nothing to return
        return None
    if isinstance(cast_to, type):
        if cast_to is str:
            return response.text
        if cast_to is bytes:
            return response.content
        if issubclass(cast_to, HttpxBinaryResponseContent):
            return cast_to(response)
        if cast_to in (object, dict, list):
            return response.json() if response.content else None
        if cast_to is type(response):
            return response
    return parse_model(cast_to, response.content, response, request=request)


def billed_usage(result: Any) -> tuple[str | None, Any]:
    """The model and token usage a response bills, for ``client.usage``.

    ``(None, None)`` for objects without a usage model (a translation's extra ``usage`` dict, text, bytes),
    and for objects that report usage billed by other requests: a ``Batch`` carries the
    tokens of the whole batch every time it is retrieved, which must not be charged again.
    """
    if not getattr(type(result), "usage_is_billed", True):
        return None, None
    usage = getattr(result, "usage", None)
    if not hasattr(usage, "model_dump"):  # absent, or an undeclared field kept as a plain dict
        return None, None
    return getattr(result, "model", None), usage


class StreamedBinaryResponse:
    """A binary body still on the wire (``speech.with_streaming_response.create(...)``): read it in chunks.

    A context manager: leaving the ``with`` block closes the connection, read or not.
    """

    def __init__(self, response: Any) -> None:
        self.http_response = response

    @property
    def headers(self) -> Any:
        return self.http_response.headers

    @property
    def status_code(self) -> int:
        status: int = self.http_response.status_code
        return status

    def iter_bytes(self, chunk_size: int | None = None) -> Iterator[bytes]:
        iterator: Iterator[bytes] = self.http_response.iter_bytes(chunk_size)
        return iterator

    def stream_to_file(self, file: str | os.PathLike[str], *, chunk_size: int | None = None) -> None:
        """Write the body to ``file`` as it arrives, never holding all of it in memory."""
        with open(file, "wb") as out:
            for data in self.http_response.iter_bytes(chunk_size or _CHUNK):
                out.write(data)

    def read(self) -> bytes:
        data: bytes = self.http_response.read()
        return data

    def parse(self) -> HttpxBinaryResponseContent:
        """The whole body, read, as ``create()`` would have returned it."""
        self.read()
        return HttpxBinaryResponseContent(self.http_response)

    def close(self) -> None:
        self.http_response.close()

    def __enter__(self) -> StreamedBinaryResponse:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class AsyncStreamedBinaryResponse:
    """Async twin of :class:`StreamedBinaryResponse` (``async with``, ``await response.stream_to_file(...)``)."""

    def __init__(self, response: Any) -> None:
        self.http_response = response

    @property
    def headers(self) -> Any:
        return self.http_response.headers

    @property
    def status_code(self) -> int:
        status: int = self.http_response.status_code
        return status

    async def iter_bytes(self, chunk_size: int | None = None) -> AsyncIterator[bytes]:
        async for data in self.http_response.aiter_bytes(chunk_size):
            yield data

    async def stream_to_file(self, file: str | os.PathLike[str], *, chunk_size: int | None = None) -> None:
        """Async twin of :meth:`StreamedBinaryResponse.stream_to_file` (the file writes are local, blocking)."""
        with open(file, "wb") as out:
            async for data in self.http_response.aiter_bytes(chunk_size or _CHUNK):
                out.write(data)

    async def read(self) -> bytes:
        data: bytes = await self.http_response.aread()
        return data

    async def parse(self) -> HttpxBinaryResponseContent:
        await self.read()
        return HttpxBinaryResponseContent(self.http_response)

    async def close(self) -> None:
        await self.http_response.aclose()


class AsyncStreamedBinaryContext:
    """What an async ``with_streaming_response`` method returns: ``async with`` it for the response."""

    def __init__(self, opening: Awaitable[AsyncStreamedBinaryResponse]) -> None:
        self._opening = opening
        self._response: AsyncStreamedBinaryResponse | None = None

    async def __aenter__(self) -> AsyncStreamedBinaryResponse:
        self._response = await self._opening
        return self._response

    async def __aexit__(self, *exc_info: object) -> None:
        if self._response is not None:
            await self._response.close()
