"""Offline token counting: bundled encodings, OpenAI's chat rules, images, tools, and crash-proofing."""

from __future__ import annotations

import base64
import gzip
import hashlib
import random
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from holyclient.tokens import (
    _tokenizer,
    count_messages,
    count_request,
    count_tokens,
    encoding_for_model,
    encoding_name_for_model,
    image_tokens,
)

DATA = Path(__file__).resolve().parents[1] / "src" / "holyclient" / "_data"

# The OpenAI cookbook notebook "How to count tokens with tiktoken" (examples/How_to_count_tokens_with_tiktoken.ipynb),
# section 6: these messages, and the prompt_tokens the API reported for them.
COOKBOOK_MESSAGES = [
    {
        "role": "system",
        "content": "You are a helpful, pattern-following assistant that translates corporate jargon into plain English.",
    },
    {"role": "system", "name": "example_user", "content": "New synergies will help drive top-line growth."},
    {
        "role": "system",
        "name": "example_assistant",
        "content": "Things working well together will increase revenue.",
    },
    {
        "role": "system",
        "name": "example_user",
        "content": "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
    },
    {
        "role": "system",
        "name": "example_assistant",
        "content": "Let's talk later when we're less busy about how to do better.",
    },
    {
        "role": "user",
        "content": "This late pivot means we don't have time to boil the ocean for the client deliverable.",
    },
]
COOKBOOK_API_COUNTS = {
    "gpt-3.5-turbo-0301": 127,  # an earlier revision of the notebook
    "gpt-3.5-turbo": 129,
    "gpt-4-0613": 129,
    "gpt-4": 129,
    "gpt-4o": 124,
    "gpt-4o-mini": 124,
}

# Section 7 of the same notebook: a tool definition, and the prompt_tokens the API reported.
COOKBOOK_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_current_weather",
            "description": "Get the current weather in a given location",
            "parameters": {
                "type": "object",
                "properties": {
                    "location": {
                        "type": "string",
                        "description": "The city and state, e.g. San Francisco, CA",
                    },
                    "unit": {
                        "type": "string",
                        "description": "The unit of temperature to return",
                        "enum": ["celsius", "fahrenheit"],
                    },
                },
                "required": ["location"],
            },
        },
    }
]
COOKBOOK_TOOL_MESSAGES = [
    {
        "role": "system",
        "content": "You are a helpful assistant that can answer to questions about the weather.",
    },
    {"role": "user", "content": "What's the weather like in San Francisco?"},
]
COOKBOOK_TOOL_API_COUNTS = {"gpt-3.5-turbo": 105, "gpt-4": 105, "gpt-4o": 101, "gpt-4o-mini": 101}


def _ordinary(model: str, text: str) -> int:
    return len(encoding_for_model(model).encode_ordinary(text))


@pytest.mark.slow
def test_importing_holyclient_does_not_import_tiktoken():
    code = "import sys, holyclient; print('tiktoken' in sys.modules, 'regex' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_bundled_encoding_files_decompress_to_tiktokens_published_hash(name):
    raw = gzip.decompress((DATA / f"{name}.tiktoken.gz").read_bytes())
    assert hashlib.sha256(raw).hexdigest() == _tokenizer._SPECS[name][0]
    enc = _tokenizer.get_encoding(name)
    assert enc.name == name
    assert enc.decode(enc.encode_ordinary("hello world")) == "hello world"
    assert _tokenizer.get_encoding(name) is enc  # cached


def test_a_damaged_encoding_file_is_refused(monkeypatch):
    monkeypatch.setitem(_tokenizer._SPECS, "cl100k_base", ("0" * 64, *_tokenizer._SPECS["cl100k_base"][1:]))
    with pytest.raises(_tokenizer.EncodingFileError, match="damaged"):
        _tokenizer._read_ranks("cl100k_base")


def test_known_token_ids_match_tiktoken():
    # From the cookbook notebook: "tiktoken is great!" in cl100k_base, and a Japanese phrase in o200k_base.
    assert _tokenizer.get_encoding("cl100k_base").encode_ordinary("tiktoken is great!") == [
        83,
        1609,
        5963,
        374,
        2294,
        0,
    ]
    assert _tokenizer.get_encoding("o200k_base").encode_ordinary("お誕生日おめでとう") == [
        8930,
        9697,
        243,
        128225,
        8930,
        17693,
        4344,
        48669,
    ]


