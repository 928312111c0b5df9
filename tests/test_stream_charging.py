"""Streams are charged: every streamed generation is recorded in ``client.usage`` and counts against the budget."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx2
import pytest
from pydantic import BaseModel, ConfigDict

from holyclient import APIConnectionError
from holyclient._core._request import RequestOptions
from holyclient.pricing import ask_for_usage, charging_for
from holyclient.tokens import count_request, count_tokens
from support import chunk, sse

MESSAGES = [{"role": "user", "content": "Say hello to the world"}]
SERVER_USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
BODY = {"model": "gpt-4.1", "messages": MESSAGES, "max_tokens": 50}


def usage_chunk(usage: dict[str, int] = SERVER_USAGE) -> dict[str, Any]:
    return chunk("", choices=[], usage=usage)


def _wants_usage(request: httpx2.Request) -> bool:
    options = json.loads(request.content).get("stream_options")
    return isinstance(options, dict) and options.get("include_usage") is True


def chat_server(
    seen: list[dict[str, Any]], *, sends_usage: bool = True
) -> Callable[[httpx2.Request], httpx2.Response]:
    """A streaming chat endpoint that honours ``include_usage`` (unless ``sends_usage`` is False)."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content))
        events: list[dict[str, Any] | str] = [chunk("Hello"), chunk(" world")]
        if sends_usage and _wants_usage(request):
            events.append(usage_chunk())
        events.append("[DONE]")
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse(*events))

    return handler


def _stream(client: Any, **params: Any) -> Any:
    return client.chat.completions.create(
        model="gpt-4.1", messages=MESSAGES, max_tokens=50, stream=True, **params
    )


def _local_usage(text: str) -> tuple[int, int]:
    return count_request(BODY).tokens, count_tokens(text, "gpt-4.1").tokens


# --- the decision, sans-IO -------------------------------------------------------------------------


def test_usage_is_asked_for_unless_the_caller_chose_stream_options():
    chat = charging_for("POST", "/chat/completions")
    body, hide = ask_for_usage(chat, {"model": "m", "stream": True})
    assert body == {"model": "m", "stream": True, "stream_options": {"include_usage": True}} and hide
    for chosen in ({"include_usage": False}, {"include_usage": True}, None):
        original = {"model": "m", "stream_options": chosen}
        assert ask_for_usage(chat, original) == (original, False)
    assert ask_for_usage(charging_for("POST", "/completions"), {"model": "m"})[1]
    # usage always comes
    assert ask_for_usage(charging_for("POST", "/responses"), {"model": "m"}) == ({"model": "m"}, False)


# --- sync ------------------------------------------------------------------------------------------


def test_a_stream_is_charged_the_servers_usage_and_the_usage_chunk_is_hidden(make_client):
    seen: list[dict[str, Any]] = []
    client = make_client(chat_server(seen), budget_usd=1.0)
    with _stream(client) as stream:
        chunks = list(stream)
    assert seen[0]["stream_options"] == {"include_usage": True}
    assert [c.choices[0].delta.content for c in chunks] == ["Hello", " world"]
    snapshot = client.usage.snapshot()
    assert snapshot.models["gpt-4.1"].prompt_tokens == 11
    assert snapshot.models["gpt-4.1"].completion_tokens == 7
    assert snapshot.models["gpt-4.1"].approximate_requests == 0
    assert snapshot.reserved_usd == 0.0 and not snapshot.approximate


def test_three_streams_without_a_budget_are_all_recorded(make_client):
    client = make_client(chat_server([]))
    for _ in range(3):
        list(_stream(client))
    snapshot = client.usage.snapshot()
    assert snapshot.models["gpt-4.1"].requests == 3
    assert snapshot.total_cost_usd > 0


def test_a_caller_who_asked_for_usage_sees_the_usage_chunk(make_client):
    seen: list[dict[str, Any]] = []
    client = make_client(chat_server(seen), budget_usd=1.0)
    chunks = list(_stream(client, stream_options={"include_usage": True}))
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert client.usage.snapshot().models["gpt-4.1"].completion_tokens == 7


def test_a_caller_who_declined_usage_is_charged_a_local_count(make_client):
    seen: list[dict[str, Any]] = []
    client = make_client(chat_server(seen), budget_usd=1.0)
    chunks = list(_stream(client, stream_options={"include_usage": False}))
    assert seen[0]["stream_options"] == {"include_usage": False}
    assert len(chunks) == 2
    model = client.usage.snapshot().models["gpt-4.1"]
    assert (model.prompt_tokens, model.completion_tokens) == _local_usage("Hello world")
    assert model.approximate_requests == 1


