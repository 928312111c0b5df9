"""Request bodies accept the objects openai accepts: pydantic models anywhere, tuples and generators."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from holyclient._core._request import to_jsonable
from holyclient.types.chat import ChatCompletionMessage


def test_plain_json_data_is_passed_through_without_a_copy():
    body = {"messages": [{"role": "user", "content": "hi"}], "temperature": 0.5, "stop": None}
    assert to_jsonable(body) is body


def test_a_response_message_is_sent_as_the_fields_the_server_sent():
    message = ChatCompletionMessage.model_validate_json(
        '{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",'
        ' "function": {"name": "f", "arguments": "{}"}}]}'
    )
    sent = to_jsonable({"messages": [{"role": "user", "content": "x"}, message]})
    assert sent["messages"][1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
    }


def test_tuples_generators_and_nested_models_become_json_data():
    class Part(BaseModel):
        type: str
        text: str

    sent = to_jsonable({"content": (Part(type="text", text="a"),), "stop": (s for s in ["x", "y"])})
    assert sent == {"content": [{"type": "text", "text": "a"}], "stop": ["x", "y"]}


def test_a_class_in_a_body_points_to_parse():
    class Answer(BaseModel):
        text: str

    with pytest.raises(TypeError, match=r"chat\.completions\.parse"):
        to_jsonable({"response_format": Answer})


def test_request_id_is_kept_off_serialization_and_equality():
    message = ChatCompletionMessage(content="x")
    assert message._request_id is None
    message._request_id = "req_1"
    assert message._request_id == "req_1" and message.model_copy()._request_id == "req_1"
    assert message.to_dict() == {"content": "x"} and message == ChatCompletionMessage(content="x")
