"""A framework's JSON schema through ``as_openai()`` on every model of the relay: a model that cannot take
``response_format`` / ``text.format`` ``json_schema`` (Claude ignores it, DeepSeek refuses it) is asked
the way ``parse()`` asks it, and the framework gets the answer in the shape it asked for; every attempt
counted and priced; the adaptation said in a header and on the span; a model that takes a JSON schema
sees exactly openai's request."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from pydantic import BaseModel

import holyclient
from holyclient._parsing import forget_learned
from holyclient.testing import LocalServer, Turn

KEY = "sk-as-openai-structured-7c1e"
HEADER = "x-holyclient-structured-output"
PROMPT = [{"role": "user", "content": "a person called Ada"}]
MODELS = {"gpt-4.1": None, "claude-sonnet-4.5": "tool", "deepseek-v3.2": "tool"}


class Person(BaseModel):
    """A person."""

    name: str
    age: int


SCHEMA = {"type": "json_schema", "json_schema": {"name": "Person", "schema": Person.model_json_schema()}}


@pytest.fixture(autouse=True)
def _nothing_learned() -> Iterator[None]:
    forget_learned()
    yield
    forget_learned()


@pytest.fixture(scope="module")
def relay() -> Iterator[LocalServer]:
    with LocalServer(profile="holysheep", api_key=KEY) as server:
        yield server


@pytest.fixture
def server(relay: LocalServer) -> LocalServer:
    relay.reset()
    return relay


_MADE: list[holyclient.Client] = []


@pytest.fixture(autouse=True)
def _closed() -> Iterator[None]:
    yield
    while _MADE:
        _MADE.pop().close()


def _client(server: LocalServer, **options: Any) -> holyclient.Client:
    client = holyclient.Client(api_key=KEY, base_url=server.base_url, **{"instrument": False, **options})
    _MADE.append(client)
    return client


def _counted_and_priced(client: Any, server: LocalServer, model: str) -> None:
    answered = [r for r in server.requests if r.status == 200]
    usage = client.usage.snapshot()
    assert usage.models[model].requests == len(answered) >= 1
    assert usage.total_cost_usd > 0 and not usage.unpriced_models


def _bodies(server: LocalServer) -> list[dict[str, Any]]:
    return [r.body for r in server.requests]


@pytest.mark.parametrize("model", sorted(MODELS))
def test_openai_s_parse_gives_a_valid_object_on_every_model(server: LocalServer, model: str) -> None:
    client = _client(server)
    raw = client.as_openai().chat.completions.with_raw_response.parse(
        model=model, messages=PROMPT, response_format=Person
    )
    completion = raw.parse()
    choice = completion.choices[0]
    assert isinstance(choice.message.parsed, Person)
    assert json.loads(choice.message.content) == choice.message.parsed.model_dump()
    assert choice.finish_reason == "stop" and not choice.message.tool_calls
    assert raw.headers.get(HEADER) == MODELS[model]  # said only when adapted
    _counted_and_priced(client, server, model)


@pytest.mark.parametrize("model", sorted(MODELS))
def test_the_async_client_adapts_the_same_way(server: LocalServer, model: str) -> None:
    async def run() -> Any:
        async with holyclient.AsyncClient(api_key=KEY, base_url=server.base_url, instrument=False) as client:
            completion = await client.as_openai().chat.completions.parse(
                model=model, messages=PROMPT, response_format=Person
            )
            return completion, client.usage.snapshot()

    completion, usage = asyncio.run(run())
    assert isinstance(completion.choices[0].message.parsed, Person)
    assert usage.models[model].requests == 1 and usage.total_cost_usd > 0


def test_a_model_that_takes_a_json_schema_gets_openai_s_request_unchanged(server: LocalServer) -> None:
    """gpt-4.1: the body the server saw is the one plain openai sends to the same server."""
    client = _client(server)
    client.as_openai().chat.completions.create(model="gpt-4.1", messages=PROMPT, response_format=SCHEMA)
    through_holyclient = _bodies(server)
    server.reset()
    with openai.OpenAI(api_key=KEY, base_url=server.base_url, max_retries=0) as plain:
        plain.chat.completions.create(model="gpt-4.1", messages=PROMPT, response_format=SCHEMA)
    assert through_holyclient == _bodies(server)


@pytest.mark.parametrize("model", ["claude-sonnet-4.5", "deepseek-v3.2"])
def test_the_model_is_asked_by_a_forced_tool_call_and_the_caller_sees_content(
    server: LocalServer, model: str
) -> None:
    client = _client(server)
    completion = client.as_openai().chat.completions.create(
        model=model, messages=PROMPT, response_format=SCHEMA
    )
    (body,) = _bodies(server)
    assert "response_format" not in body
    assert body["tool_choice"] == {"type": "function", "function": {"name": "Person"}}
    assert body["tools"][0]["function"]["parameters"] == Person.model_json_schema()
    message = completion.choices[0].message
    assert Person.model_validate_json(message.content)
    assert message.tool_calls is None and completion.choices[0].finish_reason == "stop"


@pytest.mark.parametrize("model", sorted(MODELS))
def test_a_streamed_json_schema_streams_the_object_as_content(server: LocalServer, model: str) -> None:
    client = _client(server)
    chunks = list(
        client.as_openai().chat.completions.create(
            model=model, messages=PROMPT, response_format=SCHEMA, stream=True
        )
    )
    text = "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices)
    assert Person.model_validate_json(text)
    assert all(not chunk.choices[0].delta.tool_calls for chunk in chunks if chunk.choices)
    assert chunks[-1].choices[0].finish_reason == "stop"
    _counted_and_priced(client, server, model)


@pytest.mark.parametrize("model", sorted(MODELS))
def test_openai_s_stream_helper_parses_on_every_model(server: LocalServer, model: str) -> None:
    client = _client(server)
    with client.as_openai().chat.completions.stream(
        model=model, messages=PROMPT, response_format=Person
    ) as stream:
        final = stream.get_final_completion()
    assert isinstance(final.choices[0].message.parsed, Person)
    _counted_and_priced(client, server, model)


@pytest.mark.parametrize("model", sorted(MODELS))
def test_responses_text_format_gives_a_valid_object_on_every_model(server: LocalServer, model: str) -> None:
    client = _client(server)
    sdk = client.as_openai()
    response = sdk.responses.parse(model=model, input="a person called Ada", text_format=Person)
    assert isinstance(response.output_parsed, Person)
    with sdk.responses.stream(model=model, input="a person called Ada", text_format=Person) as stream:
        streamed = stream.get_final_response()
    assert isinstance(streamed.output_parsed, Person)
    _counted_and_priced(client, server, model)


def test_a_refused_json_schema_is_learned_and_both_attempts_are_seen_and_the_answer_charged() -> None:
    with LocalServer(api_key=KEY, disabled_features={"json_schema"}) as server:
        client = _client(server)
        sdk = client.as_openai()
        first = sdk.chat.completions.parse(model="acme-1", messages=PROMPT, response_format=Person)
        second = sdk.chat.completions.parse(model="acme-1", messages=PROMPT, response_format=Person)
        statuses = [r.status for r in server.requests]
    assert isinstance(first.choices[0].message.parsed, Person)
    assert isinstance(second.choices[0].message.parsed, Person)
    assert statuses == [400, 200, 200]  # the refusal once, then the tool way for both
    assert client.usage.snapshot().models["acme-1"].requests == 2


def test_tool_modes_are_untouched(server: LocalServer) -> None:
    """A framework's own tool call (no response_format) is sent as the framework sent it."""
    tool = {
        "type": "function",
        "function": {"name": "Person", "parameters": Person.model_json_schema()},
    }
    client = _client(server)
    completion = client.as_openai().chat.completions.create(
        model="deepseek-v3.2",
        messages=PROMPT,
        tools=[tool],
        tool_choice={"type": "function", "function": {"name": "Person"}},
    )
    (body,) = _bodies(server)
    assert body["tools"] == [tool] and "response_format" not in body
    assert completion.choices[0].message.tool_calls[0].function.name == "Person"


