"""``chat.completions.parse()`` sends and decodes what openai's does, on the same canned responses."""

from __future__ import annotations

import json
from typing import Any

import openai
import pydantic
import pytest
from pydantic import BaseModel

import holyclient
from chat_stream_scripts import MATH_JSON, STRICT_DICT_TOOL, GetWeather, MathResponse
from differential.mock_pair import async_clients, sync_clients
from support import Canned, completion

MESSAGES = [{"role": "user", "content": "solve 8x + 31 = 2"}]


class Inner(BaseModel):
    tags: list[str]
    score: float | None = None


class Outer(BaseModel):
    title: str
    inner: Inner
    items: list[Inner] = []


def _answer(content: str | None = None, finish: str = "stop", **message: Any) -> dict[str, Any]:
    body = completion(content or "")
    body["choices"][0]["message"].update({"content": content, "refusal": None, **message})
    body["choices"][0]["finish_reason"] = finish
    return body


def _tool_answer() -> dict[str, Any]:
    calls = [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "GetWeather", "arguments": '{"city": "Oslo", "days": 2}'},
        },
        {"id": "call_2", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "tides"}'}},
    ]
    return _answer(None, "tool_calls", tool_calls=calls)


def _dump(value: Any) -> Any:
    """Results as data: parsed user objects keep their class name so a dict never passes for a model."""
    if isinstance(value, BaseException):
        return type(value).__name__
    data = value.model_dump(mode="json", exclude_unset=True, warnings=False)
    for i, choice in enumerate(value.choices):
        parsed = choice.message.parsed
        data["choices"][i]["message"]["parsed"] = (type(parsed).__name__, _plain(parsed))
        for j, call in enumerate(choice.message.tool_calls or []):
            arguments = call.function.parsed_arguments
            data["choices"][i]["message"]["tool_calls"][j]["function"]["parsed_arguments"] = (
                type(arguments).__name__,
                _plain(arguments),
            )
    return data


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def _both(body: dict[str, Any], app: Any) -> tuple[Any, Any, Canned]:
    handler = Canned(body)
    theirs_client, ours_client = sync_clients(handler)
    results = []
    for sdk, client in ((openai, theirs_client), (holyclient, ours_client)):
        try:
            results.append(_dump(app(sdk, client)))
        except (openai.OpenAIError, holyclient.HolyClientError, ValueError) as exc:
            results.append(_dump(exc))
    assert len(handler.requests) in (0, 2)
    if handler.requests:
        assert handler.requests[1] == handler.requests[0]  # the same JSON body
    return results[0], results[1], handler


def test_a_pydantic_response_format_is_sent_as_openai_sends_it_and_parsed_back() -> None:
    theirs, ours, handler = _both(
        _answer(MATH_JSON),
        lambda sdk, c: c.chat.completions.parse(
            model="gpt-4o", messages=MESSAGES, response_format=MathResponse
        ),
    )
    assert ours == theirs
    assert handler.requests[1]["response_format"]["json_schema"]["name"] == "MathResponse"
    assert handler.requests[1]["stream"] is False
    assert ours["choices"][0]["message"]["parsed"][0] == "MathResponse"


def test_nested_models_round_trip_like_openai() -> None:
    content = json.dumps(
        {"title": "t", "inner": {"tags": ["a"], "score": None}, "items": [{"tags": [], "score": 2.5}]}
    )
    theirs, ours, _ = _both(
        _answer(content),
        lambda sdk, c: c.chat.completions.parse(model="gpt-4o", messages=MESSAGES, response_format=Outer),
    )
    assert ours == theirs
    assert ours["choices"][0]["message"]["parsed"][1]["items"][0]["score"] == 2.5


def test_parsed_is_a_model_instance() -> None:
    _, client = sync_clients(Canned(_answer(MATH_JSON)))
    result = client.chat.completions.parse(model="gpt-4o", messages=MESSAGES, response_format=MathResponse)
    parsed = result.choices[0].message.parsed
    assert isinstance(parsed, MathResponse) and parsed.final_answer == "x = -29/8"
    assert isinstance(result, holyclient.ChatCompletion)


