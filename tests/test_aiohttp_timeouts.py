"""The async transport's timeouts mean what httpx's mean: write, connect including DNS, and pool."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import httpx2
import pytest

from holyclient import APITimeoutError, AsyncClient
from holyclient._exceptions import error_text
from holyclient._http._aiohttp import AiohttpTransport
from holyclient._http._pool import ShardedAsyncTransport
from holyclient.testing import LocalServer
from raw_http import deaf_server

KEY = "sk-aiohttp-timeouts-key"
#: Bounds every test: a timeout that does not fire fails here instead of hanging the suite.
GUARD = 10.0


def _fallback() -> ShardedAsyncTransport:
    return ShardedAsyncTransport(max_connections=4, max_keepalive_connections=4)


async def test_a_peer_that_never_reads_a_large_body_trips_the_write_timeout() -> None:
    big = "x" * (16 << 20)
    with deaf_server() as url:
        async with AsyncClient(api_key=KEY, base_url=url, timeout=0.3, max_retries=0) as client:
            with pytest.raises(APITimeoutError) as caught:
                await asyncio.wait_for(
                    client.chat.completions.create(model="m", messages=[{"role": "user", "content": big}]),
                    GUARD,
                )
    assert str(caught.value) == "Request timed out."  # openai's text; which timeout: a note
    assert "WriteTimeout" in error_text(caught.value)


async def test_a_streamed_request_body_is_bounded_by_the_write_timeout_too() -> None:
    async def body() -> Any:
        for _ in range(256):
            yield b"x" * 65536

    transport = AiohttpTransport(max_connections=4, fallback=_fallback)
    with deaf_server() as url:
        async with httpx2.AsyncClient(transport=transport, timeout=httpx2.Timeout(5.0, write=0.3)) as http:
            with pytest.raises(httpx2.WriteTimeout):
                await asyncio.wait_for(http.post(url, content=body()), GUARD)


async def test_a_large_body_still_arrives_whole_with_its_content_length(local_server: LocalServer) -> None:
    text = "y" * (1 << 20)
    async with AsyncClient(api_key=KEY, base_url=local_server.base_url, timeout=5.0) as client:
        completion = await client.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "user", "content": text}]
        )
    assert completion.choices[0].message.content == "Echo: " + text
    assert local_server.requests[-1].body["messages"][0]["content"] == text


class SlowResolver:
    """An aiohttp resolver that never answers in time: a stalled DNS server."""

    def __init__(self) -> None:
        self.calls = 0

    async def resolve(self, host: str, port: int = 0, family: int = socket.AF_INET) -> list[dict[str, Any]]:
        self.calls += 1
        await asyncio.sleep(GUARD * 2)
        raise OSError("unreachable")

    async def close(self) -> None:
        return None


async def test_the_connect_timeout_covers_dns_resolution() -> None:
    resolver = SlowResolver()
    transport = AiohttpTransport(max_connections=4, fallback=_fallback, resolver=resolver)
    timeout = httpx2.Timeout(60.0, connect=0.2)  # pool (and read) far longer than the connect timeout
    async with httpx2.AsyncClient(transport=transport, timeout=timeout) as http:
        with pytest.raises(httpx2.ConnectTimeout):
            await asyncio.wait_for(http.get("http://api.example.invalid/v1/models"), GUARD)
    assert resolver.calls == 1


async def test_waiting_for_a_free_connection_is_a_pool_timeout() -> None:
    transport = AiohttpTransport(max_connections=1, fallback=_fallback)
    connected = threading.Event()
    with deaf_server(connected) as url:
        async with httpx2.AsyncClient(transport=transport, timeout=httpx2.Timeout(5.0, pool=0.2)) as http:
            holder = asyncio.create_task(http.get(url))  # takes the only connection, never answered
            assert await asyncio.to_thread(connected.wait, GUARD)  # the holder has its connection
            with pytest.raises(httpx2.PoolTimeout):
                await asyncio.wait_for(http.get(url), GUARD)
            holder.cancel()
            with pytest.raises(asyncio.CancelledError):
                await holder


async def test_a_pool_timeout_reaches_the_caller_as_a_timeout_naming_the_pool() -> None:
    connected = threading.Event()
    with deaf_server(connected) as url:
        client = AsyncClient(api_key=KEY, base_url=url, max_retries=0, timeout=httpx2.Timeout(5.0, pool=0.2))
        client._http._transport._max_connections = 1  # type: ignore[attr-defined]
        async with client:
            holder = asyncio.ensure_future(client.models.list())  # a paginator is awaitable, not a coroutine
            assert await asyncio.to_thread(connected.wait, GUARD)  # the holder has its connection
            with pytest.raises(APITimeoutError) as caught:
                await asyncio.wait_for(client.models.list(), GUARD)
            holder.cancel()
            with pytest.raises(asyncio.CancelledError):
                await holder
    assert str(caught.value) == "Request timed out."  # openai's text; which timeout: a note
    assert "PoolTimeout" in error_text(caught.value)