@pytest.mark.parametrize(
    ("model", "encoding", "approximate"),
    [
        ("gpt-4o", "o200k_base", False),
        ("gpt-4o-mini-2024-07-18", "o200k_base", False),
        ("gpt-4.1", "o200k_base", False),
        ("gpt-4.1-nano", "o200k_base", False),
        ("o3-mini", "o200k_base", False),
        ("o1", "o200k_base", False),
        ("gpt-5-mini", "o200k_base", False),
        ("ft:gpt-4o-mini-2024-07-18:org::abc", "o200k_base", False),
        ("gpt-4", "cl100k_base", False),
        ("gpt-4-0613", "cl100k_base", False),
        ("gpt-4-turbo", "cl100k_base", False),
        ("gpt-3.5-turbo", "cl100k_base", False),
        ("text-embedding-3-small", "cl100k_base", False),
        ("claude-sonnet-4.5", "o200k_base", True),
        ("gemini-2.5-flash", "o200k_base", True),
        ("deepseek-chat", "deepseek_v3", False),  # its own tokenizer ships (tokenizers is a dev dependency)
        ("qwen2.5-72b-instruct", "qwen2", False),
        ("some-new-model", "o200k_base", True),
    ],
)
def test_models_map_to_their_encoding_and_others_are_approximate(model, encoding, approximate):
    assert encoding_name_for_model(model) == (encoding, approximate)


def test_count_tokens_reports_model_encoding_and_approximate_flag():
    exact = count_tokens("hello world", "gpt-4.1")
    assert (exact.tokens, exact.encoding, exact.approximate) == (2, "o200k_base", False)
    assert int(exact) == 2
    assert count_tokens("hello world", "claude-sonnet-4.5").approximate is True


def test_special_token_text_is_counted_as_ordinary_text():
    # The API escapes "<|endoftext|>" in user content; it is never the special token.
    assert count_tokens("<|endoftext|>", "gpt-4o").tokens == _ordinary("gpt-4o", "<|endoftext|>") > 1


@pytest.mark.parametrize(("model", "expected"), COOKBOOK_API_COUNTS.items())
def test_chat_messages_count_as_the_api_reported_in_the_cookbook(model, expected):
    assert count_messages(COOKBOOK_MESSAGES, model).tokens == expected


@pytest.mark.parametrize(("model", "expected"), COOKBOOK_TOOL_API_COUNTS.items())
def test_tool_definitions_count_as_the_api_reported_in_the_cookbook(model, expected):
    assert count_messages(COOKBOOK_TOOL_MESSAGES, model, tools=COOKBOOK_TOOLS).tokens == expected
    body = {"model": model, "messages": COOKBOOK_TOOL_MESSAGES, "tools": COOKBOOK_TOOLS}
    assert count_request(body).tokens == expected


def test_legacy_functions_count_like_the_same_tools():
    functions = [t["function"] for t in COOKBOOK_TOOLS]
    assert (
        count_messages(COOKBOOK_TOOL_MESSAGES, "gpt-4o", functions=functions).tokens
        == count_messages(COOKBOOK_TOOL_MESSAGES, "gpt-4o", tools=COOKBOOK_TOOLS).tokens
    )


def test_plain_message_costs_three_plus_its_fields_and_the_reply_three():
    m = {"role": "user", "content": "Hello there"}
    assert (
        count_messages([m], "gpt-4o").tokens
        == 3 + _ordinary("gpt-4o", "user") + _ordinary("gpt-4o", "Hello there") + 3
    )
    assert count_messages([], "gpt-4o").tokens == 3


def test_a_name_costs_its_tokens_plus_one_and_minus_one_on_0301():
    plain = {"role": "user", "content": "hi"}
    named = {**plain, "name": "alice"}
    name_tokens = _ordinary("gpt-4", "alice")
    assert (
        count_messages([named], "gpt-4").tokens - count_messages([plain], "gpt-4").tokens == name_tokens + 1
    )
    legacy = (
        count_messages([named], "gpt-3.5-turbo-0301").tokens
        - count_messages([plain], "gpt-3.5-turbo-0301").tokens
    )
    assert legacy == name_tokens - 1


def test_text_parts_count_their_text():
    parts = {
        "role": "user",
        "content": [{"type": "text", "text": "Hello"}, {"type": "text", "text": " world"}],
    }
    expected = (
        3 + _ordinary("gpt-4o", "user") + _ordinary("gpt-4o", "Hello") + _ordinary("gpt-4o", " world") + 3
    )
    assert count_messages([parts], "gpt-4o").tokens == expected


def _png_uri(width: int, height: int) -> str:
    png = (
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", 13)
        + b"IHDR"
        + struct.pack(">II", width, height)
        + b"\x08\x02\0\0\0"
    )
    return "data:image/png;base64," + base64.b64encode(png + b"\0" * 16).decode()


