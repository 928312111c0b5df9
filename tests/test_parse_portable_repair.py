"""``parse()``'s fallback answers validated and repaired once, on scripted answers: what is sent back, what
is raised when the repair fails too (openai's errors), and what every attempt used and cost."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pydantic
import pytest
from pydantic import BaseModel

import holyclient
from holyclient._parsing import forget_learned
from support import KEY, completion

BASE = "https://api.holysheep.ai/v1"
DEEPSEEK = "deepseek-v3.2"  # the capabilities table: no JSON schema, so the forced tool is asked first
MESSAGES = [{"role": "user", "content": "Paris"}]
GOOD = {"name": "Paris", "population": 2102650}
BAD = {"name": "Paris", "population": "many"}


class City(BaseModel):
    name: str
    population: int


class Script:
    """Answers each request with the next scripted body (``_status`` sets the status)."""

    def __init__(self, *bodies: dict[str, Any]) -> None:
        self.bodies = list(bodies)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        body = dict(self.bodies.pop(0))
        return httpx2.Response(body.pop("_status", 200), json=body)


@pytest.fixture(autouse=True)
def _nothing_learned() -> Any:
    forget_learned()
    yield
    forget_learned()


def _tool_answer(arguments: Any, finish: str = "tool_calls", **message: Any) -> dict[str, Any]:
    body = completion(None, model=DEEPSEEK)
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "City", "arguments": json.dumps(arguments)},
    }
    body["choices"][0]["message"].update({"content": None, "tool_calls": [call], **message})
    body["choices"][0]["finish_reason"] = finish
    return body


def _text_answer(content: str | None, finish: str = "stop", **message: Any) -> dict[str, Any]:
    body = completion(content, model=DEEPSEEK)
    body["choices"][0]["message"].update(message)
    body["choices"][0]["finish_reason"] = finish
    return body


def _client(script: Script) -> holyclient.Client:
    http = httpx2.Client(transport=httpx2.MockTransport(script))
    return holyclient.Client(api_key=KEY, base_url=BASE, http_client=http, max_retries=0)


def _async_client(script: Script) -> holyclient.AsyncClient:
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(script))
    return holyclient.AsyncClient(api_key=KEY, base_url=BASE, http_client=http, max_retries=0)


def test_an_answer_that_does_not_validate_is_sent_back_once_with_its_errors_and_the_repair_is_kept() -> None:
    script = Script(_tool_answer(BAD), _tool_answer(GOOD))
    with _client(script) as client:
        result = client.chat.completions.parse(model=DEEPSEEK, messages=MESSAGES, response_format=City)
        charged = client.usage.total_cost_usd
    assert result.choices[0].message.parsed == City(**GOOD)
    info = result.structured_output
    assert info.method == "tool" and info.repaired
    assert [(a.method, a.outcome) for a in info.attempts] == [("tool", "invalid"), ("tool", "answered")]
    assert info.cost_usd == pytest.approx(charged) and charged > 0  # both attempts charged, and reported
    assert result.usage.prompt_tokens == 10 and result.usage.total_tokens == 12  # both attempts' usage
    repair = script.requests[1]["messages"]
    assert repair[:-2] == MESSAGES
    assert repair[-2]["tool_calls"][0]["function"]["arguments"] == json.dumps(BAD)
    assert repair[-1]["role"] == "tool" and repair[-1]["tool_call_id"] == "call_1"
    assert "population" in repair[-1]["content"] and "valid integer" in repair[-1]["content"]


def test_a_failed_repair_raises_pydantics_validation_error_after_two_requests() -> None:
    script = Script(_tool_answer(BAD), _tool_answer(BAD))
    with _client(script) as client, pytest.raises(pydantic.ValidationError):
        client.chat.completions.parse(model=DEEPSEEK, messages=MESSAGES, response_format=City)
    assert len(script.requests) == 2 and script.bodies == []


@pytest.mark.parametrize(
    ("finish", "error"),
    [
        ("length", holyclient.LengthFinishReasonError),
        ("content_filter", holyclient.ContentFilterFinishReasonError),
    ],
)
def test_a_cut_or_filtered_answer_raises_openais_error_without_a_repair(finish: str, error: type) -> None:
    script = Script(_tool_answer({"name": "Par"}, finish=finish))
    with _client(script) as client, pytest.raises(error):
        client.chat.completions.parse(model=DEEPSEEK, messages=MESSAGES, response_format=City)
    assert len(script.requests) == 1


def test_a_refusal_is_returned_unparsed_as_openai_returns_it() -> None:
    script = Script(_text_answer(None, refusal="I can't help with that."))
    with _client(script) as client:
        result = client.chat.completions.parse(model=DEEPSEEK, messages=MESSAGES, response_format=City)
    message = result.choices[0].message
    assert message.parsed is None and message.refusal == "I can't help with that."
    assert len(script.requests) == 1


def test_json_written_as_text_in_a_code_fence_is_read() -> None:
    script = Script(_text_answer("Here it is:\n```json\n" + json.dumps(GOOD) + "\n```"))
    with _client(script) as client:
        result = client.chat.completions.parse(model=DEEPSEEK, messages=MESSAGES, response_format=City)
    assert result.choices[0].message.parsed == City(**GOOD)
    assert json.loads(result.choices[0].message.content) == GOOD


def test_json_mode_is_asked_after_a_refused_tool_and_its_answer_is_repaired_in_the_conversation() -> None:
    refused = {"_status": 400, "error": {"message": "tools are not supported", "param": "tools"}}
    script = Script(refused, _text_answer(json.dumps(BAD)), _text_answer(json.dumps(GOOD)))
    with _client(script) as client:
        result = client.chat.completions.parse(model=DEEPSEEK, messages=MESSAGES, response_format=City)
    assert result.choices[0].message.parsed == City(**GOOD)
    assert [(a.method, a.outcome) for a in result.structured_output.attempts] == [
        ("tool", "rejected"),
        ("json_object", "invalid"),
        ("json_object", "answered"),
    ]
    first, repair = script.requests[1], script.requests[2]
    assert first["response_format"] == {"type": "json_object"} and "tools" not in first
    assert first["messages"][0]["role"] == "system" and "json" in first["messages"][0]["content"]
    assert repair["messages"][-2] == {"role": "assistant", "content": json.dumps(BAD)}
    assert repair["messages"][-1]["role"] == "user" and "population" in repair["messages"][-1]["content"]


def test_a_thinking_models_tool_answer_goes_back_with_its_reasoning_content() -> None:
    refused = {"_status": 400, "error": {"message": "This response_format type is unavailable now"}}
    script = Script(refused, _tool_answer(BAD, reasoning_content="hmm"), _tool_answer(GOOD))
    with _client(script) as client:
        result = client.chat.completions.parse(
            model="deepseek-reasoner", messages=MESSAGES, response_format=City
        )
    assert result.choices[0].message.parsed == City(**GOOD)
    assert [a.outcome for a in result.structured_output.attempts] == ["rejected", "invalid", "answered"]
    assert script.requests[2]["messages"][-2]["reasoning_content"] == "hmm"


def test_the_callers_own_tool_calls_stay_and_are_parsed_as_openai_parses_them() -> None:
    weather = {
        "type": "function",
        "function": {
            "name": "weather",
            "strict": True,
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False, "required": []},
        },
    }
    answer = _tool_answer(GOOD)
    answer["choices"][0]["message"]["tool_calls"][0]["function"]["name"] = "weather"
    script = Script(answer)
    with _client(script) as client:
        result = client.chat.completions.parse(
            model=DEEPSEEK, messages=MESSAGES, response_format=City, tools=[weather]
        )
    message = result.choices[0].message
    assert message.parsed is None and message.tool_calls[0].function.parsed_arguments == GOOD
    assert script.requests[0]["tool_choice"] == "required"
    assert [t["function"]["name"] for t in script.requests[0]["tools"]] == ["weather", "City"]


async def test_the_async_client_repairs_the_same_way() -> None:
    script = Script(_tool_answer(BAD), _tool_answer(GOOD))
    async with _async_client(script) as client:
        result = await client.chat.completions.parse(model=DEEPSEEK, messages=MESSAGES, response_format=City)
    assert result.choices[0].message.parsed == City(**GOOD)
    assert result.structured_output.repaired


# -- Responses --------------------------------------------------------------------------------------
def _response(*output: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": DEEPSEEK,
        "output": list(output),
        "usage": {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8},
    }


def _call(arguments: Any) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "City",
        "arguments": json.dumps(arguments),
        "status": "completed",
    }


def test_a_responses_answer_is_repaired_with_a_function_call_output() -> None:
    script = Script(_response(_call(BAD)), _response(_call(GOOD)))
    with _client(script) as client:
        result = client.responses.parse(model=DEEPSEEK, input="Paris", text_format=City)
    assert result.output_parsed == City(**GOOD)
    assert result.structured_output.repaired and result.usage.total_tokens == 16
    sent = script.requests[1]["input"]
    assert sent[0] == {"role": "user", "content": "Paris"}
    assert sent[1]["type"] == "function_call" and sent[1]["arguments"] == json.dumps(BAD)
    assert sent[2]["type"] == "function_call_output" and "population" in sent[2]["output"]


def test_a_failed_responses_repair_raises_the_validation_error() -> None:
    script = Script(_response(_call(BAD)), _response(_call(BAD)))
    with _client(script) as client, pytest.raises(pydantic.ValidationError):
        client.responses.parse(model=DEEPSEEK, input="Paris", text_format=City)
    assert len(script.requests) == 2
