"""The async transport off asyncio (aiohttp's is the default): connections spread over small httpx2 pools.

httpx2 2.16's pool (like httpx 0.28's, encode/httpx#3215) checks every idle connection on each request,
twice, and each check probes the socket (``has_expired`` -> ``is_readable``), so the CPU cost of a
request grows with the number of pooled connections: at concurrency 256 about 70% of the client's CPU
goes into those probes (see ``benchmarks/bench_client.py``). Splitting the connections over pools of at
most ``SHARD_SIZE`` keeps each pass short, whatever the concurrency.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2

#: Connections per pool: small enough that a probe pass is cheap, large enough that few pools exist.
SHARD_SIZE = 32


class _ReleasingStream(httpx2.AsyncByteStream):
    """The response body, calling ``release`` once when it is closed (the connection is free again)."""

    def __init__(self, stream: Any, release: Callable[[], None]) -> None:
        self._stream = stream
        self._release: Callable[[], None] | None = release

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for part in self._stream:
            yield part

    async def aclose(self) -> None:
        try:
            await self._stream.aclose()
        finally:
            release, self._release = self._release, None
            if release is not None:
                release()


class ShardedAsyncTransport(httpx2.AsyncBaseTransport):
    """An ``AsyncHTTPTransport`` look-alike whose connections live in pools of at most ``shard_size``.

    A request goes to the pool with the fewest requests in flight; a new pool opens only when every
    pool is full and ``max_connections`` allows it.
    """

    def __init__(
        self, *, max_connections: int, max_keepalive_connections: int, shard_size: int | None = None
    ):
        self._shard_size = shard_size = shard_size or SHARD_SIZE
        self._max_pools = max(1, -(-max_connections // shard_size))
        # every connection of a busy pool may stay alive: closing them would only reopen them
        self._keepalive = max(1, min(shard_size, max_keepalive_connections))
        self._pools: list[httpx2.AsyncHTTPTransport] = []
        self._in_flight: list[int] = []

    def _pick(self) -> int:
        index = min(range(len(self._pools)), key=self._in_flight.__getitem__, default=-1)
        if index < 0 or (self._in_flight[index] >= self._shard_size and len(self._pools) < self._max_pools):
            limits = httpx2.Limits(
                max_connections=self._shard_size, max_keepalive_connections=self._keepalive
            )
            self._pools.append(httpx2.AsyncHTTPTransport(limits=limits))
            self._in_flight.append(0)
            index = len(self._pools) - 1
        return index

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        index = self._pick()
        self._in_flight[index] += 1

        def release() -> None:
            self._in_flight[index] -= 1

        try:
            response = await self._pools[index].handle_async_request(request)
        except BaseException:
            release()
            raise
        response.stream = _ReleasingStream(response.stream, release)
        return response

    async def aclose(self) -> None:
        for pool in self._pools:
            await pool.aclose()
