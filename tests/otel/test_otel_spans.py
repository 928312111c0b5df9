"""One GenAI span per logical call, with the conventions' attributes, for every operation, sync and async."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from opentelemetry.trace import SpanKind, StatusCode

from holyclient import APIConnectionError, BadRequestError, BudgetExceededError
from holyclient.testing import Fault, LocalServer

from .conftest import Captured, resolve

MESSAGES = [{"role": "user", "content": "hi"}]

#: operation -> (call, span name, gen_ai.operation.name)
OPERATIONS: dict[str, tuple[Callable[[Any], Any], str, str]] = {
    "chat": (
        lambda c: c.chat.completions.create(model="gpt-4.1", messages=MESSAGES),
        "chat gpt-4.1",
        "chat",
    ),
    "responses": (lambda c: c.responses.create(model="gpt-4.1", input="hi"), "chat gpt-4.1", "chat"),
    "completions": (
        lambda c: c.completions.create(model="gpt-3.5-turbo-instruct", prompt="hi"),
        "text_completion gpt-3.5-turbo-instruct",
        "text_completion",
    ),
    "embeddings": (
        lambda c: c.embeddings.create(model="text-embedding-3-small", input="hi"),
        "embeddings text-embedding-3-small",
        "embeddings",
    ),
    "images": (
        lambda c: c.images.generate(model="gpt-image-1", prompt="a cat"),
        "generate_content gpt-image-1",
        "generate_content",
    ),
    "speech": (
        lambda c: c.audio.speech.create(model="tts-1", voice="alloy", input="hi"),
        "generate_content tts-1",
        "generate_content",
    ),
    "transcription": (
        lambda c: c.audio.transcriptions.create(model="whisper-1", file=("a.wav", io.BytesIO(b"RIFF"))),
        "transcription whisper-1",
        "transcription",
    ),
    "moderations": (
        lambda c: c.moderations.create(model="omni-moderation-latest", input="hi"),
        "moderation omni-moderation-latest",
        "moderation",
    ),
}


@pytest.mark.parametrize("operation", list(OPERATIONS))
async def test_every_operation_gets_one_client_span_named_for_its_operation_and_model(
    make: Callable[..., Any], captured: Captured, server: LocalServer, mode: str, operation: str
) -> None:
    call, name, operation_name = OPERATIONS[operation]
    await resolve(call(make(mode)))
    span = captured.span()
    assert span.name == name
    assert span.kind is SpanKind.CLIENT
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.operation.name"] == operation_name
    assert attributes["gen_ai.system"] == "openai"
    assert attributes["gen_ai.request.model"] == name.split(" ")[1]
    assert attributes["server.address"] == "127.0.0.1"
    assert attributes["server.port"] == int(server.base_url.split(":")[2].split("/")[0])
    assert attributes["holyclient.attempts"] == 1
    assert span.status.status_code is StatusCode.UNSET
    (duration,) = captured.points("gen_ai.client.operation.duration")
    assert duration.count == 1
    assert duration.attributes["gen_ai.operation.name"] == operation_name


async def test_chat_span_carries_request_parameters_response_and_usage(
    make: Callable[..., Any], captured: Captured, mode: str
) -> None:
    answer = await resolve(
        make(mode).chat.completions.create(
            model="gpt-4.1",
            messages=MESSAGES,
            max_tokens=50,
            temperature=0.3,
            top_p=0.9,
            stop=["END"],
            seed=7,
            frequency_penalty=0.1,
            presence_penalty=0.2,
            n=2,
        )
    )
    attributes = dict(captured.span().attributes or {})
    assert attributes["gen_ai.request.max_tokens"] == 50
    assert attributes["gen_ai.request.temperature"] == 0.3
    assert attributes["gen_ai.request.top_p"] == 0.9
    assert attributes["gen_ai.request.stop_sequences"] == ("END",)
    assert attributes["gen_ai.request.seed"] == 7
    assert attributes["gen_ai.request.frequency_penalty"] == 0.1
    assert attributes["gen_ai.request.presence_penalty"] == 0.2
    assert attributes["gen_ai.request.choice.count"] == 2
    assert attributes["gen_ai.response.id"] == answer.id
    assert attributes["gen_ai.response.model"] == answer.model
    assert attributes["gen_ai.response.finish_reasons"] == tuple(c.finish_reason for c in answer.choices)
    assert attributes["gen_ai.usage.input_tokens"] == answer.usage.prompt_tokens
    assert attributes["gen_ai.usage.output_tokens"] == answer.usage.completion_tokens
    assert attributes["gen_ai.usage.cache_read.input_tokens"] == 0
    assert attributes["gen_ai.openai.response.system_fingerprint"] == answer.system_fingerprint
    assert attributes["holyclient.usage.count_method"] == "reported"
    assert attributes["holyclient.cost_usd"] > 0
    tokens = {p.attributes["gen_ai.token.type"]: p for p in captured.points("gen_ai.client.token.usage")}
    assert tokens["input"].sum == answer.usage.prompt_tokens
    assert tokens["output"].sum == answer.usage.completion_tokens
    for point in tokens.values():
        assert point.attributes["gen_ai.operation.name"] == "chat"
        assert point.attributes["gen_ai.response.model"] == answer.model
        assert point.attributes["server.address"] == "127.0.0.1"


async def test_retries_happen_inside_one_span_that_counts_the_attempts(
    make: Callable[..., Any], captured: Captured, server: LocalServer, mode: str
) -> None:
    server.enqueue(Fault.status(429, retry_after=0), Fault.status(503))
    await resolve(make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES))
    span = captured.span()
    assert span.attributes["holyclient.attempts"] == 3
    assert span.status.status_code is StatusCode.UNSET
    assert len(server.requests) == 3


async def test_a_status_error_sets_error_type_and_error_status(
    make: Callable[..., Any], captured: Captured, server: LocalServer, mode: str
) -> None:
    server.enqueue(Fault.status(400))
    with pytest.raises(BadRequestError):
        await resolve(make(mode).chat.completions.create(model="gpt-4.1", messages=MESSAGES))
    span = captured.span()
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes["error.type"] == "BadRequestError"
    assert span.attributes["http.response.status_code"] == 400
    (duration,) = captured.points("gen_ai.client.operation.duration")
    assert duration.attributes["error.type"] == "BadRequestError"
    assert captured.points("gen_ai.client.token.usage") == []


async def test_a_connection_error_after_every_retry_ends_the_span_in_error(
    make: Callable[..., Any], captured: Captured, server: LocalServer, mode: str
) -> None:
    server.enqueue(Fault.drop(), Fault.drop())
    with pytest.raises(APIConnectionError):
        await resolve(make(mode, max_retries=1).chat.completions.create(model="gpt-4.1", messages=MESSAGES))
    span = captured.span()
    assert span.attributes["error.type"] == "APIConnectionError"
    assert span.attributes["holyclient.attempts"] == 2
    assert span.status.status_code is StatusCode.ERROR


async def test_a_budget_refusal_is_marked_on_the_span(
    make: Callable[..., Any], captured: Captured, server: LocalServer, mode: str
) -> None:
    client = make(mode, budget_usd=0.0000001)
    with pytest.raises(BudgetExceededError):
        await resolve(client.chat.completions.create(model="gpt-4.1", messages=MESSAGES, max_tokens=4000))
    span = captured.span()
    assert span.attributes["holyclient.budget.refused"] is True
    assert span.attributes["error.type"] == "BudgetExceededError"
    assert server.requests == []


async def test_calls_that_are_no_genai_operation_get_no_span(
    make: Callable[..., Any], captured: Captured, mode: str
) -> None:
    await resolve(make(mode).models.list())
    assert captured.spans() == []


async def test_raw_responses_are_traced_like_parsed_ones(
    make: Callable[..., Any], captured: Captured, mode: str
) -> None:
    raw = await resolve(
        make(mode).chat.completions.with_raw_response.create(model="gpt-4.1", messages=MESSAGES)
    )
    assert raw.http_response.status_code == 200
    assert captured.span().attributes["gen_ai.response.model"] == "gpt-4.1"