def test_a_refusal_leaves_parsed_empty_as_openai_does() -> None:
    theirs, ours, _ = _both(
        _answer(None, refusal="I can't help with that."),
        lambda sdk, c: c.chat.completions.parse(
            model="gpt-4o", messages=MESSAGES, response_format=MathResponse
        ),
    )
    assert ours == theirs
    assert ours["choices"][0]["message"]["refusal"] == "I can't help with that."
    assert ours["choices"][0]["message"]["parsed"] == ("NoneType", None)


@pytest.mark.parametrize(
    ("finish", "error"),
    [
        ("length", holyclient.LengthFinishReasonError),
        ("content_filter", holyclient.ContentFilterFinishReasonError),
    ],
)
def test_a_cut_or_filtered_answer_raises_the_openai_named_error(finish: str, error: type[Exception]) -> None:
    theirs, ours, _ = _both(
        _answer('{"steps": [', finish),
        lambda sdk, c: c.chat.completions.parse(
            model="gpt-4o", messages=MESSAGES, response_format=MathResponse
        ),
    )
    assert ours == theirs == error.__name__
    _, client = sync_clients(Canned(_answer('{"steps": [', finish)))
    with pytest.raises(error) as info:
        client.chat.completions.parse(model="gpt-4o", messages=MESSAGES, response_format=MathResponse)
    assert info.value.completion.choices[0].finish_reason == finish  # type: ignore[attr-defined]


def test_tool_calls_get_parsed_arguments_like_openai() -> None:
    def app(sdk: Any, client: Any) -> Any:
        tools = [sdk.pydantic_function_tool(GetWeather), STRICT_DICT_TOOL]
        return client.chat.completions.parse(model="gpt-4o", messages=MESSAGES, tools=tools)

    theirs, ours, handler = _both(_tool_answer(), app)
    assert ours == theirs
    calls = ours["choices"][0]["message"]["tool_calls"]
    assert calls[0]["function"]["parsed_arguments"] == ("GetWeather", {"city": "Oslo", "days": 2})
    assert calls[1]["function"]["parsed_arguments"] == ("dict", {"q": "tides"})
    assert handler.requests[1]["tools"][0]["function"]["strict"] is True


def test_a_non_strict_tool_is_refused_before_sending() -> None:
    loose = {
        "type": "function",
        "function": {"name": "f", "parameters": {"type": "object", "properties": {}}},
    }
    theirs, ours, handler = _both(
        _tool_answer(),
        lambda sdk, c: c.chat.completions.parse(model="gpt-4o", messages=MESSAGES, tools=[loose]),
    )
    assert ours == theirs == "ValueError"
    assert handler.requests == []


def test_a_json_schema_dict_is_sent_as_is_and_not_parsed_as_openai() -> None:
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}, "strict": False}}
    theirs, ours, handler = _both(
        _answer('{"a": 1}'),
        lambda sdk, c: c.chat.completions.parse(model="gpt-4o", messages=MESSAGES, response_format=fmt),
    )
    assert ours == theirs
    assert handler.requests[1]["response_format"] == fmt


def test_content_that_does_not_fit_the_model_raises_a_validation_error() -> None:
    _, client = sync_clients(Canned(_answer('{"steps": 3}')))
    with pytest.raises(pydantic.ValidationError):
        client.chat.completions.parse(model="gpt-4o", messages=MESSAGES, response_format=MathResponse)


def test_beta_chat_completions_parse_is_the_same_method() -> None:
    theirs, ours, _ = _both(
        _answer(MATH_JSON),
        lambda sdk, c: c.beta.chat.completions.parse(
            model="gpt-4o", messages=MESSAGES, response_format=MathResponse
        ),
    )
    assert ours == theirs


async def test_async_parse_matches_openai() -> None:
    handler = Canned(_answer(MATH_JSON))
    theirs_client, ours_client = async_clients(handler)
    results = []
    for client in (theirs_client, ours_client):
        result = await client.chat.completions.parse(
            model="gpt-4o", messages=MESSAGES, response_format=MathResponse
        )
        results.append(_dump(result))
    assert results[1] == results[0]
    assert handler.requests[1] == handler.requests[0]
    result = await ours_client.beta.chat.completions.parse(
        model="gpt-4o", messages=MESSAGES, response_format=MathResponse
    )
    assert isinstance(result.choices[0].message.parsed, MathResponse)