def test_the_adapted_attempt_s_span_says_how_it_was_asked(server: LocalServer) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    client = _client(server, instrument=True, tracer_provider=provider)
    sdk = client.as_openai()
    sdk.chat.completions.parse(model="claude-sonnet-4.5", messages=PROMPT, response_format=Person)
    sdk.chat.completions.parse(model="gpt-4.1", messages=PROMPT, response_format=Person)
    spans = exporter.get_finished_spans()
    assert [span.attributes.get("holyclient.structured_output.method") for span in spans] == ["tool", None]


def test_an_answer_that_is_not_json_is_repaired_once_and_both_attempts_are_charged() -> None:
    """Scripted: Claude's first tool call carries no JSON; the repair request sends it back with what is
    wrong, and the framework gets the second answer, its usage the two attempts' together."""
    script = [Turn.tool_call("Person", "not json"), Turn.tool_call("Person", {"name": "Ada", "age": 36})]
    with LocalServer(profile="holysheep", api_key=KEY, script=script) as server:
        client = _client(server)
        completion = client.as_openai().chat.completions.parse(
            model="claude-sonnet-4.5", messages=PROMPT, response_format=Person
        )
        bodies = _bodies(server)
        snapshot = client.usage.snapshot()
    assert completion.choices[0].message.parsed == Person(name="Ada", age=36)
    assert len(bodies) == 2 and bodies[1]["messages"][-1]["role"] == "tool"  # the repair
    assert "Invalid arguments" in bodies[1]["messages"][-1]["content"]
    assert snapshot.models["claude-sonnet-4.5"].requests == 2
    assert completion.usage.prompt_tokens == snapshot.models["claude-sonnet-4.5"].prompt_tokens


def test_a_model_that_refuses_tools_too_is_asked_in_json_mode_with_the_schema_in_the_prompt() -> None:
    with LocalServer(api_key=KEY, disabled_features={"json_schema", "tools"}) as server:
        client = _client(server)
        raw = client.as_openai().chat.completions.with_raw_response.parse(
            model="acme-9", messages=PROMPT, response_format=Person
        )
        bodies = _bodies(server)
    assert isinstance(raw.parse().choices[0].message.parsed, Person)
    assert raw.headers.get(HEADER) == "json_object"
    assert [("response_format" in b, "tools" in b) for b in bodies] == [
        (True, False),
        (False, True),
        (True, False),
    ]
    assert bodies[2]["response_format"] == {"type": "json_object"}
    assert "json" in bodies[2]["messages"][0]["content"]  # the schema, and the word DeepSeek needs