def test_a_server_that_sends_no_usage_is_charged_a_local_count(make_client):
    client = make_client(chat_server([], sends_usage=False), budget_usd=1.0)
    list(_stream(client))
    snapshot = client.usage.snapshot()
    model = snapshot.models["gpt-4.1"]
    assert (model.prompt_tokens, model.completion_tokens) == _local_usage("Hello world")
    assert snapshot.approximate and snapshot.reserved_usd == 0.0 and snapshot.total_cost_usd > 0


def test_a_stream_left_early_is_charged_what_was_seen(make_client):
    client = make_client(chat_server([]), budget_usd=1.0)
    with _stream(client) as stream:
        for _ in stream:
            break
    model = client.usage.snapshot().models["gpt-4.1"]
    assert (model.prompt_tokens, model.completion_tokens) == _local_usage("Hello")
    assert model.approximate_requests == 1
    assert client.usage.snapshot().reserved_usd == 0.0


def test_a_stream_closed_before_reading_is_charged_its_prompt(make_client):
    client = make_client(chat_server([]), budget_usd=1.0)
    _stream(client).close()
    model = client.usage.snapshot().models["gpt-4.1"]
    assert (model.prompt_tokens, model.completion_tokens) == (_local_usage("")[0], 0)


def test_a_dropped_connection_mid_stream_keeps_the_reservation_as_uncertain(make_client):
    def parts() -> Iterator[bytes]:
        yield sse(chunk("Hello"))
        raise httpx2.ReadError("connection reset")

    client = make_client(lambda _: httpx2.Response(200, content=parts()), budget_usd=1.0)
    stream = _stream(client)
    held = client.usage.snapshot().reserved_usd
    with pytest.raises(APIConnectionError):
        list(stream)
    snapshot = client.usage.snapshot()
    assert snapshot.reserved_usd == 0.0
    assert snapshot.uncertain_usd == pytest.approx(held) == pytest.approx(snapshot.total_cost_usd)
    assert snapshot.models["gpt-4.1"].uncertain_requests == 1


# --- other streaming endpoints, through the one stream path ----------------------------------------


class Event(BaseModel):
    model_config = ConfigDict(extra="allow")


def test_a_legacy_completions_stream_is_charged_and_its_usage_chunk_hidden(make_client):
    def handler(request: httpx2.Request) -> httpx2.Response:
        assert _wants_usage(request)
        text = {
            "id": "c",
            "object": "text_completion",
            "model": "gpt-4.1",
            "choices": [{"index": 0, "text": "Hi"}],
        }
        last = {
            "id": "c",
            "object": "text_completion",
            "model": "gpt-4.1",
            "choices": [],
            "usage": SERVER_USAGE,
        }
        return httpx2.Response(200, content=sse(text, last, "[DONE]"))

    client = make_client(handler, budget_usd=1.0)
    body = {"model": "gpt-4.1", "prompt": "Say hi", "max_tokens": 5, "stream": True}
    events = list(client._stream(RequestOptions("POST", "/completions", body=body, stream=True), Event))
    assert len(events) == 1
    assert client.usage.snapshot().models["gpt-4.1"].completion_tokens == 7


def test_a_responses_stream_is_charged_from_its_completed_event(make_client):
    def handler(request: httpx2.Request) -> httpx2.Response:
        assert "stream_options" not in json.loads(request.content)
        delta = {"type": "response.output_text.delta", "delta": "Hi"}
        usage = {"input_tokens": 9, "output_tokens": 3, "total_tokens": 12}
        done = {"type": "response.completed", "response": {"model": "gpt-4.1", "usage": usage}}
        return httpx2.Response(200, content=sse(delta, done))

    client = make_client(handler, budget_usd=1.0)
    body = {"model": "gpt-4.1", "input": "Say hi", "max_output_tokens": 5, "stream": True}
    events = list(client._stream(RequestOptions("POST", "/responses", body=body, stream=True), Event))
    assert len(events) == 2
    model = client.usage.snapshot().models["gpt-4.1"]
    assert (model.prompt_tokens, model.completion_tokens, model.approximate_requests) == (9, 3, 0)


# --- async -----------------------------------------------------------------------------------------


async def test_an_async_stream_is_charged_the_servers_usage(make_async_client):
    client = make_async_client(chat_server([]), budget_usd=1.0)
    chunks = [c async for c in await _stream(client)]
    assert len(chunks) == 2
    model = client.usage.snapshot().models["gpt-4.1"]
    assert (model.prompt_tokens, model.completion_tokens, model.approximate_requests) == (11, 7, 0)
    await client.close()


