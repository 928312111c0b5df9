"""The Responses helpers, differentially: ``responses.stream()``, ``responses.parse()`` and
``responses.input_tokens.count()`` through openai and holyclient on the local server."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from pydantic import BaseModel

import holyclient
from differential.conftest import Differential
from holyclient.testing import LocalServer


class Answer(BaseModel):
    text: str
    words: list[str]


class GetWeather(BaseModel):
    city: str


WEATHER_TOOL = {
    "type": "function",
    "name": "get_weather",
    "strict": True,
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
}


def _value(value: Any) -> Any:
    """A parsed value as ``[class name, data]``, so that the class is compared too."""
    return [type(value).__name__, value.model_dump() if isinstance(value, BaseModel) else value]


def response_data(response: Any) -> dict[str, Any]:
    """A (parsed) response as data: ``parsed`` / ``parsed_arguments`` with their class, and ``output_parsed``."""
    data: dict[str, Any] = response.model_dump(mode="json", exclude_unset=True, by_alias=True, warnings=False)
    for i, item in enumerate(response.output):
        if item.type == "message":
            for j, part in enumerate(item.content):
                if part.type == "output_text":
                    data["output"][i]["content"][j]["parsed"] = _value(part.parsed)
        elif item.type == "function_call":
            data["output"][i]["parsed_arguments"] = _value(item.parsed_arguments)
    data["output_parsed"] = _value(response.output_parsed)
    data["output_text"] = response.output_text
    return data


def event_data(event: Any) -> dict[str, Any]:
    """A helper event as data: its class name, every field set, parsed values with their class."""
    data: dict[str, Any] = event.model_dump(mode="json", exclude_unset=True, by_alias=True, warnings=False)
    if event.type == "response.output_text.done" and hasattr(event, "parsed"):  # the helper's event
        data["parsed"] = _value(event.parsed)
    if event.type == "response.completed" and hasattr(event.response, "output_parsed"):  # the helper's
        data["response"] = response_data(event.response)
    return {"class": type(event).__name__, **data}


def _summary(stream: Any) -> dict[str, Any]:
    events = [event_data(event) for event in stream]
    return {"events": events, "final": response_data(stream.get_final_response())}


def test_stream_helper_text_events_and_final_response_match_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.responses.stream(model="gpt-4.1", input="tell me a story") as stream:
            return _summary(stream)

    _theirs, ours = differential.check(app)
    deltas = [e for e in ours.result["events"] if e["type"] == "response.output_text.delta"]
    assert deltas[-1]["snapshot"] == "Echo: tell me a story"
    assert ours.requests[0]["body"]["stream"] is True
    assert "stream_options" not in ours.requests[0]["body"]  # nothing added to a Responses stream


def test_stream_helper_text_format_parses_the_done_event_and_final_response(
    differential: Differential,
) -> None:
    def app(c: Any) -> Any:
        with c.responses.stream(model="gpt-4.1", input="a structured answer", text_format=Answer) as stream:
            return _summary(stream)

    _theirs, ours = differential.check(app)
    assert ours.result["final"]["output_parsed"][0] == "Answer"
    done = [e for e in ours.result["events"] if e["type"] == "response.output_text.done"]
    assert done[0]["parsed"][0] == "Answer"


def test_stream_helper_function_call_argument_deltas_match_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.responses.stream(model="gpt-4.1", input="call get_weather", tools=[WEATHER_TOOL]) as stream:
            return _summary(stream)

    _theirs, ours = differential.check(app)
    snapshots = [e["snapshot"] for e in ours.result["events"] if "snapshot" in e]
    assert snapshots[-1] == '{"city": "call get_weather"}'
    assert ours.result["final"]["output"][0]["parsed_arguments"] == ["dict", {"city": "call get_weather"}]


def test_stream_helper_until_done_then_final_response_matches_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with c.responses.stream(model="gpt-4.1", input="wait for it") as stream:
            return response_data(stream.until_done().get_final_response())

    differential.check(app)


def test_stream_helper_without_model_refuses_before_sending(differential: Differential) -> None:
    differential.check(lambda c: repr(_raises(lambda: c.responses.stream(input="no model"))))
    assert differential.server.requests == []


def _raises(call: Any) -> Exception:
    try:
        call()
    except Exception as exc:  # the exception is the result being compared
        return type(exc)(*exc.args)
    raise AssertionError("no exception")


def test_parse_text_format_gives_output_parsed_as_openai(differential: Differential) -> None:
    _theirs, ours = differential.check(
        lambda c: response_data(c.responses.parse(model="gpt-4.1", input="parse me", text_format=Answer))
    )
    assert ours.result["output_parsed"] == ["Answer", {"text": "parse me", "words": ["parse me"]}]
    assert ours.requests[0]["body"]["text"]["format"]["strict"] is True


def test_parse_decodes_strict_and_pydantic_function_tool_arguments_as_openai(
    differential: Differential,
) -> None:
    def app(c: Any) -> Any:
        tool = (
            holyclient if isinstance(c, holyclient.Client) else __import__("openai")
        ).pydantic_function_tool
        return [
            response_data(c.responses.parse(model="gpt-4.1", input="use get_weather", tools=[WEATHER_TOOL])),
            response_data(
                c.responses.parse(model="gpt-4.1", input="use GetWeather", tools=[tool(GetWeather)])
            ),
        ]

    _theirs, ours = differential.check(app)
    assert ours.result[1]["output"][0]["parsed_arguments"] == ["GetWeather", {"city": "use GetWeather"}]


def test_parse_refuses_text_format_together_with_text_format_field(differential: Differential) -> None:
    differential.check(
        lambda c: repr(
            _raises(
                lambda: c.responses.parse(
                    model="gpt-4.1", input="x", text_format=Answer, text={"format": {"type": "text"}}
                )
            )
        )
    )


async def test_async_stream_helper_and_parse_match_openai(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        async with c.responses.stream(
            model="gpt-4.1", input="call get_weather", tools=[WEATHER_TOOL]
        ) as stream:
            events = [event_data(event) async for event in stream]
            final = response_data(await stream.get_final_response())
        parsed = await c.responses.parse(model="gpt-4.1", input="parse async", text_format=Answer)
        return {"events": events, "final": final, "parsed": response_data(parsed)}

    await differential.acheck(app)


def test_input_tokens_count_served_by_the_server_matches_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        return c.responses.input_tokens.count(model="gpt-4.1", input="count these tokens please")

    _theirs, ours = differential.check(app)
    assert ours.raw_result.source == "server"


def test_input_tokens_count_falls_back_to_the_local_counter_when_the_server_lacks_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with (
        LocalServer(disabled_features=frozenset({"input_tokens"})) as server,
        holyclient.Client(api_key="sk-x", base_url=server.base_url, max_retries=0) as client,
    ):
        with caplog.at_level(logging.INFO, logger="holyclient"):
            result = client.responses.input_tokens.count(model="gpt-4o", input="count these tokens please")
        expected = holyclient.count_request({"model": "gpt-4o", "input": "count these tokens please"})
        assert (result.input_tokens, result.source, result.object) == (
            expected.tokens,
            "local",
            "response.input_tokens",
        )
        assert "local count" in caplog.text
        assert [r.path for r in server.requests] == ["/v1/responses/input_tokens"]


async def test_async_input_tokens_count_falls_back_and_says_so() -> None:
    with LocalServer(disabled_features=frozenset({"input_tokens"})) as server:
        async with holyclient.AsyncClient(api_key="sk-x", base_url=server.base_url, max_retries=0) as client:
            result = await client.responses.input_tokens.count(
                model="gpt-4o", input=[{"role": "user", "content": "hi"}]
            )
    assert result.source == "local"
    assert result.input_tokens > 0


def test_input_tokens_count_without_input_raises_the_servers_error() -> None:
    with (
        LocalServer(disabled_features=frozenset({"input_tokens"})) as server,
        holyclient.Client(api_key="sk-x", base_url=server.base_url, max_retries=0) as client,
        pytest.raises(holyclient.NotFoundError),
    ):
        client.responses.input_tokens.count(model="gpt-4o", previous_response_id="resp_1")


def test_parse_with_raw_response_decodes_the_wrapped_answer_as_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        raw = c.responses.with_raw_response.parse(model="gpt-4.1", input="raw parse", text_format=Answer)
        chat = c.chat.completions.with_raw_response.parse(
            model="gpt-4.1", messages=[{"role": "user", "content": "raw chat"}], response_format=Answer
        )
        return {
            "status": raw.status_code,
            "response": response_data(raw.parse()),
            "chat_parsed": _value(chat.parse().choices[0].message.parsed),
        }

    _theirs, ours = differential.check(app)
    assert ours.result["chat_parsed"][0] == "Answer"


async def test_async_parse_with_raw_response_decodes_the_wrapped_answer(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        raw = await c.responses.with_raw_response.parse(
            model="gpt-4.1", input="raw parse", text_format=Answer
        )
        chat = await c.chat.completions.with_raw_response.parse(
            model="gpt-4.1", messages=[{"role": "user", "content": "raw chat"}], response_format=Answer
        )
        return [response_data(raw.parse()), _value(chat.parse().choices[0].message.parsed)]

    await differential.acheck(app)


def _background_then_resume(c: Any) -> Any:
    """openai's ``examples/responses/background_streaming.py``: break off a stream, resume it by id."""
    seen, response_id = [], None
    with c.responses.stream(
        input="solve 8x + 31 = 2", model="gpt-4.1", text_format=Answer, background=True
    ) as s:
        for event in s:
            if event.type == "response.created":
                response_id = event.response.id
            seen.append(event_data(event))
            if event.sequence_number == 4:
                break
    with c.responses.stream(response_id=response_id, starting_after=4, text_format=Answer) as stream:
        resumed = [event_data(event) for event in stream]
        final = response_data(stream.get_final_response())
    return {"seen": seen, "resumed": resumed, "final": final}