def _jpeg_uri(width: int, height: int) -> str:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0" + b"\x01\x01\0\0\x01\0\x01\0\0"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\0"
    return "data:image/jpeg;base64," + base64.b64encode(b"\xff\xd8" + app0 + sof + b"\xff\xd9").decode()


def _gif_uri(width: int, height: int) -> str:
    return (
        "data:image/gif;base64,"
        + base64.b64encode(b"GIF89a" + struct.pack("<HH", width, height) + b"\0" * 8).decode()
    )


@pytest.mark.parametrize(
    ("width", "height", "detail", "expected"),
    [
        (4000, 3000, "low", 85),
        (512, 512, "high", 85 + 170),
        (1024, 1024, "auto", 85 + 170 * 4),  # short side to 768 -> 768x768 -> 2x2 tiles
        (2048, 4096, "high", 85 + 170 * 6),  # fit 2048 -> 1024x2048, short side 768 -> 768x1536 -> 2x3
        (100, 3000, "high", 85 + 170 * 4),  # fit 2048 -> 68x2048; short side already small -> 1x4
    ],
)
def test_image_tokens_follow_openais_vision_rule(width, height, detail, expected):
    assert image_tokens(width, height, detail) == expected


@pytest.mark.parametrize("make_uri", [_png_uri, _jpeg_uri, _gif_uri])
def test_image_part_size_is_read_from_a_data_uri(make_uri):
    part = {"type": "image_url", "image_url": {"url": make_uri(2048, 4096), "detail": "high"}}
    with_image = count_messages([{"role": "user", "content": [part]}], "gpt-4o").tokens
    empty = count_messages([{"role": "user", "content": []}], "gpt-4o").tokens
    assert with_image - empty == 85 + 170 * 6


def test_image_given_by_url_uses_the_default_or_the_given_size():
    part = {"type": "image_url", "image_url": {"url": "https://example.invalid/cat.png"}}
    messages = [{"role": "user", "content": [part]}]
    empty = count_messages([{"role": "user", "content": []}], "gpt-4o").tokens
    assert count_messages(messages, "gpt-4o").tokens - empty == 765  # 1024x1024 assumed
    assert count_messages(messages, "gpt-4o", image_size=(512, 512)).tokens - empty == 255
    low = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x", "detail": "low"}}]}]
    assert count_messages(low, "gpt-4o").tokens - empty == 85


def test_audio_parts_cannot_be_counted_offline_and_mark_the_result_approximate():
    audio = {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}
    assert count_messages([{"role": "user", "content": [audio]}], "gpt-4o").approximate is True


def test_tool_calls_and_tool_results_count_as_the_api_reported():
    # API-reported prompt_tokens = 35 for this gpt-4 request (github.com/forestwanglin/openai-java issue #5).
    messages = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_Id8ycVMsW8gdsf7kSXfgAcf1",
                    "type": "function",
                    "function": {
                        "name": "get_current_weather",
                        "arguments": '{\n  "location": "Boston, MA"\n}',
                    },
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_Id8ycVMsW8gdsf7kSXfgAcf1",
            "name": "get_current_weather",
            "content": "29 degree celcius",
        },
    ]
    assert count_messages(messages, "gpt-4").tokens == 35


def test_longer_tool_call_arguments_cost_exactly_their_extra_tokens():
    def call(args: str) -> list[dict[str, object]]:
        fn = {"name": "f", "arguments": args}
        return [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c", "type": "function", "function": fn}],
            }
        ]

    delta = (
        count_messages(call('{"a": "long text here"}'), "gpt-4o").tokens
        - count_messages(call("{}"), "gpt-4o").tokens
    )
    assert delta == _ordinary("gpt-4o", '{"a": "long text here"}') - _ordinary("gpt-4o", "{}")


def test_tool_choice_none_adds_one_and_a_named_function_its_name_plus_four():
    base = count_messages(COOKBOOK_TOOL_MESSAGES, "gpt-4o", tools=COOKBOOK_TOOLS).tokens
    none = count_messages(COOKBOOK_TOOL_MESSAGES, "gpt-4o", tools=COOKBOOK_TOOLS, tool_choice="none").tokens
    named = count_messages(
        COOKBOOK_TOOL_MESSAGES,
        "gpt-4o",
        tools=COOKBOOK_TOOLS,
        tool_choice={"type": "function", "function": {"name": "get_current_weather"}},
    ).tokens
    auto = count_messages(COOKBOOK_TOOL_MESSAGES, "gpt-4o", tools=COOKBOOK_TOOLS, tool_choice="auto").tokens
    assert (none - base, named - base, auto - base) == (1, _ordinary("gpt-4o", "get_current_weather") + 4, 0)


