"""The tools rule pads only the first system message (the definitions are appended to it, nowhere else)."""

from __future__ import annotations

from holyclient.tokens import count_messages, count_tokens

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
FIRST = {"role": "system", "content": "You are a helpful assistant"}
SECOND = {"role": "system", "content": "Answer in French"}
USER = {"role": "user", "content": "Weather in Paris?"}


def _alone(message: dict[str, str]) -> int:
    """What a message costs without tools: its tokens plus the per-message overhead, minus the reply priming."""
    return count_messages([message], "gpt-4o").tokens - 3


def test_a_second_system_message_costs_the_same_with_tools_as_without():
    with_second = count_messages([FIRST, SECOND, USER], "gpt-4o", tools=TOOLS).tokens
    without_second = count_messages([FIRST, USER], "gpt-4o", tools=TOOLS).tokens
    assert with_second - without_second == _alone(SECOND)


def test_the_first_system_message_gains_exactly_one_newline_with_tools():
    assert count_tokens(FIRST["content"] + "\n").tokens == count_tokens(FIRST["content"]).tokens + 1
    plain = count_messages([FIRST, SECOND, USER], "gpt-4o").tokens
    with_tools = count_messages([FIRST, SECOND, USER], "gpt-4o", tools=TOOLS).tokens
    without_system = (
        count_messages([USER], "gpt-4o", tools=TOOLS).tokens - count_messages([USER], "gpt-4o").tokens
    )
    # definitions (+9 already in without_system) join the system message: -4, and its newline: +1
    assert with_tools - plain == without_system - 4 + 1
