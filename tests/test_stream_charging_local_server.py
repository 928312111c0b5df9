"""Streams are charged, against the local server (which honours ``stream_options.include_usage``)."""

from __future__ import annotations

import pytest

from holyclient import APIConnectionError, AsyncClient, Client
from holyclient.testing import Fault, LocalServer

pytest_plugins = ["holyclient.testing.pytest_plugin"]

USER = [{"role": "user", "content": "Tell me a short story about a streaming budget"}]


def _client(server: LocalServer, **kwargs: object) -> Client:
    return Client(api_key="sk-t", base_url=server.base_url, budget_usd=1.0, **kwargs)  # type: ignore[arg-type]


def test_a_streamed_chat_is_charged_what_the_same_call_costs_unstreamed(holyclient_server: LocalServer):
    with _client(holyclient_server) as client:
        reference = client.chat.completions.create(model="gpt-4.1", messages=USER, max_tokens=50).usage
        for _ in range(3):
            chunks = list(
                client.chat.completions.create(model="gpt-4.1", messages=USER, max_tokens=50, stream=True)
            )
            assert all(chunk.choices for chunk in chunks)  # the usage chunk we asked for is not shown
        model = client.usage.snapshot().models["gpt-4.1"]
    assert reference is not None
    assert model.requests == 4
    assert model.prompt_tokens == 4 * reference.prompt_tokens
    assert model.completion_tokens == 4 * reference.completion_tokens
    assert model.approximate_requests == 0


def test_a_caller_asking_for_usage_gets_the_servers_usage_chunk(holyclient_server: LocalServer):
    with _client(holyclient_server) as client:
        chunks = list(
            client.chat.completions.create(
                model="gpt-4.1",
                messages=USER,
                stream=True,
                max_tokens=50,
                stream_options={"include_usage": True},
            )
        )
        assert chunks[-1].choices == [] and chunks[-1].usage is not None
        assert (
            client.usage.snapshot().models["gpt-4.1"].completion_tokens == chunks[-1].usage.completion_tokens
        )


def test_a_stream_cut_by_the_server_is_charged_as_uncertain(holyclient_server: LocalServer):
    holyclient_server.enqueue(Fault.stream_cut(after_chunks=2))
    with _client(holyclient_server, max_retries=0) as client:
        stream = client.chat.completions.create(model="gpt-4.1", messages=USER, max_tokens=50, stream=True)
        held = client.usage.snapshot().reserved_usd
        with pytest.raises(APIConnectionError):
            list(stream)
        snapshot = client.usage.snapshot()
    assert snapshot.reserved_usd == 0.0
    assert snapshot.uncertain_usd == pytest.approx(held)


async def test_async_streams_left_early_and_read_through_are_charged(holyclient_server: LocalServer):
    async with AsyncClient(api_key="sk-t", base_url=holyclient_server.base_url, budget_usd=1.0) as client:
        async with await client.chat.completions.create(
            model="gpt-4.1", messages=USER, max_tokens=50, stream=True
        ) as stream:
            async for _ in stream:
                break
        full = [
            c async for c in await client.chat.completions.create(model="gpt-4.1", messages=USER, stream=True)
        ]
        snapshot = client.usage.snapshot()
    assert all(chunk.choices for chunk in full)
    model = snapshot.models["gpt-4.1"]
    assert model.requests == 2 and model.approximate_requests == 1
    assert snapshot.reserved_usd == 0.0


def test_a_raw_byte_stream_is_charged_by_counting_locally(holyclient_server: LocalServer):
    with _client(holyclient_server) as client:
        reference = client.chat.completions.create(model="gpt-4.1", messages=USER, max_tokens=50).usage
        with client.chat.completions.with_streaming_response.create(
            model="gpt-4.1", messages=USER, max_tokens=50, stream=True
        ) as response:
            lines = [line for line in response.iter_lines() if line.startswith("data: {")]
        snapshot = client.usage.snapshot()
    assert reference is not None
    assert all('"choices":[]' not in line for line in lines)
    model = snapshot.models["gpt-4.1"]
    assert (model.requests, model.approximate_requests) == (2, 1)
    assert model.completion_tokens - reference.completion_tokens > 0  # the streamed text was counted
    assert snapshot.reserved_usd == 0.0


async def test_an_async_raw_byte_stream_is_charged_by_counting_locally(holyclient_server: LocalServer):
    async with AsyncClient(api_key="sk-t", base_url=holyclient_server.base_url, budget_usd=1.0) as client:
        async with client.with_streaming_response.chat.completions.create(
            model="gpt-4.1", messages=USER, max_tokens=50, stream=True
        ) as response:
            lines = [line async for line in response.iter_lines() if line.startswith("data: {")]
        snapshot = client.usage.snapshot()
    assert all('"choices":[]' not in line for line in lines)
    model = snapshot.models["gpt-4.1"]
    assert (model.requests, model.approximate_requests) == (1, 1)
    assert model.completion_tokens > 0
    assert snapshot.reserved_usd == 0.0


def test_a_replayed_response_stream_is_not_charged_again(holyclient_server: LocalServer):
    with _client(holyclient_server) as client:
        with client.responses.stream(model="gpt-4.1", input="charge me once") as stream:
            response_id = stream.get_final_response().id
        with client.responses.stream(response_id=response_id, starting_after=2) as stream:
            replayed = stream.get_final_response()
        snapshot = client.usage.snapshot()
    assert replayed.id == response_id
    model = snapshot.models["gpt-4.1"]
    assert (model.requests, model.approximate_requests) == (1, 0)
    assert snapshot.reserved_usd == 0.0