async def test_an_async_stream_left_early_is_charged_what_was_seen(make_async_client):
    client = make_async_client(chat_server([]), budget_usd=1.0)
    async with await _stream(client) as stream:
        async for _ in stream:
            break
    model = client.usage.snapshot().models["gpt-4.1"]
    assert (model.prompt_tokens, model.completion_tokens) == _local_usage("Hello")
    assert client.usage.snapshot().reserved_usd == 0.0
    await client.close()


async def test_an_async_stream_from_a_server_without_usage_is_charged_a_local_count(make_async_client):
    client = make_async_client(chat_server([], sends_usage=False), budget_usd=1.0)
    [c async for c in await _stream(client)]
    model = client.usage.snapshot().models["gpt-4.1"]
    assert (model.prompt_tokens, model.completion_tokens) == _local_usage("Hello world")
    assert model.approximate_requests == 1
    await client.close()


async def test_an_async_dropped_connection_mid_stream_is_uncertain(make_async_client):
    async def parts() -> AsyncIterator[bytes]:
        yield sse(chunk("Hello"))
        raise httpx2.ReadError("connection reset")

    client = make_async_client(lambda _: httpx2.Response(200, content=parts()), budget_usd=1.0)
    stream = await _stream(client)
    with pytest.raises(APIConnectionError):
        [c async for c in stream]
    snapshot = client.usage.snapshot()
    assert snapshot.reserved_usd == 0.0 and snapshot.uncertain_usd > 0
    await client.close()


def test_a_responses_stream_without_usage_counts_its_text_not_its_base64_audio(make_client):
    """Left without usage, a stream is counted locally from its generated text; a Responses stream's
    ``response.audio.delta`` carries base64 audio, which is not text (the endpoint declares which
    events are)."""
    audio = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=" * 50

    def handler(request: httpx2.Request) -> httpx2.Response:
        events = [
            {"type": "response.output_text.delta", "delta": "Hello world"},
            {"type": "response.audio.delta", "delta": audio},
            {"type": "response.audio.transcript.delta", "delta": " again"},
        ]
        return httpx2.Response(200, content=sse(*events))

    client = make_client(handler, budget_usd=1.0)
    body = {"model": "gpt-4.1", "input": "Say hi", "max_output_tokens": 5, "stream": True}
    list(client._stream(RequestOptions("POST", "/responses", body=body, stream=True), Event))
    model = client.usage.snapshot().models["gpt-4.1"]
    assert model.approximate_requests == 1
    assert model.completion_tokens == count_tokens("Hello world again", "gpt-4.1").tokens


# --- what the chunks themselves say ------------------------------------------------------------------


def _serve(*events: dict[str, Any] | str) -> Callable[[httpx2.Request], httpx2.Response]:
    return lambda _: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse(*events))


def test_a_stream_is_charged_under_the_model_its_chunks_name(make_client):
    """A relay answers with the dated snapshot it ran: the usage is kept under that name."""
    snapshot = "gpt-4.1-2025-04-14"
    reported = make_client(
        _serve(
            chunk("Hi", model=snapshot), chunk("", model=snapshot, choices=[], usage=SERVER_USAGE), "[DONE]"
        )
    )
    list(_stream(reported))
    assert list(reported.usage.snapshot().models) == [snapshot]


def test_chunks_carry_no_usage_key_the_caller_did_not_ask_for(make_client):
    """Asked for usage, the server sets ``"usage": null`` on every chunk: the caller, who did not ask,
    sees chunks that dump as openai's do (no ``usage`` key); a caller who asked keeps it."""
    events = [chunk("Hi", usage=None), chunk("", choices=[], usage=SERVER_USAGE), "[DONE]"]
    client = make_client(_serve(*events))
    [hidden] = list(_stream(client))
    assert "usage" not in hidden.to_dict()
    asked = list(_stream(make_client(_serve(*events)), stream_options={"include_usage": True}))
    assert "usage" in asked[0].to_dict()


def test_a_legacy_completion_stream_without_usage_counts_every_choices_text(make_client):
    text = {
        "id": "c",
        "object": "text_completion",
        "created": 1,
        "model": "gpt-4.1",
        "choices": [
            {"index": 0, "text": "Hello", "finish_reason": None, "logprobs": None},
            {"index": 1, "text": " world", "finish_reason": None, "logprobs": None},
        ],
    }
    client = make_client(_serve(text, "[DONE]"))
    list(
        client.completions.create(
            model="gpt-4.1", prompt="Say hi", n=2, stream=True, stream_options={"include_usage": False}
        )
    )
    model = client.usage.snapshot().models["gpt-4.1"]
    assert (model.approximate_requests, model.completion_tokens) == (
        1,
        count_tokens("Hello world", "gpt-4.1").tokens,
    )