def test_nested_and_array_parameters_are_counted():
    small = [
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
    ]
    nested = [
        {
            "type": "function",
            "function": {
                "name": "f",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "items": {
                            "type": "array",
                            "items": {"type": "object", "properties": {"sku": {"type": "string"}}},
                        }
                    },
                },
            },
        }
    ]
    messages = [{"role": "user", "content": "hi"}]
    assert (
        count_messages(messages, "gpt-4o", tools=nested).tokens
        > count_messages(messages, "gpt-4o", tools=small).tokens
    )


def test_embedding_bodies_count_their_input():
    body = {"model": "text-embedding-3-small", "input": ["hello world", "bye"]}
    assert count_request(body).tokens == _ordinary("text-embedding-3-small", "hello world") + _ordinary(
        "text-embedding-3-small", "bye"
    )
    assert count_request({"model": "text-embedding-3-small", "input": [[1, 2, 3]]}).tokens == 3


def test_bad_request_shapes_raise_clear_errors():
    with pytest.raises(ValueError, match="no model"):
        count_request({"messages": []})
    with pytest.raises(TypeError, match="must be an object"):
        count_messages(["hello"], "gpt-4o")  # type: ignore[list-item]
    with pytest.raises(ValueError, match="neither"):
        count_request({"model": "gpt-4o"})


def test_a_million_spaces_do_not_crash_and_count_exactly():
    # tiktoken itself panics (a BaseException) on ~1,000,000 consecutive spaces (openai/tiktoken#15).
    enc = _tokenizer.get_encoding("o200k_base")
    n = 1_000_000
    text = "x" + " " * n + "y"
    # The pre-tokenizer yields "x", n-1 spaces, " y"; BPE runs on each piece alone.
    expected = enc.encode_ordinary("x") + enc._encode_single_piece(" " * (n - 1)) + enc.encode_ordinary(" y")
    assert _tokenizer.encode(enc, text) == expected


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_the_split_encoder_equals_tiktoken_on_random_text(name):
    # The slow path must be exact: with a tiny piece limit, every text goes through it.
    enc = _tokenizer.get_encoding(name)
    alphabet = [
        " ",
        " ",
        "\t",
        "\n",
        "\r\n",
        "a",
        "Ab",
        "1",
        "12345",
        ".",
        "é",
        "'s",
        "中",
        "!?",
        "\u3000",
        "/",
        "  x",
    ]
    rnd = random.Random(7)
    for _ in range(400):
        text = "".join(rnd.choice(alphabet) * rnd.choice([1, 2, 5, 9]) for _ in range(rnd.randint(0, 30)))
        for limit in (2, 3, 6):
            assert _tokenizer.encode_split(enc, text, limit) == enc.encode_ordinary(text), (text, limit)


def test_a_panic_from_tiktoken_falls_back_to_the_split_encoder(monkeypatch):
    enc = _tokenizer.get_encoding("o200k_base")
    text = "word " * (_tokenizer.LONG_RUN // 4)
    expected = enc.encode_ordinary(text)

    class PanicException(BaseException):  # pyo3's exception type, by name
        pass

    def panic(_text: str) -> list[int]:
        raise PanicException("called `Result::unwrap()` on an `Err` value")

    monkeypatch.setattr(enc, "encode_ordinary", panic)
    monkeypatch.setattr(_tokenizer, "encode_split", lambda e, t: expected if t == text else [])
    assert _tokenizer.encode(enc, text) == expected


def test_keyboard_interrupt_is_not_swallowed(monkeypatch):
    enc = _tokenizer.get_encoding("o200k_base")

    def interrupted(_text: str) -> list[int]:
        raise KeyboardInterrupt

    monkeypatch.setattr(enc, "encode_ordinary", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _tokenizer.encode(enc, "a" * _tokenizer.LONG_RUN)


def test_a_json_schema_response_format_adds_its_schema_and_is_approximate():
    messages = [{"role": "user", "content": "List three colours."}]
    schema = {"name": "colours", "schema": {"type": "object", "properties": {"colours": {"type": "array"}}}}
    plain = count_request({"model": "gpt-4o", "messages": messages})
    shaped = count_request(
        {
            "model": "gpt-4o",
            "messages": messages,
            "response_format": {"type": "json_schema", "json_schema": schema},
        }
    )
    assert shaped.tokens > plain.tokens and shaped.approximate and not plain.approximate
    assert (
        count_request({"model": "gpt-4o", "messages": messages, "response_format": {"type": "json_object"}})
        == plain
    )
