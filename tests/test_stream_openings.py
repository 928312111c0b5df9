"""What a stream tells a feature about its opening and its cost, and what it charges when it is refused,
closed unread or read as bytes (``opening_error``, ``reported_usage``, ``refuse``, ``with_streaming_response``).

Written against mutants of ``_send/_streaming.py`` that survived ``benchmarks/mutation.sh send``; each
was checked by applying its mutant and seeing a test here fail.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from types import SimpleNamespace
from typing import Any

import httpx2
import pytest

from holyclient import APIConnectionError, AsyncClient
from holyclient._send import opening_error, reported_usage
from holyclient.testing import LocalServer
from support import BASE, chunk, sse

MESSAGES = [{"role": "user", "content": "hi"}]
CHAT = {"model": "gpt-4.1", "messages": MESSAGES, "max_tokens": 50}
USAGE = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
ERROR = {"error": {"message": "overloaded", "type": "server_error"}}


def _usage_chunk() -> dict[str, Any]:
    return chunk("", choices=[], usage=USAGE)


def _answer(body: Any) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)


def _pieces(*events: dict[str, Any] | str) -> Iterator[bytes]:
    """The events in separate reads, so that only the first is read before the stream is handed over."""
    for event in events:
        yield sse(event)


async def _apieces(*events: dict[str, Any] | str) -> AsyncIterator[bytes]:
    for event in events:
        yield sse(event)


# --- opening_error --------------------------------------------------------------------------------


def test_an_object_that_is_not_a_stream_has_no_opening_error() -> None:
    assert opening_error(object()) is None


def test_a_stream_opening_with_an_error_event_names_that_error_and_its_request(make_client: Any) -> None:
    client = make_client(lambda _: _answer(_pieces(ERROR, chunk("late"))))
    stream = client.chat.completions.create(**CHAT, stream=True)
    error = opening_error(stream)
    assert error is not None and "overloaded" in str(error)
    assert error.request is not None and str(error.request.url) == f"{BASE}/chat/completions"
    stream.close()


def test_a_stream_opening_with_text_has_no_opening_error(make_client: Any) -> None:
    client = make_client(lambda _: _answer(_pieces(chunk("Hi"), ERROR)))
    stream = client.chat.completions.create(**CHAT, stream=True)
    assert opening_error(stream) is None
    stream.close()


def test_an_opening_error_of_a_response_without_a_request_is_still_reported() -> None:
    stream = SimpleNamespace(
        _first=sse(ERROR), response=SimpleNamespace(status_code=200, headers=httpx2.Headers())
    )
    error = opening_error(stream)
    assert error is not None and "overloaded" in str(error)


# --- reported_usage -------------------------------------------------------------------------------


def test_an_object_without_a_meter_reports_no_usage() -> None:
    assert reported_usage(object()) is None


def test_the_usage_a_stream_hid_from_its_caller_is_still_reported(make_client: Any) -> None:
    client = make_client(lambda _: _answer(sse(chunk("Hi"), _usage_chunk(), "[DONE]")))
    stream = client.chat.completions.create(**CHAT, stream=True)
    assert [c.choices[0].delta.content for c in stream] == ["Hi"]  # the usage-only chunk is hidden
    usage = reported_usage(stream)
    assert usage is not None and (usage.prompt_tokens, usage.completion_tokens) == (7, 3)


# --- refuse and close -----------------------------------------------------------------------------


def test_a_refused_stream_charges_nothing_and_holds_nothing(make_client: Any) -> None:
    client = make_client(lambda _: _answer(_pieces(ERROR, chunk("late"))), budget_usd=1.0)
    stream = client.chat.completions.create(**CHAT, stream=True)
    stream.refuse()
    snapshot = client.usage.snapshot()
    assert (snapshot.reserved_usd, snapshot.uncertain_usd, snapshot.total_cost_usd) == (0.0, 0.0, 0.0)
    assert stream.response.is_closed


async def test_a_refused_async_stream_charges_nothing_and_holds_nothing(make_async_client: Any) -> None:
    client = make_async_client(lambda _: _answer(_apieces(ERROR, chunk("late"))), budget_usd=1.0)
    stream = await client.chat.completions.create(**CHAT, stream=True)
    await stream.refuse()
    snapshot = client.usage.snapshot()
    assert (snapshot.reserved_usd, snapshot.uncertain_usd, snapshot.total_cost_usd) == (0.0, 0.0, 0.0)
    assert stream.response.is_closed


async def test_an_async_stream_closed_before_its_first_read_releases_its_hold(make_async_client: Any) -> None:
    client = make_async_client(lambda _: _answer(_apieces(chunk("Hi"), chunk("there"))), budget_usd=1.0)
    stream = await client.chat.completions.create(**CHAT, stream=True)
    await stream.close()
    snapshot = client.usage.snapshot()
    assert snapshot.reserved_usd == 0.0 and snapshot.models["gpt-4.1"].requests == 1


# --- a stream read as bytes is still charged ------------------------------------------------------


def test_a_byte_stream_whose_first_event_carries_usage_is_charged_that_usage(make_client: Any) -> None:
    client = make_client(lambda _: _answer(_pieces(_usage_chunk(), "[DONE]")), budget_usd=1.0)
    with client.chat.completions.with_streaming_response.create(**CHAT, stream=True) as response:
        body = b"".join(response.iter_bytes())
    assert body == sse(_usage_chunk(), "[DONE]")
    model = client.usage.snapshot().models["gpt-4.1"]
    assert (model.prompt_tokens, model.completion_tokens, model.approximate_requests) == (7, 3, 0)


async def test_an_async_byte_stream_is_charged_the_usage_of_a_later_event(make_async_client: Any) -> None:
    client = make_async_client(
        lambda _: _answer(_apieces(chunk("Hi"), _usage_chunk(), "[DONE]")), budget_usd=1.0
    )
    async with client.chat.completions.with_streaming_response.create(**CHAT, stream=True) as response:
        body = b"".join([piece async for piece in response.iter_bytes()])
    assert body == sse(chunk("Hi"), _usage_chunk(), "[DONE]")
    model = client.usage.snapshot().models["gpt-4.1"]
    assert (model.prompt_tokens, model.completion_tokens, model.approximate_requests) == (7, 3, 0)


def test_a_byte_stream_stops_counting_at_an_error_event(make_client: Any) -> None:
    client = make_client(lambda _: _answer(_pieces(chunk("Hi"), ERROR, _usage_chunk(), "[DONE]")))
    with client.chat.completions.with_streaming_response.create(**CHAT, stream=True) as response:
        body = b"".join(response.iter_bytes())
    assert ERROR["error"]["message"].encode() in body  # the caller sees the error in the bytes
    model = client.usage.snapshot().models["gpt-4.1"]
    assert model.approximate_requests == 1  # counted locally: the usage after the error is not taken


# --- an async stream's chunks as the caller sees them ---------------------------------------------


async def test_an_async_stream_shows_the_chunks_of_every_read(make_async_client: Any) -> None:
    client = make_async_client(lambda _: _answer(_apieces(chunk("Hi"), chunk(" there"), "[DONE]")))
    stream = await client.chat.completions.create(**CHAT, stream=True)
    assert [c.choices[0].delta.content async for c in stream] == ["Hi", " there"]


async def test_an_async_stream_hides_a_last_usage_chunk_sent_without_its_blank_line(
    make_async_client: Any,
) -> None:
    async def body() -> AsyncIterator[bytes]:
        yield sse(chunk("Hi"))
        yield sse(_usage_chunk()).rstrip(b"\n")  # the body ends inside the last event

    client = make_async_client(lambda _: _answer(body()))
    stream = await client.chat.completions.create(**CHAT, stream=True)
    assert [c.choices[0].delta.content async for c in stream] == ["Hi"]
    usage = reported_usage(stream)
    assert usage is not None and usage.total_tokens == 10


async def test_an_async_stream_hides_the_usage_chunk_it_asked_for_and_still_reports_it(
    make_async_client: Any,
) -> None:
    client = make_async_client(lambda _: _answer(_apieces(chunk("Hi"), _usage_chunk(), "[DONE]")))
    stream = await client.chat.completions.create(**CHAT, stream=True)
    assert [c.choices[0].delta.content async for c in stream] == ["Hi"]
    usage = reported_usage(stream)
    assert usage is not None and usage.total_tokens == 10


def test_an_object_with_a_first_read_but_no_error_in_it_has_no_opening_error() -> None:
    assert opening_error(SimpleNamespace(_first=sse(chunk("Hi")))) is None


async def test_an_async_streams_first_event_split_across_reads_is_read_whole(make_async_client: Any) -> None:
    async def body() -> AsyncIterator[bytes]:
        first = sse(chunk("Hi"))
        yield b": PROCESSING\n\n"
        yield first[:20]
        yield first[20:]
        yield sse("[DONE]")

    client = make_async_client(lambda _: _answer(body()))
    stream = await client.chat.completions.create(**CHAT, stream=True)
    assert [c.choices[0].delta.content async for c in stream] == ["Hi"]


def test_a_stream_cut_after_its_first_chunk_says_which_request_failed(make_client: Any) -> None:
    def cut() -> Iterator[bytes]:
        yield sse(chunk("Hi"))
        raise httpx2.ReadError("reset")

    client = make_client(lambda _: _answer(cut()), max_retries=0)
    stream = client.chat.completions.create(**CHAT, stream=True)
    with pytest.raises(APIConnectionError) as failed:
        list(stream)
    assert failed.value.request is not None and str(failed.value.request.url) == f"{BASE}/chat/completions"


# --- a stream with no meter (a replayed response: its endpoint does not charge it again) ----------


async def test_an_async_replayed_response_stream_is_read_without_a_meter(local_server: LocalServer) -> None:
    async with AsyncClient(api_key="sk-t", base_url=local_server.base_url) as client:
        async with client.responses.stream(model="gpt-4.1", input="charge me once") as stream:
            response_id = (await stream.get_final_response()).id
        async with client.responses.stream(response_id=response_id, starting_after=2) as stream:
            replayed = await stream.get_final_response()
        snapshot = client.usage.snapshot()
    assert replayed.id == response_id
    assert snapshot.models["gpt-4.1"].requests == 1
