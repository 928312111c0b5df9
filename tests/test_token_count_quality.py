"""Every token count says how good it is: its method and a range that holds what the model bills."""

from __future__ import annotations

import json
import math

import pytest

from holyclient._cli import main
from holyclient.pricing import UsageTracker, estimate_cost
from holyclient.tokens import count_messages, count_request, count_tokens
from holyclient.tokens._ranges import classify, family, family_for

PROSE = (
    "The committee met on Tuesday to review the budget for the coming year. After a long discussion about "
    "priorities, the members agreed to fund the library renovation and to postpone the new bus route."
)
CODE = "def mean(values):\n    total = 0\n    for v in values:\n        total += v\n    return total / len(values)\n"
CJK = "今天天气很好，我们去公园散步吧。然后在湖边的咖啡馆喝一杯咖啡，看看书，聊聊天。"
JSON_TEXT = json.dumps({"user": {"id": 42, "name": "Ada", "roles": ["admin", "dev"], "active": True}})


def test_an_openai_count_is_exact_with_a_zero_width_range():
    counted = count_tokens("hello world", "gpt-4.1")
    assert counted.count_method == "exact"
    assert counted.input_tokens_range == (2, 2)
    assert str(counted) == "2"


def test_a_claude_count_is_an_estimate_above_the_stand_in_with_a_range_around_it():
    counted = count_tokens(PROSE, "claude-sonnet-4.5")
    raw = count_tokens(PROSE, "gpt-4o").tokens
    low, high = counted.input_tokens_range
    assert counted.count_method == "approximate"
    assert counted.raw_tokens == raw
    assert low < counted.tokens < high
    assert counted.tokens > raw  # Claude bills more than o200k_base counts for English
    assert str(counted) == f"~{counted.tokens} ({low}-{high})"


@pytest.mark.parametrize(
    ("text", "kind"), [(PROSE, "prose"), (CODE, "code"), (CJK, "cjk"), (JSON_TEXT, "json")]
)
def test_content_kinds_are_told_apart(text, kind):
    assert classify(text) == kind


@pytest.mark.parametrize(
    ("kind", "published"),
    [
        ("prose", 1.16),  # Claude 3.5 vs GPT-4o, English articles
        ("prose", 1.49),  # Sonnet 4.5 billed vs tiktoken, English chunks (pflow issue 414)
        ("code", 1.30),  # Claude 3.5 vs GPT-4o, Python
        ("json", 1.21),  # Claude 3.5 vs GPT-4o, maths (structured text)
        ("cjk", 1.65 / 1.15 * 1.16),
        ("cjk", 1.65 / 1.15 * 1.49),
        ("tools", 1190 / 675),  # a tool-heavy Claude Code conversation (litellm issue 37102)
    ],
)
def test_claude_ranges_hold_every_published_measurement(kind, published):
    ratios = family("claude").ratios[kind]
    assert ratios.low <= published <= ratios.high


def test_families_are_found_by_model_name():
    assert family_for("claude-sonnet-4.5").name == "claude"
    assert family_for("anthropic/claude-opus-4-7").name == "claude-4.7"
    assert family_for("gemini-2.5-flash").name == "gemini"
    assert family_for("some-new-model").name == "other"


def test_every_family_cites_sources_that_exist_in_the_data_file():
    from importlib import resources

    data = json.loads(resources.files("holyclient").joinpath("_data/models.json").read_text("utf-8"))
    known = {source["id"] for source in data["counting"]["sources"]}
    assert all(
        source["url"] and source["date"] and source["figure"] for source in data["counting"]["sources"]
    )
    for name, entry in data["counting"]["families"].items():
        assert entry["sources"], name
        assert set(entry["sources"]) <= known, name
        for low, typical, high in entry["ratios"].values():
            assert 0 < low <= typical <= high


