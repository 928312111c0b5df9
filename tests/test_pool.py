"""The sharded async transport (the fallback off asyncio): small pools, released connections; proxies."""

from __future__ import annotations

import asyncio

import httpx2
import pytest

from holyclient._http._aiohttp import AiohttpTransport
from holyclient._http._clients import new_async_client
from holyclient._http._pool import ShardedAsyncTransport
from holyclient.testing import LocalServer

HEADERS = {"Authorization": "Bearer sk-test"}


@pytest.mark.parametrize(("max_connections", "pools"), [(100, 3), (16, 2)])
async def test_concurrent_requests_spread_over_pools_of_at_most_shard_size(
    max_connections: int, pools: int
) -> None:
    transport = ShardedAsyncTransport(
        max_connections=max_connections, max_keepalive_connections=max_connections, shard_size=8
    )
    with LocalServer(latency=0.05) as server:
        async with httpx2.AsyncClient(transport=transport) as http:
            responses = await asyncio.gather(
                *(http.get(server.base_url + "/models", headers=HEADERS) for _ in range(20))
            )

    assert [r.status_code for r in responses] == [200] * 20
    assert len(transport._pools) == pools  # 20 in flight: 8 + 8 + 4, or capped at 16 connections
    assert transport._in_flight == [0] * pools  # every closed response gave its slot back


async def test_failed_request_gives_its_slot_back() -> None:
    transport = ShardedAsyncTransport(max_connections=8, max_keepalive_connections=8)
    async with httpx2.AsyncClient(transport=transport) as http:
        with pytest.raises(httpx2.ConnectError):
            await http.get("http://127.0.0.1:1/v1/models")

    assert transport._in_flight == [0]


async def test_proxy_from_environment_keeps_the_plain_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
    proxied = new_async_client(None)
    monkeypatch.delenv("HTTPS_PROXY")
    for name in ("HTTP_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    direct = new_async_client(None)
    try:
        assert not isinstance(proxied._transport, (AiohttpTransport, ShardedAsyncTransport))
        assert isinstance(direct._transport, AiohttpTransport)
    finally:
        await proxied.aclose()
        await direct.aclose()
