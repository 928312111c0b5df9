"""Error events inside a 200 stream raise the class their type names; the last event needs no newline."""

from __future__ import annotations

import json

import httpx2
import pytest

from holyclient import (
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
)
from holyclient._core._sse import stream_error
from support import Recorder, chunk, sse

MESSAGES = [{"role": "user", "content": "x"}]
SSE = {"content-type": "text/event-stream"}


def _error_event(**error: object) -> bytes:
    return json.dumps({"error": {"message": "stop", **error}}).encode()


@pytest.mark.parametrize(
    ("error", "cls", "status"),
    [
        ({"type": "rate_limit_error"}, RateLimitError, 429),
        ({"type": "insufficient_quota"}, RateLimitError, 429),
        ({"type": "invalid_request_error"}, BadRequestError, 400),
        ({"type": "authentication_error"}, AuthenticationError, 401),
        ({"type": "permission_error"}, PermissionDeniedError, 403),
        ({"type": "not_found_error"}, NotFoundError, 404),
        ({"type": "overloaded_error"}, InternalServerError, 503),
        ({"type": "something_new"}, InternalServerError, 500),
        ({"code": "rate_limit_exceeded"}, RateLimitError, 429),
        ({"code": 429, "type": "whatever"}, RateLimitError, 429),
        ({"status": 404}, NotFoundError, 404),
    ],
    ids=lambda value: json.dumps(value) if isinstance(value, dict) else str(value),
)
def test_an_error_event_raises_the_class_its_type_names(error, cls, status):
    response = httpx2.Response(200)
    exc = stream_error(_error_event(**error), response)
    assert type(exc) is cls and exc.status_code == status


def test_a_rate_limit_error_event_raises_rate_limit_error_after_the_chunks_read_with_it(make_client):
    body = sse(chunk("a")) + b"data: " + _error_event(type="rate_limit_error") + b"\n\n"
    client = make_client(Recorder(httpx2.Response(200, headers=SSE, content=body)))
    stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True, stream_options=ASK)
    assert next(stream).choices[0].delta.content == "a"
    with pytest.raises(RateLimitError) as info:
        next(stream)
    assert info.value.status_code == 429 and isinstance(info.value, APIStatusError)


async def test_an_async_rate_limit_error_event_raises_rate_limit_error(make_async_client):
    body = b"data: " + _error_event(type="rate_limit_error") + b"\n\n"
    client = make_async_client(Recorder(httpx2.Response(200, headers=SSE, content=body)))
    stream = await client.chat.completions.create(
        model="m", messages=MESSAGES, stream=True, stream_options=ASK
    )
    with pytest.raises(RateLimitError):
        [item async for item in stream]


USAGE = chunk("", choices=[], usage={"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5})
ASK = {"include_usage": True}  # the caller asks, so the usage chunk is theirs to see
UNTERMINATED = [sse(chunk("a")), b"data: " + json.dumps(USAGE).encode()]  # no newline at all at the end


def test_a_final_event_without_a_trailing_newline_is_not_lost(make_client):
    body = b"".join(UNTERMINATED)
    client = make_client(Recorder(httpx2.Response(200, headers=SSE, content=body)))
    chunks = list(
        client.chat.completions.create(model="m", messages=MESSAGES, stream=True, stream_options=ASK)
    )
    assert [c.usage.total_tokens if c.usage else None for c in chunks] == [None, 5]


async def test_an_async_final_event_without_a_trailing_newline_is_not_lost(make_async_client):
    async def parts():
        for part in UNTERMINATED:
            yield part

    client = make_async_client(Recorder(httpx2.Response(200, headers=SSE, content=parts())))
    stream = await client.chat.completions.create(
        model="m", messages=MESSAGES, stream=True, stream_options=ASK
    )
    chunks = [c async for c in stream]
    assert [c.usage.total_tokens if c.usage else None for c in chunks] == [None, 5]


def test_a_final_event_ending_in_one_newline_is_not_lost(make_client):
    body = sse(chunk("a")) + b"data: " + json.dumps(USAGE).encode() + b"\n"
    client = make_client(Recorder(httpx2.Response(200, headers=SSE, content=body)))
    chunks = list(
        client.chat.completions.create(model="m", messages=MESSAGES, stream=True, stream_options=ASK)
    )
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens == 5


# --- a stream that opens with the server's error generated nothing: charged nothing ---------------

LONG = [{"role": "user", "content": "word " * 2000}]


def _opens_with_error(request: httpx2.Request) -> httpx2.Response:
    body = b"data: " + _error_event(type="overloaded_error") + b"\n\n"
    return httpx2.Response(200, headers=SSE, content=body)


@pytest.mark.parametrize("budget", [None, 5.0], ids=["unbudgeted", "budgeted"])
def test_a_stream_opening_with_the_servers_error_is_charged_nothing(make_client, budget):
    client = make_client(_opens_with_error, budget_usd=budget, max_retries=0)
    stream = client.chat.completions.create(model="gpt-4.1", messages=LONG, stream=True)
    with pytest.raises(InternalServerError):
        list(stream)
    snapshot = client.usage.snapshot()
    assert snapshot.total_cost_usd == 0.0 and snapshot.reserved_usd == 0.0
    assert sum(m.prompt_tokens for m in snapshot.models.values()) == 0


async def test_an_async_stream_opening_with_the_servers_error_is_charged_nothing(make_async_client):
    client = make_async_client(_opens_with_error, budget_usd=5.0, max_retries=0)
    stream = await client.chat.completions.create(model="gpt-4.1", messages=LONG, stream=True)
    with pytest.raises(InternalServerError):
        async for _ in stream:
            pass
    snapshot = client.usage.snapshot()
    assert snapshot.total_cost_usd == 0.0 and snapshot.reserved_usd == 0.0


def test_a_stream_whose_error_comes_after_text_is_charged_what_it_generated(make_client):
    body = sse(chunk("Hello there")) + b"data: " + _error_event(type="overloaded_error") + b"\n\n"
    client = make_client(Recorder(httpx2.Response(200, headers=SSE, content=body)), max_retries=0)
    stream = client.chat.completions.create(model="gpt-4.1", messages=LONG, stream=True)
    with pytest.raises(InternalServerError):
        list(stream)
    usage = client.usage.snapshot().models["gpt-4.1"]
    assert usage.approximate_requests == 1 and usage.prompt_tokens > 2000 and usage.completion_tokens > 0
