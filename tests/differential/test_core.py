"""The core drop-in promise, proven differentially: same app code, same requests, same results."""

from __future__ import annotations

from typing import Any

import pytest

import holyclient
from differential.conftest import Differential
from holyclient.testing import Fault, LocalServer

USER = [{"role": "user", "content": "ping pong"}]


def test_a_plain_chat_completion_matches_openai(differential: Differential) -> None:
    differential.check(lambda c: c.chat.completions.create(model="gpt-4.1", messages=USER, seed=1))


async def test_a_plain_async_chat_completion_matches_openai(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        return await c.chat.completions.create(model="gpt-4.1", messages=USER)

    await differential.acheck(app)


def test_models_list_iterates_like_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        page = c.models.list()
        return {
            "ids": [m.id for m in page],
            "has_next": page.has_next_page(),
            "retrieved": c.models.retrieve("gpt-4.1"),
        }

    differential.check(app)


async def test_async_models_list_supports_async_for_and_await_like_openai(differential: Differential) -> None:
    async def app(c: Any) -> Any:
        page = await c.models.list()
        return {"ids": [m.id async for m in c.models.list()], "page": [m.id for m in page.data]}

    await differential.acheck(app)


def test_every_response_carries_the_request_id_and_serializes_like_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        completion = c.chat.completions.create(model="gpt-4.1", messages=USER)
        return {
            "has_request_id": completion._request_id.startswith("req_"),
            "to_dict": completion.to_dict(),
            "to_json": completion.to_json() == completion.to_json(indent=2),
        }

    differential.check(app)


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def tool_loop(c: Any) -> Any:
    """The canonical openai tool loop: the assistant message object is appended as it came back."""
    messages: list[Any] = [{"role": "user", "content": "call get_weather for Paris"}]
    first = c.chat.completions.create(model="gpt-4.1", messages=messages, tools=[WEATHER_TOOL])
    message = first.choices[0].message
    messages.append(message)
    for call in message.tool_calls:
        messages.append({"role": "tool", "tool_call_id": call.id, "content": '{"temp_c": 21}'})
    second = c.chat.completions.create(model="gpt-4.1", messages=messages, tools=[WEATHER_TOOL])
    return [first, second]


def test_the_tool_loop_with_message_objects_appended_sends_what_openai_sends(
    differential: Differential,
) -> None:
    _theirs, ours = differential.check(tool_loop)
    assert ours.requests[1]["body"]["messages"][1]["tool_calls"][0]["function"]["name"] == "get_weather"


def test_a_pydantic_class_passed_to_create_points_to_parse() -> None:
    from pydantic import BaseModel

    class Answer(BaseModel):
        text: str

    client = holyclient.Client(api_key="k", base_url="http://127.0.0.1:9")
    with pytest.raises(TypeError, match=r"chat\.completions\.parse"):
        client.chat.completions.create(model="gpt-4.1", messages=USER, response_format=Answer)


def test_extra_query_and_default_query_go_to_the_query_string_like_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        return c.chat.completions.create(
            model="gpt-4.1", messages=USER, extra_query={"api-version": "2024-10-21"}, extra_body={"x": 1}
        )

    _theirs, ours = differential.check(app, default_query={"tenant": "t1"})
    assert ours.requests[0]["query"] == {"tenant": ["t1"], "api-version": ["2024-10-21"]}
    assert "api-version" not in ours.requests[0]["body"]


def test_organization_and_project_are_sent_as_openai_headers(differential: Differential) -> None:
    headers = ("openai-organization", "openai-project")
    _theirs, ours = differential.check(
        lambda c: c.models.retrieve("gpt-4.1"), headers=headers, organization="org-1", project="proj-1"
    )
    assert ours.requests[0]["openai-organization"] == "org-1"
    assert ours.requests[0]["openai-project"] == "proj-1"


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        (Fault.status(429, retry_after=0), "RateLimitError"),
        (Fault.status(500), "InternalServerError"),
        (Fault.status(401), "AuthenticationError"),
        (Fault.status(403), "PermissionDeniedError"),
    ],
    ids=["429", "500", "401", "403"],
)
def test_errors_surface_as_the_same_exception_class_status_and_body(
    differential: Differential, fault: Fault, error: str
) -> None:
    def app(c: Any) -> Any:
        differential.server.enqueue(fault)
        return c.chat.completions.create(model="gpt-4.1", messages=USER)

    _theirs, ours = differential.check(app, expect_error=error)
    assert ours.result["status_code"] == fault.status_code


