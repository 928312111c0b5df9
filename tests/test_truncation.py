"""truncate_text and fit_messages: exact budgets, whole characters, tool pairs kept together."""

from __future__ import annotations

import copy

import pytest

from holyclient.tokens import count_messages, count_tokens, encoding_for_model
from holyclient.truncation import DEFAULT_MARKER, ContextOverflowError, fit_messages, truncate_text

TEXT = "The quick brown fox jumps over the lazy dog. " * 40
MULTIBYTE = "🧑‍🚀 宇宙飛行士は月へ行った。Ωμέγα ✨ " * 30


def _tokens(text: str, model: str = "gpt-4o") -> int:
    return count_tokens(text, model).tokens


def test_text_that_fits_is_returned_unchanged():
    assert truncate_text("short text", 100, "gpt-4o") == "short text"


@pytest.mark.parametrize("keep", ["head", "tail", "both"])
@pytest.mark.parametrize("budget", [9, 12, 13, 30, 101])
def test_the_result_fits_the_budget_exactly_with_the_marker_inside(keep, budget):
    result = truncate_text(TEXT, budget, "gpt-4o", keep=keep)
    assert _tokens(result) == budget  # every token of the budget used: not one short at the joins
    assert DEFAULT_MARKER in result


def test_head_keeps_the_start_tail_the_end_and_both_each_side():
    head = truncate_text(TEXT, 20, "gpt-4o", keep="head", marker="[cut]")
    tail = truncate_text(TEXT, 20, "gpt-4o", keep="tail", marker="[cut]")
    both = truncate_text(TEXT, 20, "gpt-4o", keep="both", marker="[cut]")
    assert head.endswith("[cut]") and TEXT.startswith(head.removesuffix("[cut]"))
    assert tail.startswith("[cut]") and TEXT.endswith(tail.removeprefix("[cut]"))
    start, end = both.split("[cut]")
    assert TEXT.startswith(start) and TEXT.endswith(end) and start and end


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4"])
@pytest.mark.parametrize("keep", ["head", "tail", "both"])
def test_multibyte_characters_are_never_split(model, keep):
    for budget in range(1, 40):
        result = truncate_text(MULTIBYTE, budget, model, keep=keep, marker="…")
        assert "\ufffd" not in result
        assert _tokens(result, model) <= budget
        pieces = result.split("…")
        assert MULTIBYTE.startswith(pieces[0]) or keep == "tail"
        assert MULTIBYTE.endswith(pieces[-1]) or keep == "head"


def test_tokens_that_end_inside_a_character_are_dropped_not_split():
    enc = encoding_for_model("gpt-4")
    tokens = enc.encode_ordinary("🧑‍🚀")
    assert len(tokens) > 1 and any(not _is_utf8(enc.decode_single_token_bytes(t)) for t in tokens)
    result = truncate_text("🧑‍🚀" * 10, 2, "gpt-4", marker="")
    assert "\ufffd" not in result and ("🧑‍🚀" * 10).startswith(result)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_a_budget_smaller_than_the_marker_cuts_without_a_marker():
    marker = " [... text removed ...] "
    assert _tokens(marker) > 3
    result = truncate_text(TEXT, 3, "gpt-4o", marker=marker)
    assert "removed" not in result
    assert 0 < _tokens(result) <= 3 and TEXT.startswith(result)
    assert truncate_text(TEXT, 0, "gpt-4o") == ""


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="max_tokens"):
        truncate_text(TEXT, -1, "gpt-4o")
    with pytest.raises(ValueError, match="keep"):
        truncate_text(TEXT, 10, "gpt-4o", keep="middle")  # type: ignore[arg-type]


def _conversation() -> list[dict[str, object]]:
    return [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "First question " + "alpha " * 60},
        {"role": "assistant", "content": "First answer " + "beta " * 60},
        {"role": "user", "content": "Check the weather"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, " + "warm " * 40},
        {"role": "assistant", "content": "It is sunny."},
        {"role": "user", "content": "Thanks! And tomorrow?"},
    ]


