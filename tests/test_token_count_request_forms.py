"""``count_request`` on every body form, pinned by arithmetic against ``count_tokens``/``count_messages``.

Mutation testing showed the completions (``prompt``), embeddings (``input``) and Responses API
(``input`` + ``instructions``) paths, and the chat extras (legacy functions, tool_choice,
json_schema response formats), were never checked by value.
"""

from __future__ import annotations

import json

import pytest

from holyclient.tokens import count_messages, count_request, count_tokens

MODEL = "gpt-4o"
MESSAGES = [{"role": "user", "content": "What is the weather in Paris today?"}]
FUNCTION = {
    "name": "get_weather",
    "description": "Weather",
    "parameters": {"type": "object", "properties": {}},
}


def tokens(text: str) -> int:
    return count_tokens(text, MODEL).tokens


def test_a_prompt_is_counted_like_an_embedding_input():
    counted = count_request({"model": MODEL, "prompt": "hello there world"})
    assert counted.tokens == tokens("hello there world")
    assert counted.model == MODEL and counted.encoding == "o200k_base" and not counted.approximate
    listed = count_request({"model": MODEL, "prompt": ["hello", "there world"]})
    assert listed.tokens == tokens("hello") + tokens("there world")


def test_embedding_inputs_count_strings_token_ids_and_token_lists():
    assert count_request({"model": MODEL, "input": "abc def"}).tokens == tokens("abc def")
    assert count_request({"model": MODEL, "input": [1, 2, 3]}).tokens == 3
    assert count_request({"model": MODEL, "input": [[1, 2], [3, 4, 5]]}).tokens == 5
    assert count_request({"model": "text-embedding-3-small", "input": ["a b"]}).encoding == "cl100k_base"


@pytest.mark.parametrize("value", [5, {"text": "x"}])
def test_an_embedding_input_of_the_wrong_type_is_a_type_error(value):
    with pytest.raises(
        TypeError, match="'input' must be a string, a list of strings or a list of token lists"
    ):
        count_request({"model": MODEL, "input": value})


def test_a_plain_text_responses_call_adds_its_instructions_and_is_approximate():
    counted = count_request({"model": MODEL, "input": "hi there", "instructions": "Be terse."})
    assert counted.tokens == tokens("hi there") + tokens("Be terse.")
    assert counted.approximate
    assert not count_request({"model": MODEL, "input": "hi there"}).approximate


def test_a_responses_item_list_is_counted_by_the_chat_rules_with_instructions_as_developer():
    items = [{"role": "user", "content": "hello"}]
    counted = count_request({"model": MODEL, "input": items, "instructions": "Be terse."})
    expected = count_messages([{"role": "developer", "content": "Be terse."}, *items], MODEL)
    assert counted.tokens == expected.tokens and counted.approximate
    bare = count_request({"model": MODEL, "input": items})
    assert bare.tokens == count_messages(items, MODEL).tokens and bare.approximate


def test_chat_bodies_pass_functions_and_choices_through():
    base = count_request({"model": MODEL, "messages": MESSAGES}).tokens
    with_functions = count_request({"model": MODEL, "messages": MESSAGES, "functions": [FUNCTION]})
    assert with_functions.tokens == count_messages(MESSAGES, MODEL, functions=[FUNCTION]).tokens > base
    named = {"type": "function", "function": {"name": "get_weather"}}
    tools = [{"type": "function", "function": FUNCTION}]
    chosen = count_request({"model": MODEL, "messages": MESSAGES, "tools": tools, "tool_choice": named})
    assert chosen.tokens == count_messages(MESSAGES, MODEL, tools=tools, tool_choice=named).tokens
    assert chosen.tokens == count_messages(MESSAGES, MODEL, tools=tools).tokens + tokens("get_weather") + 4
    legacy = count_request(
        {
            "model": MODEL,
            "messages": MESSAGES,
            "functions": [FUNCTION],
            "function_call": {"name": "get_weather"},
        }
    )
    assert legacy.tokens == with_functions.tokens + tokens("get_weather") + 4
    assert count_request({"model": MODEL, "messages": MESSAGES, "tool_choice": "none"}).tokens == base + 1


def test_a_json_schema_response_format_adds_the_compact_schema_and_is_approximate():
    schema = {"name": "w", "schema": {"type": "object", "properties": {"t": {"type": "number"}}}}
    body = {
        "model": MODEL,
        "messages": MESSAGES,
        "response_format": {"type": "json_schema", "json_schema": schema},
    }
    counted = count_request(body)
    base = count_request({"model": MODEL, "messages": MESSAGES}).tokens
    assert counted.tokens == base + tokens(json.dumps(schema, separators=(",", ":")))
    assert counted.approximate
    plain = count_request({**body, "response_format": {"type": "json_object"}})
    assert plain.tokens == base and not plain.approximate


def test_the_model_argument_overrides_the_body_and_one_is_required():
    assert count_request({"model": "gpt-4", "prompt": "x"}, model=MODEL).encoding == "o200k_base"
    for body in ({"prompt": "x"}, {"model": "", "prompt": "x"}, {"model": 4, "prompt": "x"}):
        with pytest.raises(ValueError, match="no model: the body has no 'model' and none was given"):
            count_request(body)
    with pytest.raises(TypeError, match="'messages' must be a list of message objects"):
        count_request({"model": MODEL, "messages": "hi"})
    with pytest.raises(ValueError, match="neither 'messages'"):
        count_request({"model": MODEL})
