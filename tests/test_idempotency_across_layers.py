"""One ``Idempotency-Key`` per logical request, whichever layer retries it: holyclient's own retries
through ``as_openai()``, an openai client's retry loop over ``as_http_client()``, a plain HTTP client over
``as_http_client()``, and a Router failing over from one target to the next. Checked where it matters:
at the server, on the requests it received."""

from __future__ import annotations

import asyncio
import inspect
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import openai
import pytest

import holyclient
from holyclient.testing import Fault, LocalServer

KEY = "sk-idempotency-5e9b2c1d"
USER = [{"role": "user", "content": "hello"}]


@pytest.fixture(scope="module")
def shared_server() -> Iterator[LocalServer]:
    with LocalServer(api_key=KEY) as server:
        yield server


@pytest.fixture
def server(shared_server: LocalServer) -> Iterator[LocalServer]:
    shared_server.reset()
    yield shared_server


async def run(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def _no_wait(seconds: float) -> None:
    return None


@pytest.fixture
async def client_of() -> Any:
    """``client_of(kind, base_url, **options)``: a holyclient client, closed after the test."""
    made: list[Any] = []

    def build(kind: str, base_url: str, **options: Any) -> Any:
        if kind == "sync":
            client: Any = holyclient.Client(api_key=KEY, base_url=base_url, sleep=lambda s: None, **options)
        else:
            client = holyclient.AsyncClient(api_key=KEY, base_url=base_url, sleep=_no_wait, **options)
        made.append(client)
        return client

    yield build
    for client in made:
        await run(client.close())


def keys(server: LocalServer) -> list[str | None]:
    return [r.headers.get("idempotency-key") for r in server.requests]


KINDS = pytest.mark.parametrize("kind", ["sync", "async"])


@KINDS
async def test_holyclient_s_retries_through_as_openai_carry_one_key(
    kind: str, server: LocalServer, client_of: Any
) -> None:
    server.enqueue(Fault.status(429, retry_after=0), Fault.status(500))
    client = client_of(kind, server.base_url)
    await run(client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER))
    await run(client.as_openai().chat.completions.create(model="gpt-4.1", messages=USER))
    sent = keys(server)
    assert [r.status for r in server.requests] == [429, 500, 200, 200]
    assert sent[0] and sent[0] == sent[1] == sent[2] != sent[3]  # one per call, a new one per call


@KINDS
async def test_an_openai_client_s_retries_over_the_http_client_carry_one_key(
    kind: str, server: LocalServer, client_of: Any
) -> None:
    server.enqueue(Fault.status(429, retry_after=0), Fault.status(500))
    client = client_of(kind, server.base_url)
    sdk_kind = openai.OpenAI if kind == "sync" else openai.AsyncOpenAI
    sdk = sdk_kind(
        api_key="unused", base_url=client.base_url, http_client=client.as_http_client(), max_retries=2
    )
    await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER))
    await run(sdk.chat.completions.create(model="gpt-4.1", messages=USER))  # the same body, a new call
    sent = keys(server)
    assert [r.headers["x-stainless-retry-count"] for r in server.requests] == ["0", "1", "2", "0"]
    assert sent[0] and sent[0] == sent[1] == sent[2] != sent[3]


@KINDS
async def test_a_plain_http_client_s_request_retried_by_holyclient_carries_one_key(
    kind: str, server: LocalServer, client_of: Any
) -> None:
    server.enqueue(Fault.status(429, retry_after=0))
    client = client_of(kind, server.base_url)
    http = client.as_http_client()
    body = {"model": "gpt-4.1", "messages": USER}
    response = await run(http.post(str(client.base_url) + "chat/completions", json=body))
    assert response.status_code == 200
    sent = keys(server)
    assert len(sent) == 2 and sent[0] and sent[0] == sent[1]


async def test_identical_calls_at_once_keep_a_key_each_across_their_retries(
    server: LocalServer, client_of: Any
) -> None:
    server.enqueue(Fault.status(429, retry_after=0), Fault.status(429, retry_after=0))
    client = client_of("async", server.base_url)
    sdk = openai.AsyncOpenAI(
        api_key="unused", base_url=client.base_url, http_client=client.as_http_client(), max_retries=1
    )
    await asyncio.gather(*(sdk.chat.completions.create(model="gpt-4.1", messages=USER) for _ in range(2)))
    by_key: dict[str | None, list[int]] = defaultdict(list)
    for request in server.requests:
        by_key[request.headers.get("idempotency-key")].append(request.status)
    assert sorted(by_key.values()) == [[429, 200], [429, 200]]  # two calls, each first attempt and retry


@KINDS
async def test_a_router_failing_over_sends_the_next_target_the_same_key(kind: str) -> None:
    with LocalServer(api_key=KEY) as first, LocalServer(api_key=KEY) as second:
        first.enqueue(Fault.status(503))
        fallback = holyclient.Target(second.base_url, api_key=KEY, name="second")
        target = holyclient.Target(first.base_url, api_key=KEY, name="first", fallbacks=[fallback])
        routers = {"sync": holyclient.Router, "async": holyclient.AsyncRouter}
        router = routers[kind]([target], max_retries=0)
        try:
            await run(router.chat.completions.create(model="gpt-4.1", messages=USER))
            await run(router.as_openai().chat.completions.create(model="gpt-4.1", messages=USER))
        finally:
            await run(router.close())
        (failed, served_by_first), (served,) = first.requests, second.requests
    assert (failed.status, served.status, served_by_first.status) == (503, 200, 200)
    key = failed.headers["idempotency-key"]
    assert key and served.headers["idempotency-key"] == key != served_by_first.headers["idempotency-key"]
