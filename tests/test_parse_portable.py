"""``parse()`` and ``stream()`` with a format on every model, against the relay profile of the local server:
DeepSeek refuses a JSON schema, so the answer is asked by a forced tool call, validated, and says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import holyclient
from holyclient import Router, Target
from holyclient._parsing import forget_learned
from holyclient.testing import LocalServer

KEY = "sk-parse-portable"
DEEPSEEK = "deepseek-v3.2"


class City(BaseModel):
    """A city and its country."""

    name: str
    country: str
    population: int


MESSAGES = [{"role": "user", "content": "Paris"}]


@pytest.fixture(autouse=True)
def _nothing_learned() -> Any:
    forget_learned()
    yield
    forget_learned()


@pytest.fixture
def relay() -> Any:
    with LocalServer(profile="holysheep", api_key=KEY) as server:
        yield server


def _client(server: LocalServer) -> holyclient.Client:
    return holyclient.Client(base_url=server.base_url, api_key=KEY, max_retries=0)


def _async_client(server: LocalServer) -> holyclient.AsyncClient:
    return holyclient.AsyncClient(base_url=server.base_url, api_key=KEY, max_retries=0)


def _bodies(server: LocalServer) -> list[dict[str, Any]]:
    return [r.body for r in server.requests if r.method == "POST"]


def _assert_city(parsed: Any) -> None:
    assert isinstance(parsed, City) and parsed.name == "Paris"


def _assert_by_tool(result: Any) -> None:
    info = result.structured_output
    assert info is not None and info.method == "tool" and not info.repaired
    assert [(a.method, a.outcome) for a in info.attempts] == [("tool", "answered")]
    assert info.attempts[0].usage is not None and info.attempts[0].cost_usd > 0


# -- chat -------------------------------------------------------------------------------------------
def test_chat_parse_on_deepseek_asks_by_a_forced_tool_and_reads_as_a_json_schema_answer(relay: Any) -> None:
    with _client(relay) as client:
        completion = client.chat.completions.parse(model=DEEPSEEK, messages=MESSAGES, response_format=City)
        total = client.usage.total_cost_usd
    message = completion.choices[0].message
    _assert_city(message.parsed)
    assert json.loads(message.content) == message.parsed.model_dump()
    assert message.tool_calls is None and completion.choices[0].finish_reason == "stop"
    _assert_by_tool(completion)
    assert completion.structured_output.cost_usd == pytest.approx(total)  # what the client charged
    (body,) = _bodies(relay)  # one request: the table says DeepSeek cannot take a JSON schema
    assert "response_format" not in body
    assert body["tool_choice"] == {"type": "function", "function": {"name": "City"}}
    assert body["tools"][0]["function"]["strict"] is True


async def test_async_chat_parse_on_deepseek_is_validated_as_the_sync_one(relay: Any) -> None:
    async with _async_client(relay) as client:
        completion = await client.chat.completions.parse(
            model=DEEPSEEK, messages=MESSAGES, response_format=City
        )
    _assert_city(completion.choices[0].message.parsed)
    _assert_by_tool(completion)


def test_chat_stream_on_deepseek_streams_the_tool_answer_as_content(relay: Any) -> None:
    with (
        _client(relay) as client,
        client.chat.completions.stream(model=DEEPSEEK, messages=MESSAGES, response_format=City) as stream,
    ):
        events = list(stream)
        final = stream.get_final_completion()
    kinds = {event.type for event in events}
    assert {"content.delta", "content.done"} <= kinds and not any(k.startswith("tool_calls") for k in kinds)
    done = next(event for event in events if event.type == "content.done")
    _assert_city(done.parsed)
    _assert_city(final.choices[0].message.parsed)
    assert final.choices[0].message.tool_calls is None and final.choices[0].finish_reason == "stop"
    _assert_by_tool(final)  # the attempt's usage and cost known ...
    # ... without showing the caller the usage-only chunk it did not ask for (as openai shows none)
    assert all(event.chunk.choices for event in events if event.type == "chunk")
    assert final.usage is None
    assert _bodies(relay)[-1]["stream_options"] == {"include_usage": True}  # holyclient asked, and hid it


async def test_async_chat_stream_on_deepseek(relay: Any) -> None:
    async with (
        _async_client(relay) as client,
        client.chat.completions.stream(model=DEEPSEEK, messages=MESSAGES, response_format=City) as stream,
    ):
        final = await stream.get_final_completion()
    _assert_city(final.choices[0].message.parsed)
    _assert_by_tool(final)


# -- Responses --------------------------------------------------------------------------------------
def test_responses_parse_on_deepseek_turns_the_tool_call_into_an_output_message(relay: Any) -> None:
    with _client(relay) as client:
        response = client.responses.parse(model=DEEPSEEK, input="Paris", text_format=City)
    _assert_city(response.output_parsed)
    assert json.loads(response.output_text) == response.output_parsed.model_dump()
    assert [item.type for item in response.output] == ["message"]
    _assert_by_tool(response)
    (body,) = _bodies(relay)
    assert body["tool_choice"] == {"type": "function", "name": "City"} and "text" not in body


async def test_async_responses_parse_on_deepseek(relay: Any) -> None:
    async with _async_client(relay) as client:
        response = await client.responses.parse(model=DEEPSEEK, input="Paris", text_format=City)
    _assert_city(response.output_parsed)
    _assert_by_tool(response)


def test_responses_stream_on_deepseek_streams_output_text_events(relay: Any) -> None:
    with (
        _client(relay) as client,
        client.responses.stream(model=DEEPSEEK, input="Paris", text_format=City) as stream,
    ):
        events = list(stream)
        final = stream.get_final_response()
    kinds = [event.type for event in events]
    assert "response.output_text.delta" in kinds and "response.function_call_arguments.delta" not in kinds
    done = next(event for event in events if event.type == "response.output_text.done")
    _assert_city(done.parsed)
    _assert_city(final.output_parsed)
    _assert_by_tool(final)


async def test_async_responses_stream_on_deepseek(relay: Any) -> None:
    async with (
        _async_client(relay) as client,
        client.responses.stream(model=DEEPSEEK, input="Paris", text_format=City) as stream,
    ):
        final = await stream.get_final_response()
    _assert_city(final.output_parsed)
    _assert_by_tool(final)


# -- every family of the relay ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("model", "method"),
    [
        ("claude-sonnet-4.5", "tool"),
        ("gemini-2.5-flash", "json_schema"),
        # no source says how the reasoner answers a JSON schema: asked first, and the stand-in takes it
        ("deepseek-reasoner", "json_schema"),
    ],
)
def test_each_family_is_asked_the_way_it_can_answer(relay: Any, model: str, method: str) -> None:
    with _client(relay) as client:
        completion = client.chat.completions.parse(model=model, messages=MESSAGES, response_format=City)
        response = client.responses.parse(model=model, input="Paris", text_format=City)
    _assert_city(completion.choices[0].message.parsed)
    _assert_city(response.output_parsed)
    assert completion.structured_output.method == response.structured_output.method == method


def test_a_json_schema_model_keeps_openais_one_request_and_no_fallback() -> None:
    with LocalServer(api_key=KEY, disabled_features={"json_schema"}) as server, _client(server) as client:
        with pytest.raises(holyclient.BadRequestError):
            client.chat.completions.parse(model="gpt-4.1", messages=MESSAGES, response_format=City)
        assert len(server.requests) == 1


# -- learned from the 400, and read from doctor's file -----------------------------------------------
def test_a_refused_json_schema_is_learned_once_per_model_and_the_tool_is_asked_next() -> None:
    with LocalServer(api_key=KEY, disabled_features={"json_schema"}) as server, _client(server) as client:
        first = client.chat.completions.parse(model="acme-1", messages=MESSAGES, response_format=City)
        second = client.chat.completions.parse(model="acme-1", messages=MESSAGES, response_format=City)
        bodies = _bodies(server)
    _assert_city(first.choices[0].message.parsed)
    assert next((a.method, a.outcome, a.cost_usd) for a in first.structured_output.attempts) == (
        "json_schema",
        "rejected",
        0.0,
    )
    assert [a.method for a in second.structured_output.attempts] == ["tool"]
    assert ["response_format" in b for b in bodies] == [True, False, False]
    assert [r.status for r in server.requests] == [400, 200, 200]


async def test_the_async_client_learns_the_same_way() -> None:
    with LocalServer(api_key=KEY, disabled_features={"json_schema"}) as server:
        async with _async_client(server) as client:
            response = await client.responses.parse(model="acme-1", input="Paris", text_format=City)
            again = await client.responses.parse(model="acme-1", input="Paris", text_format=City)
    _assert_city(response.output_parsed)
    assert [a.outcome for a in response.structured_output.attempts] == ["rejected", "answered"]
    assert [a.method for a in again.structured_output.attempts] == ["tool"]


def test_a_stream_falls_back_at_its_opening_too() -> None:
    with (
        LocalServer(api_key=KEY, disabled_features={"json_schema"}) as server,
        _client(server) as client,
        client.chat.completions.stream(model="acme-1", messages=MESSAGES, response_format=City) as stream,
    ):
        final = stream.get_final_completion()
    _assert_city(final.choices[0].message.parsed)
    assert [(a.method, a.outcome) for a in final.structured_output.attempts] == [
        ("json_schema", "rejected"),
        ("tool", "answered"),
    ]


async def test_an_async_responses_stream_falls_back_at_its_opening_too() -> None:
    with LocalServer(api_key=KEY, disabled_features={"json_schema"}) as server:
        async with (
            _async_client(server) as client,
            client.responses.stream(model="acme-1", input="Paris", text_format=City) as stream,
        ):
            final = await stream.get_final_response()
    _assert_city(final.output_parsed)
    assert [(a.method, a.outcome) for a in final.structured_output.attempts] == [
        ("json_schema", "rejected"),
        ("tool", "answered"),
    ]


def test_a_router_learns_behind_its_model_map(relay: Any) -> None:
    target = Target(relay.base_url, api_key=KEY, model_map={"house-json": DEEPSEEK})
    with Router([target], max_retries=0) as router:
        completion = router.chat.completions.parse(
            model="house-json", messages=MESSAGES, response_format=City
        )
    _assert_city(completion.choices[0].message.parsed)
    assert [a.outcome for a in completion.structured_output.attempts] == ["rejected", "answered"]


def test_doctors_capabilities_file_is_read_by_the_client_and_the_router(
    relay: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from holyclient._cli import main

    path = tmp_path / "capabilities.json"
    argv = ["doctor", "--base-url", relay.base_url, "--api-key", KEY, "--json", "--model", DEEPSEEK]
    assert main([*argv, "--save-capabilities", str(path)]) == 0
    saved = json.loads(path.read_text())["models"][DEEPSEEK]
    assert saved["json_schema"] is False and saved["tools"] is True and saved["json_object"] is True
    # this relay's DeepSeek cannot call tools today: JSON mode is asked from the first request
    saved["tools"] = False
    path.write_text(json.dumps({"models": {DEEPSEEK: saved}}))
    monkeypatch.setenv("HOLYSHEEP_CAPABILITIES", str(path))
    relay.reset()
    with _client(relay) as client:
        completion = client.chat.completions.parse(model=DEEPSEEK, messages=MESSAGES, response_format=City)
        response = client.responses.parse(model=DEEPSEEK, input="Paris", text_format=City)
    with Router([Target(relay.base_url, api_key=KEY)], max_retries=0) as router:
        routed = router.chat.completions.parse(model=DEEPSEEK, messages=MESSAGES, response_format=City)
    for result in (completion, routed):
        _assert_city(result.choices[0].message.parsed)
        assert result.structured_output.method == "json_object"
    _assert_city(response.output_parsed)
    assert response.structured_output.method == "json_object"
    body, sent = _bodies(relay)[:2]
    assert body["response_format"] == {"type": "json_object"} and "tools" not in body
    assert "json" in body["messages"][0]["content"] and '"population"' in body["messages"][0]["content"]
    assert sent["text"] == {"format": {"type": "json_object"}} and "json" in sent["instructions"]


def test_a_capabilities_file_that_is_not_one_is_named_in_the_error(
    relay: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "capabilities.json"
    path.write_text("[1, 2]")
    monkeypatch.setenv("HOLYSHEEP_CAPABILITIES", str(path))
    with _client(relay) as client, pytest.raises(holyclient.ConfigurationError, match=r"capabilities\.json"):
        client.chat.completions.parse(model=DEEPSEEK, messages=MESSAGES, response_format=City)
    assert relay.requests == []
