"""``http_client=DefaultHttpxClient(...)`` and its siblings mean the same through openai and holyclient."""

from __future__ import annotations

from typing import Any

import httpx2
import openai
import pytest

import holyclient
from differential.conftest import KEY, Differential, assert_same_outcomes
from holyclient._http._aiohttp import AiohttpTransport

USER = [{"role": "user", "content": "ping pong"}]
SYNC = ["DefaultHttpxClient", "DefaultHttpx2Client"]
ASYNC = ["DefaultAsyncHttpxClient", "DefaultAioHttpClient", "DefaultAsyncHttpx2Client"]


def app(c: Any) -> Any:
    return {
        "chat": c.chat.completions.create(model="gpt-4.1", messages=USER),
        "models": [m.id for m in c.models.list()],
    }


async def async_app(c: Any) -> Any:
    return {
        "chat": await c.chat.completions.create(model="gpt-4.1", messages=USER),
        "models": [m.id async for m in c.models.list()],
    }


@pytest.mark.parametrize("name", SYNC)
def test_a_default_sync_http_client_works_as_http_client_like_openai(
    differential: Differential, name: str
) -> None:
    outcomes = []
    for sdk, cls in ((openai, openai.OpenAI), (holyclient, holyclient.Client)):
        # The caller's client is the caller's to close (holyclient leaves it open, as httpx's own clients do).
        with getattr(sdk, name)(headers={"x-app": "demo"}) as http:
            client = cls(api_key=KEY, base_url=differential.server.base_url, max_retries=0, http_client=http)
            outcomes.append(differential.run(app, client, headers=("x-app",)))
            client.close()
    theirs, ours = outcomes
    assert_same_outcomes(theirs, ours)  # both succeeded, then the same requests and results
    assert ours.requests[0]["x-app"] == "demo"


@pytest.mark.parametrize("name", ASYNC)
async def test_a_default_async_http_client_works_as_http_client_like_openai(
    differential: Differential, name: str
) -> None:
    outcomes = []
    for sdk, cls in ((openai, openai.AsyncOpenAI), (holyclient, holyclient.AsyncClient)):
        async with getattr(sdk, name)(headers={"x-app": "demo"}) as http:
            client = cls(api_key=KEY, base_url=differential.server.base_url, max_retries=0, http_client=http)
            outcomes.append(await differential.arun(async_app, client, headers=("x-app",)))
            await client.close()
    theirs, ours = outcomes
    assert_same_outcomes(theirs, ours)  # both succeeded, then the same requests and results
    assert ours.requests[0]["x-app"] == "demo"


def test_the_aliases_are_httpx2_clients_with_the_sdks_defaults() -> None:
    own = holyclient.Client(api_key=KEY, base_url="http://127.0.0.1:9")
    with holyclient.DefaultHttpxClient() as http:
        assert isinstance(http, httpx2.Client)
        assert http.timeout == own._http.timeout and http.follow_redirects
        assert type(own._http) is holyclient.DefaultHttpxClient  # one set of defaults: the client's own
    own.close()
    with holyclient.DefaultHttpxClient(timeout=3.0) as http:
        assert http.timeout.read == 3.0  # the caller's changes on top


async def test_the_aiohttp_alias_means_holyclients_aiohttp_transport() -> None:
    async with holyclient.DefaultAioHttpClient() as http:
        assert isinstance(http, httpx2.AsyncClient)
        assert isinstance(http._transport, AiohttpTransport)
    async with holyclient.DefaultAsyncHttpxClient() as http:
        assert not isinstance(http._transport, AiohttpTransport)
    async with holyclient.DefaultAioHttpClient(proxy="http://127.0.0.1:9") as http:
        assert not isinstance(http._transport, AiohttpTransport)  # a proxy is not bypassed
