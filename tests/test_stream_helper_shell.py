"""The ``chat.completions.stream()`` helper's shell: the event stream exposes its HTTP response,
``next()`` gives its events one by one, and leaving an ``async with`` closes an unread response."""

from __future__ import annotations

import json
from typing import Any

import httpx2

from holyclient import AsyncClient, Client
from support import KEY, Body

BASE = "http://127.0.0.1:9/v1"
MESSAGES = [{"role": "user", "content": "x"}]


def _chunk(content: str, finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": {"content": content}, "finish_reason": finish}
    body = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [choice]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


CHUNKS = [_chunk("Hel"), _chunk("lo", "stop"), b"data: [DONE]\n\n"]


def _handler(body: Body) -> Any:
    headers = {"content-type": "text/event-stream", "x-request-id": "req-1"}
    return lambda _: httpx2.Response(200, headers=headers, stream=body)


def test_next_gives_the_events_in_order_and_the_stream_exposes_its_response() -> None:
    http = httpx2.Client(transport=httpx2.MockTransport(_handler(Body(CHUNKS))))
    with Client(api_key=KEY, base_url=BASE, http_client=http) as client:
        with client.chat.completions.stream(model="gpt-4o-mini", messages=MESSAGES) as stream:
            expected = [event.type for event in stream]
        with client.chat.completions.stream(model="gpt-4o-mini", messages=MESSAGES) as stream:
            assert stream.response.headers["x-request-id"] == "req-1"
            assert [next(stream).type, next(stream).type] == expected[:2]
    assert "content.delta" in expected


async def test_async_stream_exposes_its_response_and_is_closed_unread_when_the_block_ends() -> None:
    body = Body(CHUNKS)
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(_handler(body)))
    async with AsyncClient(api_key=KEY, base_url=BASE, http_client=http) as client:
        async with client.chat.completions.stream(model="gpt-4o-mini", messages=MESSAGES) as stream:
            assert stream.response.headers["x-request-id"] == "req-1"
            assert not body.closed
        assert body.closed