def test_a_chat_stream_without_usage_counts_refusals_and_tool_calls_as_generated_text(make_client):
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":'},
    }
    more = {"index": 0, "function": {"arguments": '"Paris"}'}}
    events = [
        chunk("", choices=[{"index": 0, "delta": {"refusal": "I can't"}, "finish_reason": None}]),
        chunk("", choices=[{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]),
        chunk("", choices=[{"index": 0, "delta": {"tool_calls": [more]}, "finish_reason": None}]),
        chunk("", choices=[], prompt_filter_results=[]),  # Azure's opening chunk: no choices, no usage
        "[DONE]",
    ]
    client = make_client(_serve(*events))
    list(_stream(client, stream_options={"include_usage": False}))
    text = "I can'tget_weather" + '{"city":"Paris"}'
    model = client.usage.snapshot().models["gpt-4.1"]
    assert (model.approximate_requests, model.completion_tokens) == (1, count_tokens(text, "gpt-4.1").tokens)


def test_a_responses_stream_is_charged_under_the_model_its_final_event_names(make_client):
    usage = {"input_tokens": 9, "output_tokens": 3, "total_tokens": 12}
    done = {"type": "response.completed", "response": {"model": "gpt-4.1-2025-04-14", "usage": usage}}
    client = make_client(_serve({"type": "response.output_text.delta", "delta": "Hi"}, done))
    body = {"model": "gpt-4.1", "input": "Say hi", "max_output_tokens": 5, "stream": True}
    list(client._stream(RequestOptions("POST", "/responses", body=body, stream=True), Event))
    assert list(client.usage.snapshot().models) == ["gpt-4.1-2025-04-14"]
    # a response that failed without usage is counted locally, still under the model it names
    failed = {"type": "response.failed", "response": {"model": "gpt-4.1-2025-04-14", "usage": None}}
    counted = make_client(_serve({"type": "response.output_text.delta", "delta": "Hi"}, failed))
    list(counted._stream(RequestOptions("POST", "/responses", body=body, stream=True), Event))
    model = counted.usage.snapshot().models["gpt-4.1-2025-04-14"]
    assert (model.approximate_requests, model.completion_tokens) == (1, count_tokens("Hi", "gpt-4.1").tokens)


def test_a_stream_of_loosely_typed_events_missing_fields_is_still_charged(make_client):
    """``client.post(..., stream=True, cast_to=...)`` with the caller's own model: a usage chunk without a
    ``model`` is charged under the request's model, a final event without its ``response`` is counted
    locally."""
    usage_only = {"choices": [], "usage": SERVER_USAGE}  # no "model"
    client = make_client(_serve(usage_only, "[DONE]"))
    body = {
        "model": "gpt-4.1",
        "messages": MESSAGES,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    list(client.post("/chat/completions", body=body, cast_to=Event, stream=True))
    assert client.usage.snapshot().models["gpt-4.1"].completion_tokens == 7
    bare = make_client(
        _serve(
            {"type": "response.output_text.delta", "delta": "Hi"},
            {"type": "response.output_text.delta"},  # no delta
            {"type": "response.completed"},  # no response
        )
    )
    body = {"model": "gpt-4.1", "input": "Say hi", "max_output_tokens": 5, "stream": True}
    list(bare.post("/responses", body=body, cast_to=Event, stream=True))
    model = bare.usage.snapshot().models["gpt-4.1"]
    assert (model.approximate_requests, model.completion_tokens) == (1, count_tokens("Hi", "gpt-4.1").tokens)


def test_a_stream_parsed_into_the_callers_own_chunk_model_is_counted_from_the_fields_it_has(make_client):
    """A caller's chunk model may leave out fields openai's has (here the delta has only a role): what
    is missing is no text, and the stream is still counted locally."""

    class Delta(BaseModel):
        role: str | None = None

    class Choice(BaseModel):
        delta: Delta

    class Chunk(BaseModel):
        choices: list[Choice]

    events = [{"choices": [{"delta": {"role": "assistant"}}]}, "[DONE]"]
    client = make_client(_serve(*events))
    body = {
        "model": "gpt-4.1",
        "messages": MESSAGES,
        "stream": True,
        "stream_options": {"include_usage": False},
    }
    assert len(list(client.post("/chat/completions", body=body, cast_to=Chunk, stream=True))) == 1
    model = client.usage.snapshot().models["gpt-4.1"]
    assert (model.approximate_requests, model.completion_tokens) == (1, 0)
