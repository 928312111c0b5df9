"""Reading a response through ``with_raw_response`` / ``with_streaming_response``: the bytes as sent,
text decoded across chunk boundaries (as openai's, which reads through httpx's incremental decoder),
lines, JSON, and the connection closed when the ``with`` block ends."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from holyclient import AsyncClient, Client
from holyclient._send._response import AsyncStreamedResponse
from support import KEY, Body

BASE = "http://127.0.0.1:9/v1"
MESSAGES = [{"role": "user", "content": "x"}]
FIRST = b'data: {"id":"a","object":"chat.completion.chunk","created":1,"model":"m","choices":[]}\r\n\r\n'
#: "é" split between two chunks, a "\r\n" split between two chunks, a line split between two chunks,
#: an invalid byte, and a last line without its newline that ends in half a character.
CHUNKS = [FIRST, b"data: caf\xc3", b"\xa9\r", b"\n\r\nda", b"ta: \xff [DONE]\n\n", b": tail\xc3"]
BODY = b"".join(CHUNKS)
TEXT = BODY.decode("utf-8", "replace")
LINES = TEXT.split("\n")
COMPLETION = {
    "id": "c1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-4o-mini",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "hi"}}],
}


def _sse(body: Body) -> Any:
    return lambda _: httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=body)


def _sync(handler: Any) -> Client:
    return Client(
        api_key=KEY, base_url=BASE, http_client=httpx2.Client(transport=httpx2.MockTransport(handler))
    )


def _async(handler: Any) -> AsyncClient:
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    return AsyncClient(api_key=KEY, base_url=BASE, http_client=http)


def _stream_call(client: Any) -> Any:
    return client.with_streaming_response.chat.completions.create(
        model="gpt-4o-mini", messages=MESSAGES, stream=True
    )


# --- sync: StreamedResponse -------------------------------------------------------------------------


def test_streamed_iter_bytes_and_read_give_the_body_as_sent() -> None:
    with _sync(_sse(Body(CHUNKS))) as client, _stream_call(client) as response:
        assert response.read() == BODY


def test_streamed_iter_text_decodes_a_character_split_between_chunks_and_replaces_invalid_bytes() -> None:
    with _sync(_sse(Body(CHUNKS))) as client, _stream_call(client) as response:
        text = "".join(response.iter_text())
    assert text == TEXT
    assert "café" in text and "\ufffd [DONE]" in text


def test_streamed_iter_lines_joins_lines_split_between_chunks_and_drops_the_carriage_return() -> None:
    with _sync(_sse(Body(CHUNKS))) as client, _stream_call(client) as response:
        lines = list(response.iter_lines())
    assert lines == [line.removesuffix("\r") for line in LINES]
    assert lines[2:5] == ["data: café", "", "data: \ufffd [DONE]"]
    assert lines[-1] == ": tail\ufffd"


#: Bodies whose lines end in every way httpx (so openai's ``iter_lines()``) splits at: a lone ``\r`` in a
#: chunk, ending a chunk, ending the body; ``\r\n`` split or not; the other ``str.splitlines`` breaks.
LINE_BREAK_BODIES = [
    [FIRST, b"\rdata: x\n"],
    [FIRST, b"data: a\rdata: b\r", b"\ndata: c\r", b"data: d"],
    [FIRST, b"data: a\r", b"\r", b"\n", b"data: b\r"],
    [FIRST, b"data: \xe2\x80\xa8x\x0cy\x1ez\xc2\x85w\n\n", b"data: end"],
    [FIRST, b"data: a\n", b"\n\n"],
    CHUNKS,
]


def _httpx_lines(chunks: list[bytes]) -> list[str]:
    """The lines openai's streamed response yields for this body: httpx2's own ``iter_lines()``."""
    return list(httpx2.Response(200, stream=Body(chunks)).iter_lines())


@pytest.mark.parametrize("chunks", LINE_BREAK_BODIES)
def test_streamed_iter_lines_splits_lines_as_httpx_does_for_openai(chunks: list[bytes]) -> None:
    with _sync(_sse(Body(chunks))) as client, _stream_call(client) as response:
        assert list(response.iter_lines()) == _httpx_lines(chunks)


def test_streamed_iter_lines_breaks_a_line_at_a_lone_carriage_return() -> None:
    with _sync(_sse(Body([FIRST, b"data: a\rdata: b\r"]))) as client, _stream_call(client) as response:
        assert list(response.iter_lines())[-3:] == ["", "data: a", "data: b"]


def test_streamed_text_is_the_whole_body_with_invalid_bytes_replaced() -> None:
    with _sync(_sse(Body(CHUNKS))) as client, _stream_call(client) as response:
        assert response.text() == TEXT


def test_streamed_json_of_a_plain_call_and_the_raw_response_json_and_repr() -> None:
    handler = lambda _: httpx2.Response(200, json=COMPLETION)  # noqa: E731
    with _sync(handler) as client:
        create = client.with_streaming_response.chat.completions.create
        with create(model="gpt-4o-mini", messages=MESSAGES) as streamed:
            assert streamed.json() == COMPLETION
            assert json.loads(streamed.read()) == COMPLETION
        raw = client.with_raw_response.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert raw.json() == COMPLETION
    assert repr(raw) == "<RawResponse [200] type=ChatCompletion>"


def test_a_call_with_and_without_raw_response_is_charged_for_the_usage_it_reports() -> None:
    answer = {**COMPLETION, "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}
    handler = lambda _: httpx2.Response(200, json=answer)  # noqa: E731
    with _sync(handler) as client:
        raw = client.with_raw_response.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        assert raw.parse().usage.total_tokens == 10
        client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        models = client.usage.snapshot().models
    assert models["gpt-4o-mini"].requests == 2
    assert models["gpt-4o-mini"].prompt_tokens == 14


# --- async: AsyncStreamedResponse, through the async with_streaming_response view --------------------


async def test_async_streamed_read_text_lines_give_the_body_as_sent_and_decoded() -> None:
    async with _async(_sse(Body(CHUNKS))) as client:
        async with _stream_call(client) as response:
            assert await response.read() == BODY
        async with _stream_call(client) as response:
            assert await response.text() == TEXT
        async with _stream_call(client) as response:
            assert "".join([text async for text in response.iter_text()]) == TEXT
        async with _stream_call(client) as response:
            lines = [line async for line in response.iter_lines()]
    assert lines == [line.removesuffix("\r") for line in LINES]
    assert lines[2:5] == ["data: café", "", "data: \ufffd [DONE]"]


@pytest.mark.parametrize("chunks", LINE_BREAK_BODIES)
async def test_async_streamed_iter_lines_splits_lines_as_httpx_does_for_openai(chunks: list[bytes]) -> None:
    async with _async(_sse(Body(chunks))) as client, _stream_call(client) as response:
        assert [line async for line in response.iter_lines()] == _httpx_lines(chunks)


async def test_async_streamed_json_of_a_plain_call() -> None:
    handler = lambda _: httpx2.Response(200, json=COMPLETION)  # noqa: E731
    async with _async(handler) as client:
        create = client.with_streaming_response.chat.completions.create
        async with create(model="gpt-4o-mini", messages=MESSAGES) as response:
            assert await response.json() == COMPLETION


async def test_async_streamed_response_closes_the_unread_stream_when_the_block_ends() -> None:
    body = Body(CHUNKS)
    async with _async(_sse(body)) as client:
        async with _stream_call(client) as response:
            assert isinstance(response, AsyncStreamedResponse)
            assert not body.closed
        assert body.closed


async def test_async_streaming_view_passes_plain_and_private_attributes_through() -> None:
    async with _async(_sse(Body(CHUNKS))) as client:
        view = client.with_streaming_response
        assert view.max_retries == client.max_retries
        assert view._response_cls is AsyncStreamedResponse
        assert view.organization is None
