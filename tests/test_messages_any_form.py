"""Token counting, budget reservation and fit_messages take messages as dicts, TypedDicts or message models."""

from __future__ import annotations

import pytest

from holyclient import ChatCompletion
from holyclient.pricing import PriceTable
from holyclient.pricing._tracker import UsageTracker
from holyclient.tokens import count_messages, count_request
from holyclient.truncation import fit_messages

TOOL_CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}
RESPONSE = ChatCompletion.model_validate(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4.1",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "refusal": None, "tool_calls": [TOOL_CALL]},
                "finish_reason": "tool_calls",
            }
        ],
    }
)
MODEL_MESSAGE = RESPONSE.choices[0].message
AS_SENT = {"role": "assistant", "content": None, "refusal": None, "tool_calls": [TOOL_CALL]}


def _loop(assistant: object) -> list[object]:
    return [
        {"role": "system", "content": "You check the weather."},
        {"role": "user", "content": "Weather in Paris?"},
        assistant,
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 21}'},
    ]


def test_a_message_model_counts_as_the_dict_openai_would_send():
    assert count_messages(_loop(MODEL_MESSAGE), "gpt-4o") == count_messages(_loop(AS_SENT), "gpt-4o")
    assert (
        count_messages([MODEL_MESSAGE], "gpt-4o").tokens
        > count_messages([{"role": "assistant"}], "gpt-4o").tokens
    )


def test_tool_calls_given_as_models_inside_a_dict_are_counted():
    mixed = {"role": "assistant", "content": None, "tool_calls": MODEL_MESSAGE.tool_calls}
    assert count_messages([mixed], "gpt-4o") == count_messages([AS_SENT], "gpt-4o")


def test_a_budget_reservation_counts_a_message_model_like_its_dict():
    tracker = UsageTracker(budget_usd=10.0, prices=PriceTable.builtin())
    body = {"model": "gpt-4.1", "messages": _loop(MODEL_MESSAGE), "max_tokens": 10}
    reservation = tracker.reserve(body)
    assert reservation.prompt_tokens == count_request({**body, "messages": _loop(AS_SENT)}).tokens


def test_fit_messages_accepts_a_model_in_the_latest_turn_and_returns_dicts():
    system, *latest = _loop(MODEL_MESSAGE)
    kept = [system, {"role": "assistant", "content": "Hello!"}, *latest]
    conversation = [system, {"role": "user", "content": "old question " * 300}, *kept[1:]]
    budget = count_messages(kept, "gpt-4o").tokens + 5
    fitted = fit_messages(conversation, "gpt-4o", max_context=budget, reserve_output=0)
    assert fitted == [m if isinstance(m, dict) else AS_SENT for m in kept]
    assert all(type(m) is dict for m in fitted)


def test_fit_messages_drops_a_model_tool_call_together_with_its_result():
    conversation = [*_loop(MODEL_MESSAGE), {"role": "user", "content": "And in Rome?"}]
    minimum = [conversation[0], conversation[-1]]
    budget = count_messages(minimum, "gpt-4o").tokens + count_messages([conversation[1]], "gpt-4o").tokens
    fitted = fit_messages(conversation, "gpt-4o", max_context=budget, reserve_output=0)
    assert [m["role"] for m in fitted] == ["system", "user"]


def test_anything_else_is_refused_with_a_clear_error():
    with pytest.raises(TypeError, match="each message must be an object"):
        count_messages(["hello"], "gpt-4o")  # type: ignore[list-item]
