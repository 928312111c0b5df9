"""A streamed call's span lasts as long as the stream: it ends when the stream is exhausted, closed or cut,
with the usage of the final chunk and the time to the first chunk."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from opentelemetry.trace import StatusCode

from holyclient import APIConnectionError, APIStatusError, BadRequestError
from holyclient.testing import Fault, LocalServer

from .conftest import Captured, drain, resolve

MESSAGES = [{"role": "user", "content": "Tell me a long story about a cat and a dog."}]


async def test_a_stream_span_ends_when_the_stream_is_exhausted_with_the_final_chunks_usage(
    make: Callable[..., Any], captured: Captured, mode: str
) -> None:
    stream = await resolve(
        make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True)
    )
    assert captured.spans() == []  # open while the caller reads
    chunks = await drain(stream)
    span = captured.span()
    attributes = dict(span.attributes or {})
    assert span.name == "chat gpt-4.1"
    assert attributes["gen_ai.request.stream"] is True
    assert attributes["gen_ai.response.id"] == chunks[0].id
    assert attributes["gen_ai.response.model"] == "gpt-4.1"
    assert attributes["gen_ai.response.finish_reasons"] == ("stop",)
    assert attributes["gen_ai.usage.input_tokens"] > 0
    assert attributes["gen_ai.usage.output_tokens"] > 0
    assert attributes["holyclient.usage.count_method"] == "reported"
    assert attributes["holyclient.stream.outcome"] == "complete"
    assert 0 < attributes["gen_ai.response.time_to_first_chunk"] <= (span.end_time - span.start_time) / 1e9
    (first,) = captured.points("gen_ai.client.operation.time_to_first_chunk")
    assert first.count == 1 and first.attributes["gen_ai.operation.name"] == "chat"
    tokens = {p.attributes["gen_ai.token.type"]: p.sum for p in captured.points("gen_ai.client.token.usage")}
    assert tokens == {
        "input": attributes["gen_ai.usage.input_tokens"],
        "output": attributes["gen_ai.usage.output_tokens"],
    }
    (duration,) = captured.points("gen_ai.client.operation.duration")
    assert "error.type" not in duration.attributes


async def test_a_stream_closed_early_ends_its_span_with_locally_counted_usage(
    make: Callable[..., Any], captured: Captured, mode: str
) -> None:
    stream = await resolve(
        make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True)
    )
    iterator = stream.__aiter__() if mode == "async" else iter(stream)
    await resolve(iterator.__anext__() if mode == "async" else next(iterator))
    assert captured.spans() == []
    await resolve(stream.close())
    attributes = dict(captured.span().attributes or {})
    assert attributes["holyclient.stream.outcome"] == "early"
    assert attributes["holyclient.usage.count_method"] == "local"
    assert attributes["gen_ai.usage.input_tokens"] > 0


async def test_a_stream_cut_mid_way_ends_its_span_in_error(
    make: Callable[..., Any], captured: Captured, server: LocalServer, mode: str
) -> None:
    server.enqueue(Fault.stream_cut(after_chunks=2))
    stream = await resolve(
        make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True)
    )
    with pytest.raises(APIConnectionError):
        await drain(stream)
    span = captured.span()
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes["holyclient.stream.outcome"] == "unknown"
    assert span.attributes["error.type"] == "APIConnectionError"
    (duration,) = captured.points("gen_ai.client.operation.duration")
    assert duration.attributes["error.type"] == "APIConnectionError"


async def test_an_error_event_mid_stream_ends_its_span_in_error(
    make: Callable[..., Any], captured: Captured, server: LocalServer, mode: str
) -> None:
    server.enqueue(Fault.stream_error(after_chunks=2))
    stream = await resolve(
        make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True)
    )
    with pytest.raises(APIStatusError):
        await drain(stream)
    span = captured.span()
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes["error.type"] == "InternalServerError"
    assert span.attributes["http.response.status_code"] == 500


async def test_a_stream_refused_before_its_first_chunk_is_one_error_span(
    make: Callable[..., Any], captured: Captured, server: LocalServer, mode: str
) -> None:
    server.enqueue(Fault.status(400))
    with pytest.raises(BadRequestError):
        await resolve(make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True))
    span = captured.span()
    assert span.attributes["error.type"] == "BadRequestError"
    assert captured.points("gen_ai.client.operation.time_to_first_chunk") == []


async def test_a_stream_retried_before_its_first_chunk_stays_one_span(
    make: Callable[..., Any], captured: Captured, server: LocalServer, mode: str
) -> None:
    server.enqueue(Fault.status(503))
    await drain(
        await resolve(make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES, stream=True))
    )
    span = captured.span()
    assert span.attributes["holyclient.attempts"] == 2
    assert span.status.status_code is StatusCode.UNSET


async def test_a_responses_stream_reports_its_status_as_the_finish_reason(
    make: Callable[..., Any], captured: Captured, mode: str
) -> None:
    await drain(await resolve(make(mode).responses.create(model="gpt-4.1", input="hi", stream=True)))
    attributes = dict(captured.span().attributes or {})
    assert attributes["gen_ai.response.finish_reasons"] == ("completed",)
    assert attributes["gen_ai.usage.output_tokens"] > 0
    assert attributes["gen_ai.response.id"].startswith("resp")


async def test_a_streamed_transcription_ends_its_span_with_the_usage_its_last_event_reports(
    captured: Captured, mode: str
) -> None:
    """A stream its endpoint does not charge (transcriptions have no price) still ends its call's span
    when it ends, with the usage the server reported; nothing is charged."""
    import httpx2

    from holyclient import AsyncClient, Client
    from support import sse

    from .conftest import KEY

    events = [
        {"type": "transcript.text.delta", "delta": "Hello"},
        {
            "type": "transcript.text.done",
            "text": "Hello",
            "usage": {"type": "tokens", "input_tokens": 5, "output_tokens": 2, "total_tokens": 7},
        },
    ]

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse(*events))

    providers = {"tracer_provider": captured.tracer_provider, "meter_provider": captured.meter_provider}
    client: Client | AsyncClient
    if mode == "sync":
        client = Client(
            api_key=KEY, http_client=httpx2.Client(transport=httpx2.MockTransport(handler)), **providers
        )
    else:
        client = AsyncClient(
            api_key=KEY, http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)), **providers
        )
    stream = await resolve(
        client.audio.transcriptions.create(
            model="gpt-4o-mini-transcribe", file=("a.wav", b"RIFF"), stream=True
        )
    )
    assert [event.type for event in await drain(stream)] == ["transcript.text.delta", "transcript.text.done"]
    span = captured.span()
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.operation.name"] == "transcription"
    assert (attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"]) == (5, 2)
    assert attributes["holyclient.stream.outcome"] == "complete"
    # an unpriced endpoint: counted as one request of unknown cost, never as free
    snapshot = client.usage.snapshot()
    assert (
        snapshot.unpriced_models == ("<transcription>",) and snapshot.models["<transcription>"].requests == 1
    )
    assert snapshot.total_cost_usd == 0.0
    await resolve(client.close())
