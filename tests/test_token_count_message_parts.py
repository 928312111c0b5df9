"""Chat counting rules per message part, pinned by arithmetic (found unpinned by mutation testing)."""

from __future__ import annotations

import pytest

from holyclient.tokens import count_messages, count_tokens

MODEL = "gpt-4o"
FUNCTION = {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}


def tokens(text: str) -> int:
    return count_tokens(text, MODEL).tokens


def user(content: object) -> int:
    return count_messages([{"role": "user", "content": content}], MODEL).tokens


def test_a_plain_user_message_costs_priming_header_role_and_text():
    assert user("hello world") == 3 + 3 + tokens("user") + tokens("hello world")


@pytest.mark.parametrize(
    "part",
    [
        {"type": "text", "text": "hello world"},
        {"type": "input_text", "text": "hello world"},
        {"type": "output_text", "text": "hello world"},
        {"text": "hello world"},
        {"type": "refusal", "refusal": "hello world"},
    ],
)
def test_text_and_refusal_parts_cost_their_text(part):
    assert user([part]) == user("hello world")


def test_a_part_without_its_text_costs_nothing_and_other_kinds_are_approximate():
    assert user([{"type": "text"}]) == user("")
    assert user([{"type": "refusal"}]) == user("")
    audio = count_messages([{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}], MODEL)
    assert audio.tokens == user("") and audio.approximate
    assert not count_messages([{"role": "user", "content": "x"}], MODEL).approximate


def test_an_image_url_may_be_a_bare_string_and_defaults_to_auto_detail():
    url = "https://example.test/cat.png"
    as_string = user([{"type": "image_url", "image_url": url}])
    assert as_string == user([{"type": "image_url", "image_url": {"url": url, "detail": "auto"}}])
    assert as_string > user([{"type": "image_url", "image_url": {"url": url, "detail": "low"}}])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (5, "message 'content' must be a string, null or a list of parts"),
        (["x"], "each content part must be an object"),
        ([{"type": "image_url", "image_url": 5}], "'image_url' must be an object with a 'url'"),
    ],
)
def test_malformed_content_is_a_type_error_naming_the_rule(content, message):
    with pytest.raises(TypeError, match=message):
        user(content)


def test_a_legacy_function_call_in_a_message_costs_name_arguments_and_three():
    plain = count_messages([{"role": "assistant", "content": None}], MODEL).tokens
    call = {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    with_call = count_messages([{"role": "assistant", "content": None, "function_call": call}], MODEL).tokens
    assert with_call == plain + tokens("get_weather") + tokens('{"city": "Paris"}') + 3


def test_function_and_tool_results_drop_the_role_header():
    named = [{"role": "function", "name": "f", "content": "sunny"}]
    assert (
        count_messages(named, MODEL).tokens
        == 3 + 3 + tokens("function") + tokens("f") + 1 + tokens("sunny") - 2
    )


def test_a_developer_message_is_padded_for_tools_like_a_system_one():
    tools = [{"type": "function", "function": FUNCTION}]
    system = count_messages([{"role": "system", "content": "Be brief."}], MODEL, tools=tools).tokens
    developer = count_messages([{"role": "developer", "content": "Be brief."}], MODEL, tools=tools).tokens
    assert developer - tokens("developer") == system - tokens("system")
    # only the first system message gets the newline
    two = [{"role": "system", "content": "Be brief."}, {"role": "system", "content": "Be brief."}]
    both = count_messages(two, MODEL, tools=tools).tokens
    assert both == system + 3 + tokens("system") + tokens("Be brief.")


def test_a_tool_without_a_type_is_a_function_and_built_in_tools_are_approximate():
    typed = count_messages(
        [{"role": "user", "content": "x"}], MODEL, tools=[{"type": "function", "function": FUNCTION}]
    )
    untyped = count_messages([{"role": "user", "content": "x"}], MODEL, tools=[{"function": FUNCTION}])
    assert untyped.tokens == typed.tokens and not untyped.approximate
    built_in = count_messages([{"role": "user", "content": "x"}], MODEL, tools=[{"type": "web_search"}])
    assert built_in.approximate
    with pytest.raises(TypeError, match="each tool must be an object"):
        count_messages([{"role": "user", "content": "x"}], MODEL, tools=["get_weather"])  # type: ignore[list-item]