def test_a_chat_request_range_weights_its_content_kinds():
    prose = count_messages([{"role": "user", "content": PROSE}], "claude-sonnet-4.5")
    cjk = count_messages([{"role": "user", "content": CJK}], "claude-sonnet-4.5")
    prose_ratio = prose.input_tokens_range[1] / prose.raw_tokens
    cjk_ratio = cjk.input_tokens_range[1] / cjk.raw_tokens
    assert cjk_ratio > prose_ratio  # CJK text costs Claude relatively more


def test_tool_schemas_widen_the_range_of_a_request():
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Get the weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
    plain = count_request({"model": "claude-sonnet-4.5", "messages": [{"role": "user", "content": PROSE}]})
    with_tools = count_request(
        {"model": "claude-sonnet-4.5", "messages": [{"role": "user", "content": PROSE}], "tools": tools}
    )
    assert with_tools.count_method == "approximate"
    assert with_tools.input_tokens_range[1] > plain.input_tokens_range[1]


def test_an_openai_request_with_an_uncountable_part_is_approximate_with_a_range():
    body = {
        "model": "gpt-4o",
        "messages": [
            {
                "role": "user",
                "content": [{"type": "input_audio", "input_audio": {"data": "", "format": "wav"}}],
            }
        ],
    }
    counted = count_request(body)
    assert counted.count_method == "approximate"
    low, high = counted.input_tokens_range
    assert low <= counted.tokens < high


def test_a_budget_reserves_the_high_end_of_a_stand_in_count():
    body = {
        "model": "claude-sonnet-4.5",
        "messages": [{"role": "user", "content": PROSE * 20}],
        "max_tokens": 1,
    }
    counted = count_request(body)
    at_raw = estimate_cost("claude-sonnet-4.5", counted.raw_tokens, 1).cost_usd
    at_high = estimate_cost("claude-sonnet-4.5", counted.input_tokens_range[1], 1).cost_usd
    tracker = UsageTracker(budget_usd=(at_raw + at_high) / 2)  # enough for the stand-in count, not the bill
    from holyclient import BudgetExceededError

    with pytest.raises(BudgetExceededError):
        tracker.reserve(body)
    roomy = UsageTracker(budget_usd=at_high * 1.01)
    reservation = roomy.reserve(body)
    assert reservation.prompt_tokens == counted.input_tokens_range[1]
    assert math.isclose(reservation.worst_case_usd, at_high)


def test_estimate_json_and_table_carry_method_and_range(tmp_path, capsys):
    path = tmp_path / "requests.jsonl"
    lines = [
        {"model": "claude-sonnet-4.5", "messages": [{"role": "user", "content": PROSE}]},
        {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert main(["estimate", "--json", str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    claude, gpt = doc["requests"]
    assert claude["count_method"] == "approximate"
    low, high = claude["input_tokens_range"]
    assert low < claude["input_tokens"] < high
    assert gpt["count_method"] == "exact" and gpt["input_tokens_range"] == [gpt["input_tokens"]] * 2
    total = doc["total"]
    assert total["count_method"] == "approximate"
    assert total["input_tokens_range"] == [low + gpt["input_tokens"], high + gpt["input_tokens"]]
    assert doc["total"]["by_model"]["claude-sonnet-4.5"]["input_tokens_range"] == [low, high]

    assert main(["estimate", str(path)]) == 0
    table = capsys.readouterr().out
    assert f"~{claude['input_tokens']} ({low}-{high})" in table
    assert "holds the billed count" in table


def test_the_model_table_says_which_models_count_exactly_and_why_claude_cannot(capsys):
    assert main(["models", "--json"]) == 0
    models = {m["model"]: m for m in json.loads(capsys.readouterr().out)["models"]}
    assert models["gpt-4.1"]["count_method"] == "exact"
    claude = models["claude-sonnet-4.5"]
    assert claude["count_method"] == "approximate"
    assert "issue 375" in claude["tokenizer"]  # Anthropic: no client-side tokenizer for Claude 3+
    assert models["gemini-2.5-flash"]["count_method"] == "approximate"
