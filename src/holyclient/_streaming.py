"""Streamed chat completions: ``Stream`` and ``AsyncStream`` over one shared decoder.

Both are iterators and context managers; leaving the ``with`` block (or calling ``close()``)
closes the HTTP response, so an early ``break`` does not leak a connection.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from types import TracebackType
from typing import Any, Generic, TypeVar

from ._base import DONE, SSEDecoder, parse_model, stream_error
from ._transport import translate_error

T = TypeVar("T")


class ChunkDecoder(Generic[T]):
    """Sans-IO: bytes in, parsed chunks out; raises the server's error event as a status error."""

    def __init__(
        self,
        cast_to: type[T],
        response: Any,
        request: Any,
        on_chunk: Callable[[Any], None] | None = None,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self._sse = SSEDecoder()
        self._on_close = on_close
        self._cast_to = cast_to
        self._response = response
        self._request = request
        self._on_chunk = on_chunk
        self._pending: Exception | None = None
        self.done = False

    def feed(self, chunk: bytes) -> list[T]:
        self._raise_pending()
        return self._decode(self._sse.feed(chunk))

    def flush(self) -> list[T]:
        """The events left when the body ends, including a last one with no trailing newline."""
        self._raise_pending()
        return self._decode(self._sse.flush())

    def _raise_pending(self) -> None:
        error, self._pending = self._pending, None
        if error is not None:
            raise error

    def close(self) -> None:
        """Run the close hook once (it releases a budget reservation a usage chunk did not settle)."""
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()

    def _decode(self, events: list[bytes]) -> list[T]:
        items: list[T] = []
        for data in events:
            if self.done:
                break
            if data == DONE:
                self.done = True
                break
            error = stream_error(data, self._response, request=self._request)
            if error is not None:
                if not items:
                    raise error
                # chunks that arrived in the same read come first; the error on the next feed or flush
                self._pending = error
                break
            item = parse_model(self._cast_to, data, self._response, request=self._request)  # type: ignore[type-var]
            if self._on_chunk is not None:
                self._on_chunk(item)
            items.append(item)
        return items


class Stream(Generic[T]):
    """An iterator of parsed chunks from a server-sent-events response."""

    def __init__(
        self, decoder: ChunkDecoder[T], response: Any, chunks: Iterator[bytes], first: bytes
    ) -> None:
        self.response = response
        self._decoder = decoder
        self._chunks = chunks
        self._first = first
        self._iterator = self._iterate()

    def _iterate(self) -> Generator[T, None, None]:
        decoder = self._decoder
        failure: BaseException | None = None
        try:
            yield from decoder.feed(self._first)
            for chunk in self._chunks:
                if decoder.done:
                    break
                yield from decoder.feed(chunk)
            yield from decoder.flush()
        except Exception as exc:  # anything from the wire becomes ours, redacted (see translate_error)
            failure = translate_error(exc, self.response.request)
            if failure is exc:
                raise
        finally:
            self.response.close()
            decoder.close()
        if failure is not None:  # raised outside ``except``: the library error (and its key) is not chained
            raise failure

    def __iter__(self) -> Iterator[T]:
        return self._iterator

    def __next__(self) -> T:
        return next(self._iterator)

    def close(self) -> None:
        """Close the connection; safe to call more than once."""
        self._iterator.close()
        self.response.close()
        self._decoder.close()

    def __enter__(self) -> Stream[T]:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncStream(Generic[T]):
    """The async twin of :class:`Stream`."""

    def __init__(
        self, decoder: ChunkDecoder[T], response: Any, chunks: AsyncIterator[bytes], first: bytes
    ) -> None:
        self.response = response
        self._decoder = decoder
        self._chunks = chunks
        self._first = first
        self._iterator = self._iterate()

    async def _iterate(self) -> AsyncGenerator[T, None]:
        decoder = self._decoder
        failure: BaseException | None = None
        try:
            for item in decoder.feed(self._first):
                yield item
            async for chunk in self._chunks:
                if decoder.done:
                    break
                for item in decoder.feed(chunk):
                    yield item
            for item in decoder.flush():
                yield item
        except Exception as exc:  # anything from the wire becomes ours, redacted (see translate_error)
            failure = translate_error(exc, self.response.request)
            if failure is exc:
                raise
        finally:
            await self.response.aclose()
            decoder.close()
        if failure is not None:
            raise failure

    def __aiter__(self) -> AsyncIterator[T]:
        return self._iterator

    async def __anext__(self) -> T:
        return await self._iterator.__anext__()

    async def close(self) -> None:
        """Close the connection; safe to call more than once."""
        await self._iterator.aclose()
        await self.response.aclose()
        self._decoder.close()

    async def __aenter__(self) -> AsyncStream[T]:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