def _size(messages: list[dict[str, object]]) -> int:
    return count_messages(messages, "gpt-4o").tokens


def test_a_conversation_that_fits_is_returned_as_an_equal_copy():
    messages = _conversation()
    fitted = fit_messages(messages, "gpt-4o", reserve_output=100)
    assert fitted == messages and fitted is not messages
    assert all(a is not b for a, b in zip(fitted, messages, strict=True))


def test_oldest_turns_go_first_and_system_and_latest_turn_stay():
    messages = _conversation()
    full = _size(messages)
    fitted = fit_messages(messages, "gpt-4o", reserve_output=0, max_context=full - 100)
    assert _size(fitted) <= full - 100
    assert fitted[0] == messages[0]
    assert fitted[-1] == messages[-1]
    assert messages[1] not in fitted  # the oldest user turn went first
    assert messages[6] in fitted  # the newest assistant answer stayed


def test_a_tool_call_and_its_result_are_dropped_together():
    messages = _conversation()
    system_and_last = _size([messages[0], messages[-1]])
    fitted = fit_messages(messages, "gpt-4o", reserve_output=0, max_context=system_and_last + 30)
    roles = [m["role"] for m in fitted]
    assert "tool" not in roles
    assert not any(m.get("tool_calls") for m in fitted)
    assert _size(fitted) <= system_and_last + 30


def test_a_tool_result_never_survives_without_its_call():
    messages = _conversation()
    for cut in range(_size([messages[0], messages[-1]]), _size(messages), 7):
        fitted = fit_messages(messages, "gpt-4o", reserve_output=0, max_context=cut)
        has_call = any(m.get("tool_calls") for m in fitted)
        has_result = any(m["role"] == "tool" for m in fitted)
        assert has_call == has_result, cut
        assert _size(fitted) <= cut


def test_the_last_message_to_go_is_shortened_when_enough_of_it_fits():
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Old context: " + "lorem ipsum dolor " * 100},
        {"role": "user", "content": "Question?"},
    ]
    budget = _size([messages[0], messages[2]]) + 60
    fitted = fit_messages(messages, "gpt-4o", reserve_output=0, max_context=budget)
    assert len(fitted) == 3
    assert fitted[1]["content"].startswith(DEFAULT_MARKER)
    assert _size(fitted) <= budget
    assert messages[1]["content"].startswith("Old context")  # input untouched


def test_the_input_is_never_mutated():
    messages = _conversation()
    before = copy.deepcopy(messages)
    fitted = fit_messages(messages, "gpt-4o", reserve_output=0, max_context=_size(messages) - 150)
    fitted[0]["content"] = "changed"
    assert messages == before


def test_when_even_the_minimum_does_not_fit_the_error_says_how_much_is_needed():
    messages = _conversation()
    minimum = _size([messages[0], messages[-1]])
    with pytest.raises(ContextOverflowError) as info:
        fit_messages(messages, "gpt-4o", reserve_output=10, max_context=minimum + 5)
    assert info.value.required_tokens == minimum
    assert info.value.available_tokens == minimum - 5
    assert "latest turn" in str(info.value) and "reserve_output" in str(info.value)


def test_the_models_context_window_comes_from_the_price_table():
    messages = [{"role": "user", "content": "word " * 9_000}]
    with pytest.raises(ContextOverflowError):
        fit_messages(messages, "gpt-4", reserve_output=0)  # gpt-4 has an 8,192-token window
    assert fit_messages(messages, "gpt-4.1", reserve_output=0) == messages


def test_tools_take_room_too():
    messages = [{"role": "user", "content": "old " * 50}, {"role": "user", "content": "new"}]
    tool = {
        "type": "function",
        "function": {"name": "f", "description": "Looks things up.", "parameters": {}},
    }
    budget = _size(messages) + 5
    assert fit_messages(messages, "gpt-4o", reserve_output=0, max_context=budget) == messages
    fitted = fit_messages(messages, "gpt-4o", reserve_output=0, max_context=budget, tools=[tool])
    assert fitted[-1] == messages[-1] and fitted[0] != messages[0]