def test_a_request_the_server_rejects_raises_the_same_error(differential: Differential) -> None:
    _theirs, ours = differential.check(
        lambda c: c.models.retrieve("no-such-model"), expect_error="NotFoundError"
    )
    assert ours.result["body"]["code"] == "model_not_found"


def test_a_callable_api_key_is_called_per_request_like_openai(differential: Differential) -> None:
    keys = iter(["sk-one", "sk-two", "sk-three", "sk-four"])

    def app(c: Any) -> Any:
        return [c.models.retrieve("gpt-4.1").id for _ in range(2)]

    differential.check(app, api_key=lambda: next(keys))
    assert next(keys, None) is None  # two requests per SDK, one key each


async def test_an_async_callable_api_key_is_awaited_per_request() -> None:
    with LocalServer(api_key="sk-rotated") as server:

        async def provider() -> str:
            return "sk-rotated"

        async with holyclient.AsyncOpenAI(api_key=provider, base_url=server.base_url, max_retries=0) as c:
            assert (await c.models.retrieve("gpt-4.1")).id == "gpt-4.1"
            assert "sk-rotated" not in repr(c)


def test_openai_exception_names_catch_holyclient_errors() -> None:
    import openai

    for name in (
        "OpenAIError",
        "APIError",
        "APIStatusError",
        "APIConnectionError",
        "APITimeoutError",
        "RateLimitError",
        "AuthenticationError",
        "BadRequestError",
        "NotFoundError",
        "PermissionDeniedError",
        "ConflictError",
        "UnprocessableEntityError",
        "InternalServerError",
        "APIResponseValidationError",
        "OpenAI",
        "AsyncOpenAI",
        "Stream",
        "AsyncStream",
        "NOT_GIVEN",
    ):
        assert hasattr(openai, name) and hasattr(holyclient, name), name
    assert issubclass(holyclient.RateLimitError, holyclient.OpenAIError)


def test_an_explicit_stream_false_is_sent_like_openai(differential: Differential) -> None:
    _theirs, ours = differential.check(
        lambda c: c.chat.completions.create(model="gpt-4.1", messages=USER, stream=False)
    )
    assert ours.requests[0]["body"]["stream"] is False


@pytest.mark.parametrize("local_server", [{"api_key": "sk-rotated"}], indirect=True)
def test_a_callable_key_is_sent_as_the_bearer_token(differential: Differential) -> None:
    calls: list[int] = []

    def provider() -> str:
        calls.append(1)
        return "sk-rotated"

    _theirs, ours = differential.check(lambda c: c.models.retrieve("gpt-4.1").id, api_key=provider)
    assert ours.result == "gpt-4.1" and len(calls) == 2  # one request per SDK


def test_the_tool_loop_with_message_objects_works_under_a_budget(local_server: LocalServer) -> None:
    with holyclient.Client(api_key="k", base_url=local_server.base_url, budget_usd=1.0) as client:
        _first, second = tool_loop(client)
    assert second.choices[0].message.content
    assert client.usage.snapshot().models["gpt-4.1"].requests == 2


def test_an_empty_path_id_is_refused_like_openai(differential: Differential) -> None:
    def app(c: Any) -> Any:
        with pytest.raises(ValueError, match="non-empty value for `model`") as info:
            c.models.retrieve("")
        return str(info.value)

    differential.check(app)
