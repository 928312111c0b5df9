"""What ``parse()`` (and ``as_openai()``'s structured output) learns from a 400: only a refusal that names
the way it asked (its request field, or the way's name beside "unavailable"/"not supported"), never a
400 about something else -- a malformed conversation that mentions a tool, a bad value."""

from __future__ import annotations

import itertools
import random
from typing import Any

import httpx2
import pytest

import holyclient
from holyclient._parsing import forget_learned, methods_for
from holyclient._parsing._capabilities import METHODS, rejects
from holyclient.testing import Fault, LocalServer


def _error(message: str, param: str | None = None, status: int = 400) -> holyclient.APIStatusError:
    response = httpx2.Response(status, request=httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions"))
    body = {"message": message, "type": "invalid_request_error", "param": param, "code": None}
    return holyclient.BadRequestError(message, response=response, body=body)


#: (message, param, the ways it refuses): the providers' own wordings
REFUSALS = [
    ("This response_format type is unavailable now", None, {"json_schema", "json_object"}),
    (
        "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
        None,
        {"json_schema", "json_object"},
    ),
    (
        "Unsupported parameter: 'response_format' is not supported with this model.",
        "response_format",
        {"json_schema", "json_object"},
    ),
    ("tools is not supported with this model", "tools", {"tool"}),
    ("This model does not support function calling.", None, {"tool"}),
    ("'tool_choice' is not supported by this model.", "tool_choice", {"tool"}),
]
#: 400s that refuse the request, not a way of asking: none is learned
NOT_REFUSALS = [
    (
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
        "'tool_calls'.",
        "messages.[2].role",
    ),
    (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        "'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
        "messages",
    ),
    ("Invalid 'messages[1].tool_calls[0].function.name': string does not match pattern.", "messages[1]"),
    ("Invalid value for 'temperature': the function of temperature must be at most 2.", "temperature"),
    ("The tool message content is too long for this function.", None),
    ("Invalid schema for function 'get_weather': a response_format schema must be an object.", None),
]


@pytest.mark.parametrize(("message", "param", "ways"), REFUSALS)
def test_a_refusal_that_names_the_way_asked_is_one(message: str, param: str | None, ways: set[str]) -> None:
    error = _error(message, param)
    assert {method for method in METHODS if rejects(error, method)} == ways


@pytest.mark.parametrize(("message", "param"), NOT_REFUSALS)
def test_a_400_about_something_else_refuses_no_way_of_asking(message: str, param: str | None) -> None:
    error = _error(message, param)
    assert [method for method in METHODS if rejects(error, method)] == []


def test_generated_400s_naming_another_field_are_never_refusals() -> None:
    """Whatever the wording (every way's names, every "unavailable" word), a 400 whose ``param`` names a
    field of no way of asking refuses none."""
    rng = random.Random(42)
    words = [
        "tool",
        "tools",
        "function",
        "functions",
        "response_format",
        "json_schema",
        "unsupported",
        "not supported",
        "unavailable",
        "tool_calls",
        "json",
        "does not support",
        "structured output",
    ]
    fields = [
        "messages",
        "messages[3].content",
        "messages.[1].tool_calls",
        "temperature",
        "model",
        "n",
        "input",
        "input[0].content",
        "stop",
        "metadata.tool",
    ]
    for _ in range(500):
        message = " ".join(rng.choices(words, k=rng.randint(1, 6)))
        param = rng.choice(fields)
        error = _error(message, param)
        assert not any(rejects(error, method) for method in METHODS), (message, param)


@pytest.mark.parametrize(("status", "method"), list(itertools.product([401, 403, 404, 429, 500], METHODS)))
def test_only_a_400_or_422_is_a_refusal(status: int, method: str) -> None:
    assert not rejects(_error("tools is not supported with this model", "tools", status), method)


def test_a_malformed_conversation_400_during_a_tool_fallback_is_raised_and_not_learned() -> None:
    """The bug: any 400 containing "tool" or "function" was learned as the model refusing tools, so the
    call went on in JSON mode, and every later ``parse()`` for the model did too."""
    from pydantic import BaseModel

    class City(BaseModel):
        name: str

    malformed = (
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
        "'tool_calls'."
    )
    forget_learned()
    try:
        # the server refuses json_schema (learned, rightly); the tool way then meets a 400 about the
        # conversation, which names a tool: raised, not learned
        with LocalServer(api_key="k", disabled_features={"json_schema"}) as server:
            server.enqueue(Fault.status(400, message=malformed))
            with (
                holyclient.Client(base_url=server.base_url, api_key="k", max_retries=0) as client,
                pytest.raises(holyclient.BadRequestError, match="role 'tool'"),
            ):
                client.chat.completions.parse(
                    model="acme-2", messages=[{"role": "user", "content": "Paris"}], response_format=City
                )
            assert [r.status for r in server.requests] == [400, 400]
            assert methods_for(server.base_url, "acme-2") == ("tool", "json_object")
    finally:
        forget_learned()


def test_the_learned_refusal_is_per_way(monkeypatch: Any) -> None:
    forget_learned()
    try:
        from holyclient._parsing import learn

        learn("http://x/v1", "acme-3", "json_schema")
        assert methods_for("http://x/v1", "acme-3") == ("tool", "json_object")
    finally:
        forget_learned()
