"""The local server's relay profile (``LocalServer(profile="holysheep")``, ``serve --profile holysheep``):
the price table's models, unknown ones refused, each model family answering as the capabilities table says."""

from __future__ import annotations

import datetime
import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

import holyclient
from holyclient.pricing import default_table
from holyclient.testing import LocalServer

KEY = "sk-relay-profile"
HI = [{"role": "user", "content": "hi"}]
SCHEMA_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "Answer",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"answer": {"type": "string"}},
            "required": ["answer"],
            "additionalProperties": False,
        },
    },
}


def _table() -> dict[str, Any]:
    text = resources.files("holyclient").joinpath("_data/capabilities.json").read_text("utf-8")
    return json.loads(text)


@pytest.fixture(scope="module")
def relay() -> Any:
    with LocalServer(profile="holysheep", api_key=KEY) as server:
        yield server


@pytest.fixture
def client(relay: LocalServer) -> Any:
    with holyclient.Client(base_url=relay.base_url, api_key=KEY, max_retries=0) as c:
        yield c


# -- the capabilities table ------------------------------------------------------------------------
def test_every_row_of_the_capabilities_table_cites_a_source_and_a_date_not_in_the_future() -> None:
    today = datetime.date.today()
    rows = [
        (family, name, row)
        for family, entry in _table()["families"].items()
        for name, row in entry["features"].items()
    ]
    assert len(rows) >= 15
    for family, name, row in rows:
        assert row["source"].startswith("https://"), (family, name)
        assert datetime.date.fromisoformat(row["as_of"]) <= today, (family, name)
        assert row["support"] in (
            "supported",
            "rejected",
            "ignored",
            "needs_json_word",
            "only_one",
            "returned",
        )
        if row["support"] in ("rejected", "only_one", "needs_json_word"):
            assert row["error"]["message"] and row["error"]["status"] == 400, (family, name)


def test_the_relay_families_of_the_issue_are_in_the_table() -> None:
    families = _table()["families"]
    assert families["deepseek"]["features"]["json_schema"]["error"]["message"] == (
        "This response_format type is unavailable now"
    )
    assert families["claude"]["features"]["json_schema"]["support"] == "ignored"
    assert families["gemini"]["features"]["logprobs"]["support"] == "rejected"
    assert families["deepseek-reasoner"]["features"]["reasoning_content"]["support"] == "returned"


# -- the catalogue ---------------------------------------------------------------------------------
def test_models_lists_every_name_of_the_price_table_and_nothing_else(client: Any) -> None:
    listed = {model.id for model in client.models.list()}
    table = default_table()
    assert {
        "claude-sonnet-4.5",
        "gemini-2.5-flash",
        "deepseek-v3.2",
        "deepseek-reasoner",
        "gpt-4.1",
    } <= listed
    assert all(table.get(name) is not None for name in listed)
    assert set(table.models) <= listed


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.chat.completions.create(model="claude-4-opus-typo", messages=HI),
        lambda c: c.responses.create(model="claude-4-opus-typo", input="hi"),
        lambda c: c.embeddings.create(model="claude-4-opus-typo", input="hi"),
        lambda c: c.completions.create(model="claude-4-opus-typo", prompt="hi"),
        lambda c: c.models.retrieve("claude-4-opus-typo"),
    ],
    ids=["chat", "responses", "embeddings", "completions", "retrieve"],
)
def test_a_model_the_relay_does_not_serve_is_refused_as_openai_refuses_it(client: Any, call: Any) -> None:
    with pytest.raises(holyclient.NotFoundError) as caught:
        call(client)
    assert caught.value.status_code == 404
    assert "claude-4-opus-typo" in str(caught.value)


def test_the_default_profile_still_answers_any_model_and_lists_openais_nine() -> None:
    with LocalServer() as server, holyclient.Client(base_url=server.base_url, api_key=KEY) as c:
        assert len(c.models.list().data) == 9
        answer = c.chat.completions.create(
            model="claude-4-opus-typo", messages=HI, response_format=SCHEMA_FORMAT
        )
        assert json.loads(answer.choices[0].message.content) == {"answer": "hi"}


# -- DeepSeek --------------------------------------------------------------------------------------
def test_deepseek_refuses_json_schema_with_its_own_400(client: Any) -> None:
    for call in (
        lambda: client.chat.completions.create(
            model="deepseek-v3.2", messages=HI, response_format=SCHEMA_FORMAT
        ),
        lambda: client.responses.create(
            model="deepseek-v3.2",
            input="hi",
            text={"format": {"type": "json_schema", "name": "A", "schema": {"type": "object"}}},
        ),
    ):
        with pytest.raises(holyclient.BadRequestError) as caught:
            call()
        assert caught.value.body["message"] == "This response_format type is unavailable now"


