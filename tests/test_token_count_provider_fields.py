"""The token counter takes provider fields as the API receives them: DeepSeek's ``reasoning_content`` on an
assistant message passed back is input and is counted; Claude's ``cache_control`` on a content part is
not text and changes nothing; a message object counts as its dict, unknown fields included."""

from __future__ import annotations

import holyclient
from holyclient.types.chat import ChatCompletionMessage

CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    ],
}
REASONING = "I should look the weather up before answering"


def test_reasoning_content_passed_back_is_counted_as_its_text() -> None:
    without = holyclient.count_messages([CALL], "gpt-4o").tokens
    with_reasoning = holyclient.count_messages([{**CALL, "reasoning_content": REASONING}], "gpt-4o").tokens
    assert with_reasoning - without == holyclient.count_tokens(REASONING, "gpt-4o").tokens


def test_a_message_object_with_provider_fields_counts_as_its_dict() -> None:
    message = ChatCompletionMessage.model_validate({**CALL, "reasoning_content": REASONING})
    as_object = holyclient.count_messages([{"role": "user", "content": "hi"}, message], "gpt-4o")
    as_dict = holyclient.count_messages([{"role": "user", "content": "hi"}, message.to_dict()], "gpt-4o")
    assert as_object == as_dict
    assert (
        as_object.tokens
        > holyclient.count_messages([{"role": "user", "content": "hi"}, CALL], "gpt-4o").tokens
    )


def test_cache_control_on_a_part_is_not_counted() -> None:
    plain = [{"role": "user", "content": [{"type": "text", "text": "a long shared prefix"}]}]
    cached = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "a long shared prefix", "cache_control": {"type": "ephemeral"}}
            ],
        }
    ]
    assert holyclient.count_messages(cached, "gpt-4o") == holyclient.count_messages(plain, "gpt-4o")


def test_count_request_with_unknown_extra_body_fields_counts_the_messages_only() -> None:
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}
    assert holyclient.count_request(
        {**body, "thinking": {"type": "enabled"}, "top_k": 5}
    ) == holyclient.count_request(body)