def test_stream_helper_resumes_a_stored_response_by_id_after_a_sequence_number(
    differential: Differential,
) -> None:
    _theirs, ours = differential.check(_background_then_resume)
    assert ours.result["resumed"][0]["sequence_number"] == 5
    assert ours.result["final"]["output_parsed"][0] == "Answer"
    assert ours.requests[1]["method"] == "GET"


async def test_async_stream_helper_resumes_a_stored_response_by_id(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        async with c.responses.stream(model="gpt-4.1", input="resume me") as stream:
            response_id = (await stream.get_final_response()).id
        async with c.responses.stream(response_id=response_id, starting_after=2) as stream:
            events = [event_data(event) async for event in stream]
        return events

    await differential.acheck(app)


def test_stream_helper_refuses_response_id_with_new_response_arguments(differential: Differential) -> None:
    differential.check(
        lambda c: [
            repr(_raises(lambda: c.responses.stream(response_id="resp_1", input="x", model="gpt-4.1"))),
            repr(_raises(lambda: c.responses.stream(starting_after=3))),
        ]
    )
    assert differential.server.requests == []


def test_retrieve_with_stream_replays_the_stored_events_as_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        response = c.responses.create(model="gpt-4.1", input="replay")
        return [event_data(e) for e in c.responses.retrieve(response.id, stream=True, starting_after=3)]

    _theirs, ours = differential.check(app)
    assert ours.result[0]["sequence_number"] == 4
