"""``shared_http_client(client, aclient)``: one HTTP client that openai's sync and async clients both accept
(CrewAI builds both from one ``client_params``); each request goes through the holyclient client of its
sender's kind, which counts it, and openai's retries stay the one layer."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import openai
import pytest

import holyclient
from holyclient.openai_compat import shared_http_client
from holyclient.testing import Fault, LocalServer

KEY = "sk-shared-http-client"
USER = [{"role": "user", "content": "hello"}]


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer(api_key=KEY) as running:
        yield running


def test_openai_s_sync_and_async_clients_both_take_it_and_each_sends_through_its_own(
    server: LocalServer,
) -> None:
    client = holyclient.Client(api_key=KEY, base_url=server.base_url, instrument=False)
    aclient = holyclient.AsyncClient(api_key=KEY, base_url=server.base_url, instrument=False)
    http = shared_http_client(client, aclient)
    params = {"api_key": "unused", "base_url": client.base_url, "http_client": http}
    sync, asynchronous = openai.OpenAI(**params), openai.AsyncOpenAI(**params)  # one client_params, both

    assert sync.chat.completions.create(model="gpt-4.1", messages=USER).choices[0].message.content

    async def run() -> str:
        answer = await asynchronous.chat.completions.create(model="gpt-4.1", messages=USER, stream=True)
        return "".join([chunk.choices[0].delta.content or "" async for chunk in answer if chunk.choices])

    assert asyncio.run(run())
    assert client.usage.snapshot().models["gpt-4.1"].requests == 1
    assert aclient.usage.snapshot().models["gpt-4.1"].requests == 1
    assert [r.status for r in server.requests] == [
        200,
        200,
    ]  # with holyclient's key: the server takes no other
    sync.close()
    asyncio.run(asynchronous.close())
    client.close()


def test_openai_s_retries_are_the_one_layer(server: LocalServer) -> None:
    client = holyclient.Client(api_key=KEY, base_url=server.base_url, instrument=False)
    aclient = holyclient.AsyncClient(api_key=KEY, base_url=server.base_url, instrument=False)
    sdk = openai.OpenAI(
        api_key="unused", base_url=client.base_url, http_client=shared_http_client(client, aclient)
    )
    server.enqueue(Fault.status(429, retry_after=0))
    sdk.chat.completions.create(model="gpt-4.1", messages=USER)
    assert [r.status for r in server.requests] == [429, 200]
    assert [r.headers.get("x-stainless-retry-count") for r in server.requests] == ["0", "1"]  # openai's
    sdk.close()
    client.close()


def test_it_takes_a_client_then_an_async_client(server: LocalServer) -> None:
    client = holyclient.Client(api_key=KEY, base_url=server.base_url)
    aclient = holyclient.AsyncClient(api_key=KEY, base_url=server.base_url)
    with pytest.raises(TypeError, match="a Client, then an AsyncClient"):
        shared_http_client(aclient, client)
    client.close()