def test_deepseek_takes_json_object_only_when_the_prompt_says_json(client: Any) -> None:
    fmt = {"type": "json_object"}
    with pytest.raises(holyclient.BadRequestError, match="must contain the word 'json'"):
        client.chat.completions.create(model="deepseek-v3.2", messages=HI, response_format=fmt)
    said = [{"role": "system", "content": "Answer in JSON."}, *HI]
    answer = client.chat.completions.create(model="deepseek-v3.2", messages=said, response_format=fmt)
    assert isinstance(json.loads(answer.choices[0].message.content), dict)


def test_a_json_schema_written_in_the_prompt_is_followed_in_json_object_mode(client: Any) -> None:
    schema = SCHEMA_FORMAT["json_schema"]["schema"]
    said = [{"role": "system", "content": f"Reply in json matching {json.dumps(schema)}"}, *HI]
    answer = client.chat.completions.create(
        model="deepseek-v3.2", messages=said, response_format={"type": "json_object"}
    )
    assert json.loads(answer.choices[0].message.content) == {"answer": "hi"}


def test_deepseek_usage_carries_cache_hits_and_misses_and_a_repeated_prompt_hits(client: Any) -> None:
    messages = [{"role": "system", "content": "You are a careful analyst. " * 8}, *HI]
    first = client.chat.completions.create(model="deepseek-v3.2", messages=messages)
    again = client.chat.completions.create(
        model="deepseek-v3.2", messages=[*messages[:1], {"role": "user", "content": "more"}]
    )
    usage1, usage2 = first.usage.model_dump(), again.usage.model_dump()
    assert usage1["prompt_cache_hit_tokens"] == 0
    assert usage1["prompt_cache_miss_tokens"] == usage1["prompt_tokens"]
    assert usage2["prompt_cache_hit_tokens"] > 0  # the system message again
    assert usage2["prompt_cache_hit_tokens"] + usage2["prompt_cache_miss_tokens"] == usage2["prompt_tokens"]
    assert again.usage.prompt_tokens_details.cached_tokens == usage2["prompt_cache_hit_tokens"]


def test_deepseek_reasoner_thinks_aloud_and_refuses_logprobs(client: Any) -> None:
    answer = client.chat.completions.create(model="deepseek-reasoner", messages=HI)
    assert answer.choices[0].message.reasoning_content == "Thinking about: hi"
    with pytest.raises(holyclient.BadRequestError, match="logprobs"):
        client.chat.completions.create(model="deepseek-reasoner", messages=HI, logprobs=True)
    # no source says how the reasoner answers json_schema: it answers as OpenAI's API (parse() learns)
    answer = client.chat.completions.create(
        model="deepseek-reasoner", messages=HI, response_format=SCHEMA_FORMAT
    )
    assert json.loads(answer.choices[0].message.content) == {"answer": "hi"}


# -- Claude and Gemini -----------------------------------------------------------------------------
def test_claude_ignores_response_format_and_logprobs_and_takes_only_n_1(client: Any) -> None:
    answer = client.chat.completions.create(
        model="claude-sonnet-4.5", messages=HI, response_format=SCHEMA_FORMAT, logprobs=True
    )
    assert answer.choices[0].message.content == "Echo: hi"  # plain text, whatever the schema
    assert answer.choices[0].logprobs is None
    with pytest.raises(holyclient.BadRequestError, match="Must be exactly 1"):
        client.chat.completions.create(model="claude-sonnet-4.5", messages=HI, n=2)
    ignored = client.responses.create(
        model="claude-sonnet-4.5",
        input="hi",
        text={"format": {"type": "json_schema", "name": "A", "schema": {"type": "object"}}},
    )
    assert ignored.output_text == "Echo: hi"


def test_gemini_takes_json_schema_and_refuses_logprobs(client: Any) -> None:
    answer = client.chat.completions.create(
        model="gemini-2.5-flash", messages=HI, response_format=SCHEMA_FORMAT
    )
    assert json.loads(answer.choices[0].message.content) == {"answer": "hi"}
    with pytest.raises(holyclient.BadRequestError, match='Unknown name "logprobs"'):
        client.chat.completions.create(model="gemini-2.5-flash", messages=HI, logprobs=True)


def test_the_structured_outputs_guide_lists_every_row_of_the_table_with_its_source_and_date() -> None:
    guide = (Path(__file__).resolve().parents[1] / "docs/guides/structured-outputs.md").read_text()
    listed = {
        (*tuple(line.split()[:3]), line.split()[-1]) for line in guide.splitlines() if line.count("(") == 1
    }
    for family, entry in _table()["families"].items():
        for name, row in entry["features"].items():
            assert (family, name, row["support"], f"({row['as_of']})") in listed, (family, name)
            assert row["source"].removeprefix("https://") in guide
