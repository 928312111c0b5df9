"""The real code path, end to end, against the project's own server on 127.0.0.1."""

from __future__ import annotations

import json
import time

import pytest

from holyclient import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AsyncClient,
    AuthenticationError,
    Client,
    InternalServerError,
    RateLimitError,
)
from holyclient.testing import Fault, LocalServer

pytest_plugins = ["holyclient.testing.pytest_plugin"]

USER = [{"role": "user", "content": "ping pong"}]


@pytest.fixture
def client(holyclient_server: LocalServer, sleeps: list[float]):
    with Client(api_key="sk-test", base_url=holyclient_server.base_url, sleep=sleeps.append) as c:
        yield c


def test_chat_stream_embeddings_and_models_round_trip(client: Client):
    completion = client.chat.completions.create(model="gpt-4.1", messages=USER, seed=1, temperature=0)
    assert completion.choices[0].message.content == "Echo: ping pong"
    assert completion.usage is not None and completion.usage.prompt_tokens > 0
    with client.chat.completions.create(
        model="gpt-4.1", messages=USER, stream=True, stream_options={"include_usage": True}
    ) as stream:
        chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Echo: ping pong"
    assert chunks[-1].usage is not None
    emb = client.embeddings.create(model="text-embedding-3-small", input="x", dimensions=4)
    assert len(emb.data[0].embedding) == 4
    assert "gpt-4.1" in [m.id for m in client.models.list()]


def test_tools_and_response_format_pass_through(client: Client, holyclient_server: LocalServer):
    tools = [
        {
            "type": "function",
            "function": {
                "name": "lookup",
                "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
            },
        }
    ]
    completion = client.chat.completions.create(
        model="gpt-4.1", messages=USER, tools=tools, tool_choice="required"
    )
    call = completion.choices[0].message.tool_calls[0]  # type: ignore[index]
    assert call.function is not None and call.function.name == "lookup"
    json.loads(call.function.arguments or "")
    client.chat.completions.create(model="gpt-4.1", messages=USER, response_format={"type": "json_object"})
    assert holyclient_server.requests[-1].body["response_format"] == {"type": "json_object"}


def test_transient_faults_are_retried_transparently(client: Client, holyclient_server: LocalServer, sleeps):
    holyclient_server.enqueue(Fault.status(429, retry_after=0.01), Fault.drop(), Fault.malformed())
    completion = client.chat.completions.create(model="gpt-4.1", messages=USER, max_retries=3)
    assert completion.choices[0].message.content == "Echo: ping pong"
    assert len(holyclient_server.requests) == 4
    assert sleeps[0] == 0.01 and len(sleeps) == 3


def test_errors_surface_with_status_request_id_and_attempts(client: Client, holyclient_server: LocalServer):
    holyclient_server.enqueue(*[Fault.status(500)] * 3)
    with pytest.raises(InternalServerError) as info:
        client.chat.completions.create(model="gpt-4.1", messages=USER)
    assert info.value.attempts == 3 and info.value.request_id
    holyclient_server.enqueue(Fault.insufficient_quota())
    with pytest.raises(RateLimitError) as quota:
        client.chat.completions.create(model="gpt-4.1", messages=USER)
    assert quota.value.attempts == 1


def test_missing_key_on_the_server_is_an_authentication_error(holyclient_server: LocalServer):
    with (
        Client(
            api_key="sk-x", base_url=holyclient_server.base_url, default_headers={"Authorization": ""}
        ) as c,
        pytest.raises(AuthenticationError),
    ):
        c.chat.completions.create(model="gpt-4.1", messages=USER)


def test_a_hang_longer_than_the_timeout_becomes_a_timeout_error(
    client: Client, holyclient_server: LocalServer
):
    holyclient_server.enqueue(Fault.hang(5))
    with pytest.raises(APITimeoutError):
        client.chat.completions.create(model="gpt-4.1", messages=USER, timeout=0.2, max_retries=0)


def test_stream_cut_in_the_middle_raises_a_connection_error(client: Client, holyclient_server: LocalServer):
    holyclient_server.enqueue(Fault.stream_cut(after_chunks=2))
    stream = client.chat.completions.create(
        model="gpt-4.1", messages=[{"role": "user", "content": "a b c d e f g"}], stream=True
    )
    with pytest.raises(APIConnectionError), stream:
        list(stream)


def test_error_event_mid_stream_raises_the_servers_error(client: Client, holyclient_server: LocalServer):
    holyclient_server.enqueue(Fault.stream_error(after_chunks=2, message="injected mid-stream failure"))
    stream = client.chat.completions.create(
        model="gpt-4.1", messages=[{"role": "user", "content": "a b c d e f"}], stream=True
    )
    received = []
    with pytest.raises(InternalServerError) as info, stream:
        for item in stream:
            received.append(item)
    assert len(received) == 2  # the chunks before the error event were delivered
    assert "injected mid-stream failure" in str(info.value)
    assert info.value.status_code == 500 and info.value.type == "server_error"
    assert "authorization" not in info.value.request.headers


def test_a_rate_limit_error_event_mid_stream_raises_rate_limit_error(
    client: Client, holyclient_server: LocalServer
):
    holyclient_server.enqueue(Fault.stream_error(after_chunks=1, error_type="rate_limit_error"))
    stream = client.chat.completions.create(model="gpt-4.1", messages=USER, stream=True)
    with pytest.raises(RateLimitError) as info, stream:
        list(stream)
    assert info.value.status_code == 429


def test_no_connection_is_left_open_after_errors_and_early_exits(
    client: Client, holyclient_server: LocalServer
):
    holyclient_server.enqueue(Fault.status(400), Fault.status(404))
    for _ in range(2):
        with pytest.raises(APIStatusError):
            client.chat.completions.create(model="gpt-4.1", messages=USER, max_retries=0)
    for _ in range(5):
        with client.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "user", "content": "a b c d e"}], stream=True
        ) as s:
            next(iter(s))
    for _ in range(5):
        client.chat.completions.create(model="gpt-4.1", messages=USER)
    # Streams left early close their connection (it cannot be reused mid-body); nothing stays open.
    deadline = time.monotonic() + 2
    while holyclient_server.stats["open_connections"] > 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert holyclient_server.stats["open_connections"] <= 1
    assert holyclient_server.stats["connections"] <= 7


async def test_async_client_against_the_server(holyclient_server: LocalServer):
    holyclient_server.enqueue(Fault.status(503, retry_after=0))
    async with AsyncClient(api_key="sk-test", base_url=holyclient_server.base_url) as client:
        completion = await client.chat.completions.create(model="gpt-4.1", messages=USER)
        assert completion.choices[0].message.content == "Echo: ping pong"
        stream = await client.chat.completions.create(model="gpt-4.1", messages=USER, stream=True)
        async with stream:
            text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
        assert text == "Echo: ping pong"
        emb = await client.embeddings.create(model="text-embedding-3-small", input=["a", "b"])
        assert len(emb.data) == 2


def test_a_user_supplied_httpx_client_works_for_real(holyclient_server: LocalServer):
    import httpx

    with (
        httpx.Client() as http,
        Client(api_key="sk-test", base_url=holyclient_server.base_url, http_client=http) as c,
    ):
        assert c.chat.completions.create(model="gpt-4.1", messages=USER, timeout=5).choices[0].message.content
        with c.chat.completions.create(model="gpt-4.1", messages=USER, stream=True) as stream:
            assert list(stream)
