from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from holyclient import APIConnectionError, ChatCompletionChunk, InternalServerError, RateLimitError
from holyclient._core._sse import SSEDecoder
from support import Recorder, chunk, sse

MESSAGES = [{"role": "user", "content": "x"}]


class TrackedStream(httpx2.SyncByteStream):
    """A response body that records whether it was closed and can fail after some chunks."""

    def __init__(self, parts: list[bytes], fail_after: int | None = None) -> None:
        self.parts = parts
        self.fail_after = fail_after
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        for i, part in enumerate(self.parts):
            if self.fail_after is not None and i >= self.fail_after:
                raise httpx2.RemoteProtocolError(
                    "peer closed connection without sending complete message body"
                )
            yield part

    def close(self) -> None:
        self.closed = True


def sse_response(body: TrackedStream) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=body)


def test_stream_yields_typed_chunks_until_done(make_client):
    body = TrackedStream([sse(chunk("Hel")), sse(chunk("lo")) + sse("[DONE]")])
    client = make_client(Recorder(sse_response(body)))
    with client.chat.completions.create(model="m", messages=MESSAGES, stream=True) as stream:
        parts = list(stream)
    assert all(isinstance(p, ChatCompletionChunk) for p in parts)
    assert "".join(p.choices[0].delta.content or "" for p in parts) == "Hello"
    assert body.closed


def test_events_split_across_network_chunks_are_reassembled(make_client):
    raw = sse(chunk("a"), chunk("b"), "[DONE]")
    pieces = [raw[i : i + 7] for i in range(0, len(raw), 7)]
    client = make_client(Recorder(sse_response(TrackedStream(pieces))))
    stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    assert [c.choices[0].delta.content for c in stream] == ["a", "b"]


def test_leaving_a_stream_early_closes_the_connection(make_client):
    body = TrackedStream([sse(chunk("a")), sse(chunk("b")), sse(chunk("c")), sse("[DONE]")])
    client = make_client(Recorder(sse_response(body)))
    with client.chat.completions.create(model="m", messages=MESSAGES, stream=True) as stream:
        for _ in stream:
            break
    assert body.closed


def test_error_event_mid_stream_raises_a_status_error_with_the_server_message(make_client):
    error = {
        "error": {"message": "Rate limit reached", "type": "rate_limit_error", "code": "rate_limit_exceeded"}
    }
    body = TrackedStream([sse(chunk("a")), sse(error)])
    client = make_client(Recorder(sse_response(body)))
    stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    assert next(stream).choices[0].delta.content == "a"
    with pytest.raises(RateLimitError) as info:
        next(stream)
    assert info.value.status_code == 429
    assert info.value.code == "rate_limit_exceeded"
    assert "Rate limit reached" in str(info.value)
    assert body.closed


def test_stream_is_retried_before_its_first_byte_only(make_client, sleeps):
    first = TrackedStream([sse(chunk("never"))], fail_after=0)  # dies before any byte
    second = TrackedStream([sse(chunk("a")), sse(chunk("b"))], fail_after=1)  # dies after a byte
    rec = Recorder(httpx2.Response(503, json={}), sse_response(first), sse_response(second))
    client = make_client(rec)
    stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    assert len(rec.requests) == 3 and len(sleeps) == 2
    assert next(stream).choices[0].delta.content == "a"
    with pytest.raises(APIConnectionError):
        next(stream)
    assert len(rec.requests) == 3
    assert first.closed and second.closed


def test_stream_error_status_raises_before_iteration(make_client):
    rec = Recorder(httpx2.Response(500, json={"error": {"message": "boom"}}))
    with pytest.raises(InternalServerError):
        make_client(rec, max_retries=0).chat.completions.create(model="m", messages=MESSAGES, stream=True)


def test_stream_request_sets_stream_flag_and_accept_header(make_client):
    rec = Recorder(sse_response(TrackedStream([sse("[DONE]")])))
    client = make_client(rec)
    list(
        client.chat.completions.create(
            model="m", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
        )
    )
    assert rec.bodies()[0]["stream"] is True
    assert rec.bodies()[0]["stream_options"] == {"include_usage": True}
    assert rec.requests[0].headers["accept"] == "text/event-stream"


async def test_async_stream_iterates_and_closes(make_async_client):
    raw = sse(chunk("x"), chunk("y"), "[DONE]")
    rec = Recorder(httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=raw))
    async with make_async_client(rec) as client:
        stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        async with stream:
            got = [c.choices[0].delta.content async for c in stream]
    assert got == ["x", "y"]
    assert stream.response.is_closed


def test_sse_decoder_handles_crlf_multiline_comments_and_fields():
    decoder = SSEDecoder()
    events = decoder.feed(
        b': keep-alive\r\nevent: message\r\ndata: {"a":\r\ndata: 1}\r\n\r\nid: 3\r\ndata:x\n'
    )
    assert events == [b'{"a":\n1}']
    assert decoder.flush() == [b"x"]
